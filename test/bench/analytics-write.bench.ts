// Write-path benchmark for the analytics rollups: times the log writer's group commit (one
// transaction: N request rows with their cost rows, as in production) and compares it with the
// schema as it was before analytics (rollup triggers disabled, requests_tenant_latency_idx
// dropped), alternating the two so machine noise hits both alike.
//
//   DATABASE_URL=postgres://... npx tsx test/bench/analytics-write.bench.ts
//
// Without DATABASE_URL an embedded PostgreSQL is started in a temporary directory. The comparison
// runs DDL on the database (disable triggers, drop and rebuild an index), so on a DATABASE_URL it
// only runs with BENCH_WRITE_DDL=1; otherwise only the current schema is timed. BENCH_BATCHES
// (default 30 per round) batches of BENCH_BATCH_ROWS (default 1000) requests, each request with
// 0.8 cost rows on average; the rows go to throwaway tenants and are deleted afterwards.

import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import type pg from 'pg';
import { LogWriter, type CostLogRow, type RequestLogRow } from '../../server/gateway/log-writer.js';
import { newId } from '../../server/lib/ids.js';
import { createLogger } from '../../server/lib/logger.js';

export interface WriteFigures {
  batches: number;
  rowsPerBatch: number;
  p50Ms: number;
  p90Ms: number;
  maxMs: number;
  /** Request rows per second of commit time. */
  rowsPerSecond: number;
}

const MODELS: Array<[string, string]> = [
  ['openai', 'gpt-4o-mini'],
  ['openai', 'gpt-4o'],
  ['anthropic', 'claude-3-5-haiku-20241022'],
  ['gemini', 'gemini-2.0-flash'],
];
const ROUTED_BY = ['classification', 'routing-hint', 'user-override', 'ab-test', 'adaptive', 'exploration'];
const TASKS = ['coding', 'creative', 'summarization', 'qa', 'general'];
const COMPLEXITIES = ['simple', 'medium', 'complex'];

function rows(tenantId: string, i: number): [RequestLogRow, CostLogRow[]] {
  const id = newId('req');
  const now = new Date();
  const [provider, model] = MODELS[i % MODELS.length]!;
  const routedBy = ROUTED_BY[i % ROUTED_BY.length]!;
  const bypass = routedBy === 'user-override' || routedBy === 'ab-test';
  const cached = i % 5 === 0;
  const request: RequestLogRow = {
    id,
    tenantId,
    createdAt: now,
    tokenId: null,
    latencyMs: cached ? 0 : 100 + (i % 900),
    taskType: bypass ? null : TASKS[i % TASKS.length]!,
    complexity: bypass ? null : COMPLEXITIES[i % COMPLEXITIES.length]!,
    routedBy,
    provider,
    model,
    usedFallback: i % 20 === 0,
    usedLlmFallback: false,
    cached,
    cacheType: cached ? 'exact' : null,
    tokensSavedInput: cached ? 40 : 0,
    tokensSavedOutput: cached ? 60 : 0,
    inputTokens: cached ? 0 : 40,
    outputTokens: cached ? 0 : 60,
    streamed: false,
    status: 'ok',
    errorType: null,
    abTestId: null,
    variant: null,
    promptVersionId: null,
    endpoint: 'chat',
  };
  const costs: CostLogRow[] = cached
    ? []
    : [
        {
          tenantId,
          requestId: id,
          tokenId: null,
          provider,
          model,
          inputTokens: 40,
          outputTokens: 60,
          cachedInputTokens: 0,
          cacheWrite5mTokens: 0,
          cacheWrite1hTokens: 0,
          serviceTier: null,
          cost: 0.0000426,
          status: 'ok',
          createdAt: now,
        },
      ];
  return [request, costs];
}

/** Per-batch commit times (ms) of `batches` log-writer batches of `rowsPerBatch` requests. */
export async function timeBatches(
  pool: pg.Pool,
  tenantId: string,
  batches: number,
  rowsPerBatch: number,
): Promise<number[]> {
  const times: number[] = [];
  for (let b = -1; b < batches; b++) {
    // One writer per batch: drain() closes the writer it runs on. The first batch is a warm-up.
    const writer = new LogWriter({
      pool,
      logger: createLogger('silent'),
      flushIntervalMs: 60_000,
      batchSize: Number.MAX_SAFE_INTEGER,
      maxBuffered: rowsPerBatch * 4,
    });
    for (let i = 0; i < rowsPerBatch; i++) writer.write(...rows(tenantId, (b + 1) * rowsPerBatch + i));
    const started = performance.now();
    await writer.drain();
    if (b >= 0) times.push(performance.now() - started);
  }
  return times;
}

export function summarizeWrites(times: number[], rowsPerBatch: number): WriteFigures {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  const total = sorted.reduce((a, b) => a + b, 0);
  return {
    batches: sorted.length,
    rowsPerBatch,
    p50Ms: at(0.5),
    p90Ms: at(0.9),
    maxMs: sorted[sorted.length - 1] ?? NaN,
    rowsPerSecond: (sorted.length * rowsPerBatch) / (total / 1000),
  };
}

async function deleteTenant(pool: pg.Pool, tenantId: string): Promise<void> {
  await pool.query('delete from cost_logs where tenant_id = $1', [tenantId]);
  await pool.query('delete from requests where tenant_id = $1', [tenantId]);
}

/** Switches the write path to the pre-analytics schema (and back). */
async function setAnalyticsWritePath(pool: pg.Pool, on: boolean): Promise<void> {
  if (on) {
    await pool.query(
      'create index if not exists requests_tenant_latency_idx on requests using btree (tenant_id, latency_ms, id)',
    );
    await pool.query('alter table requests enable trigger user');
    await pool.query('alter table cost_logs enable trigger user');
  } else {
    await pool.query('alter table requests disable trigger user');
    await pool.query('alter table cost_logs disable trigger user');
    await pool.query('drop index if exists requests_tenant_latency_idx');
  }
}

/** Alternates rounds with and without the analytics write path; restores it in any case. */
export async function compareWritePath(
  pool: pg.Pool,
  opts: { rounds?: number; batches?: number; rowsPerBatch?: number; log?: (line: string) => void } = {},
) {
  const rounds = opts.rounds ?? 2;
  const batches = opts.batches ?? 30;
  const rowsPerBatch = opts.rowsPerBatch ?? 1000;
  const withAnalytics: number[] = [];
  const without: number[] = [];
  try {
    for (let r = 0; r < rounds; r++) {
      for (const on of [false, true]) {
        // Rows are deleted in the same mode they were written in, so the rollups stay exact.
        await setAnalyticsWritePath(pool, on);
        const tenantId = newId('ten');
        const times = await timeBatches(pool, tenantId, batches, rowsPerBatch);
        (on ? withAnalytics : without).push(...times);
        await deleteTenant(pool, tenantId);
        opts.log?.(
          `  round ${r + 1} ${on ? 'with analytics   ' : 'before analytics '} p50 ${summarizeWrites(times, rowsPerBatch).p50Ms.toFixed(1)} ms`,
        );
      }
    }
  } finally {
    await setAnalyticsWritePath(pool, true);
  }
  return { before: summarizeWrites(without, rowsPerBatch), after: summarizeWrites(withAnalytics, rowsPerBatch) };
}

export function formatWrite(label: string, f: WriteFigures): string {
  return `${label}: ${f.batches} batches x ${f.rowsPerBatch} requests: p50 ${f.p50Ms.toFixed(1)} ms, p90 ${f.p90Ms.toFixed(1)} ms, max ${f.maxMs.toFixed(1)} ms, ${Math.round(f.rowsPerSecond).toLocaleString('en-US')} request rows/s`;
}

async function main(): Promise<void> {
  const { connectDatabase } = await import('../../server/db/client.js');
  const { runMigrations } = await import('../../server/db/migrate.js');
  const { cleanup, installCleanupHandlers, startDatabase } = await import('./lib/processes.js');
  const log = (line: string) => process.stdout.write(`${line}\n`);
  installCleanupHandlers(20 * 60_000);
  const batches = Number(process.env.BENCH_BATCHES ?? 30);
  const rowsPerBatch = Number(process.env.BENCH_BATCH_ROWS ?? 1000);
  const external = process.env.DATABASE_URL;
  const url = external ?? (await startDatabase()).url;
  const handle = connectDatabase(url, 4);
  try {
    await runMigrations(handle);
    const { rows: n } = await handle.pool.query<{ n: string }>('select count(*) n from requests');
    log(`database holds ${Number(n[0]?.n ?? 0).toLocaleString('en-US')} request rows`);
    if (external && process.env.BENCH_WRITE_DDL !== '1') {
      const tenantId = newId('ten');
      const times = await timeBatches(handle.pool, tenantId, batches, rowsPerBatch);
      await deleteTenant(handle.pool, tenantId);
      log(formatWrite('with analytics', summarizeWrites(times, rowsPerBatch)));
      log('(set BENCH_WRITE_DDL=1 to compare with the pre-analytics write path: it runs DDL on this database)');
      return;
    }
    const { before, after } = await compareWritePath(handle.pool, { batches, rowsPerBatch, log });
    log(formatWrite('before analytics', before));
    log(formatWrite('with analytics  ', after));
    log(`added per batch (p50): ${(after.p50Ms - before.p50Ms).toFixed(1)} ms`);
  } finally {
    await handle.close();
    await cleanup();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
