// Bulk seeding for the analytics benchmark: request rows, their cost rows and some feedback,
// generated inside PostgreSQL with generate_series (roughly a minute per million requests on two
// cores, rollup triggers included). Deterministic for a given seed.
//
//   DATABASE_URL=postgres://... npx tsx test/bench/seed-analytics.ts [requests] [tenantId]
//
// Without DATABASE_URL an embedded PostgreSQL is started in a temporary directory (and removed
// at the end, so that mode only shows the timing). Mix per request: 30% cache hits (2/3 exact),
// 5% fallbacks (an extra failed cost row), 3% errors, 15% classifier bypassed, 3% with feedback.

import { pathToFileURL } from 'node:url';
import type pg from 'pg';
import { performance } from 'node:perf_hooks';

export interface SeedOptions {
  tenantId: string;
  requests: number;
  /** Rows are spread evenly at random over the last `days` days. */
  days?: number;
  now?: Date;
  /** Share of requests that get one feedback row. */
  feedbackRate?: number;
  /** 0..1, for setseed(). */
  seed?: number;
  /** Rows per INSERT statement. */
  chunk?: number;
}

export interface SeedResult {
  requests: number;
  costs: number;
  feedback: number;
  ms: number;
}

const MODELS: Array<[string, string]> = [
  ['openai', 'gpt-4o-mini'],
  ['openai', 'gpt-4o'],
  ['anthropic', 'claude-3-5-haiku-20241022'],
  ['anthropic', 'claude-sonnet-4-5'],
  ['gemini', 'gemini-2.0-flash'],
  ['gemini', 'gemini-2.5-pro'],
  ['groq', 'llama-3.1-8b-instant'],
  ['mistral', 'mistral-small-latest'],
];

const sqlArray = (values: string[]) => `array[${values.map((v) => `'${v.replace(/'/g, "''")}'`).join(', ')}]`;

// Rows are generated into a temporary table first, then copied into requests, and cost and
// feedback rows are derived from the temporary table (no lookups into the growing requests table).
const CREATE_STAGING = `create temp table seed_requests (like requests including defaults) on commit drop`;

// $1 tenant, $2 first index, $3 last index, $4 days, $5 now.
const INSERT_REQUESTS = `
insert into seed_requests (id, tenant_id, created_at, token_id, latency_ms, task_type, complexity, routed_by, provider, model,
  used_fallback, used_llm_fallback, cached, cache_type, tokens_saved_input, tokens_saved_output, input_tokens, output_tokens, streamed, status, error_type)
select
  'req_' || $1 || '_' || g.i, $1, $5::timestamptz - (g.r1 * interval '1 day' * $4), 'tok_seed_' || (g.i % 10),
  case when g.cached then 0 else 150 + floor(g.r2 * 2500)::int end,
  case when g.rb in ('user-override', 'ab-test') then null else (array['coding','creative','summarization','qa','general','vision'])[1 + floor(g.r3 * 6)::int] end,
  case when g.rb in ('user-override', 'ab-test') then null else (array['simple','medium','complex'])[1 + floor(g.r4 * 3)::int] end,
  g.rb,
  (${sqlArray(MODELS.map(([p]) => p))})[1 + g.m],
  (${sqlArray(MODELS.map(([, m]) => m))})[1 + g.m],
  g.fb and not g.cached, g.r4 < 0.01, g.cached,
  case when g.cached then (case when g.r5 < 0.66 then 'exact' else 'semantic' end) end,
  case when g.cached then 20 + floor(g.r2 * 400)::int else 0 end,
  case when g.cached then 10 + floor(g.r3 * 300)::int else 0 end,
  case when g.cached then 0 else 20 + floor(g.r2 * 400)::int end,
  case when g.cached then 0 else 10 + floor(g.r3 * 300)::int end,
  g.r4 < 0.3,
  case when g.cached then 'ok' when g.r5 < 0.02 then 'error' when g.r5 < 0.03 then 'client_closed' else 'ok' end,
  case when not g.cached and g.r5 < 0.02 then 'provider_error' end
from (
  select i, r1, r2, r3, r4, r5, floor(r6 * ${MODELS.length})::int as m, r7 < 0.3 as cached, r8 < 0.05 as fb,
    case when r9 < 0.55 then 'classification' when r9 < 0.6 then 'routing-hint' when r9 < 0.7 then 'user-override'
         when r9 < 0.75 then 'ab-test' when r9 < 0.9 then 'adaptive' else 'exploration' end as rb
  from (select i, random() r1, random() r2, random() r3, random() r4, random() r5, random() r6, random() r7, random() r8, random() r9
        from generate_series($2::int, $3::int) i) s
) g`;

const COPY_REQUESTS = `insert into requests select * from seed_requests`;

// One cost row per upstream-served request, plus a failed first attempt for fallbacks.
const INSERT_COSTS = `
insert into cost_logs (tenant_id, request_id, token_id, provider, model, input_tokens, output_tokens, cost, status, created_at, task_type, complexity)
select r.tenant_id, r.id, r.token_id, r.provider, r.model, r.input_tokens, r.output_tokens,
       round((r.input_tokens * 0.15 + r.output_tokens * 0.6) / 1e6, 12), case when r.status = 'error' then 'error' else 'ok' end,
       r.created_at + r.latency_ms * interval '1 millisecond', r.task_type, r.complexity
from seed_requests r where not r.cached
union all
select r.tenant_id, r.id, r.token_id, 'openai', 'gpt-4o', r.input_tokens, 0, round(r.input_tokens * 2.5 / 1e6, 12), 'error',
       r.created_at + interval '50 milliseconds', r.task_type, r.complexity
from seed_requests r where r.used_fallback`;

// $1 rate.
const INSERT_FEEDBACK = `
insert into feedback (id, tenant_id, request_id, score, source, provider, model, task_type, complexity, created_at)
select 'fb_' || r.id, r.tenant_id, r.id, 1 + floor(random() * 5)::int, case when random() < 0.5 then 'user' else 'judge' end,
       r.provider, r.model, r.task_type, r.complexity, r.created_at + interval '1 minute'
from seed_requests r where random() < $1::float8`;

/** Seeds one tenant on one connection (setseed is per session). */
export async function seedAnalytics(pool: pg.Pool, opts: SeedOptions): Promise<SeedResult> {
  const started = performance.now();
  const chunk = opts.chunk ?? 250_000;
  const now = opts.now ?? new Date();
  const result: SeedResult = { requests: 0, costs: 0, feedback: 0, ms: 0 };
  const client = await pool.connect();
  try {
    await client.query('select setseed($1)', [opts.seed ?? 0.42]);
    for (let first = 1; first <= opts.requests; first += chunk) {
      const last = Math.min(opts.requests, first + chunk - 1);
      await client.query('begin');
      await client.query(CREATE_STAGING);
      await client.query(INSERT_REQUESTS, [opts.tenantId, first, last, opts.days ?? 30, now]);
      result.requests += (await client.query(COPY_REQUESTS)).rowCount ?? 0;
      result.costs += (await client.query(INSERT_COSTS)).rowCount ?? 0;
      result.feedback += (await client.query(INSERT_FEEDBACK, [opts.feedbackRate ?? 0.03])).rowCount ?? 0;
      await client.query('commit');
    }
  } catch (err) {
    await client.query('rollback').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
  result.ms = performance.now() - started;
  return result;
}

/** ANALYZE (and set the visibility map) after a bulk load, as autovacuum would shortly after. */
export async function vacuumAnalyze(pool: pg.Pool): Promise<void> {
  for (const table of [
    'requests',
    'cost_logs',
    'feedback',
    'analytics_request_hourly',
    'analytics_request_totals',
    'analytics_cost_hourly',
    'analytics_cost_totals',
    'spend_by_cell',
    'spend_by_token',
  ]) {
    await pool.query(`vacuum analyze ${table}`);
  }
}

async function main(): Promise<void> {
  const { connectDatabase } = await import('../../server/db/client.js');
  const { runMigrations } = await import('../../server/db/migrate.js');
  const { cleanup, installCleanupHandlers, startDatabase } = await import('./lib/processes.js');
  installCleanupHandlers(30 * 60_000);
  const requests = Number(process.argv[2] ?? 1_000_000);
  const tenantId = process.argv[3] ?? 'ten_bench';
  const url = process.env.DATABASE_URL ?? (await startDatabase()).url;
  const handle = connectDatabase(url, 2);
  try {
    await runMigrations(handle);
    const r = await seedAnalytics(handle.pool, { tenantId, requests });
    await vacuumAnalyze(handle.pool);
    process.stdout.write(
      `seeded ${tenantId}: ${r.requests} requests, ${r.costs} cost rows, ${r.feedback} feedback rows in ${(r.ms / 1000).toFixed(1)} s\n`,
    );
  } finally {
    await handle.close();
    await cleanup();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
