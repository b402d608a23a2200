import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { registerAnalyticsCommand } from '../../../cli/commands/analytics.js';
import { LogWriter, type CostLogRow, type RequestLogRow } from '../../../server/gateway/log-writer.js';
import { newId } from '../../../server/lib/ids.js';
import { createLogger } from '../../../server/lib/logger.js';
import { analyticsRouter } from '../../../server/modules/analytics/router.js';
import { AnalyticsService } from '../../../server/modules/analytics/service.js';
import { costUsd } from '../../../server/providers/pricing.js';
import { appRouter } from '../../../server/trpc/router.js';
import { lockInputCoercion } from '../../../server/trpc/strict-inputs.js';
import { startTestEnv, type TestEnv, type TestTenant } from '../../support/harness.js';
import { expectTypedError, securityMatrix, type SecurityContext } from '../../support/security.js';

// Every analytics endpoint against rows seeded straight into requests, cost_logs, feedback and
// ab_tests, with a pinned clock so rows sit exactly on range starts and bucket boundaries. The
// expected figures are worked out by hand from the table below.

/** Until the analytics router is part of appRouter, graft its procedures on before the app is built. */
function ensureAnalyticsRoutes(): void {
  const procedures = appRouter._def.procedures as Record<string, unknown>;
  if ('analytics.overview' in procedures) return;
  lockInputCoercion(analyticsRouter);
  for (const [path, procedure] of Object.entries(analyticsRouter._def.procedures))
    procedures[`analytics.${path}`] = procedure;
}
ensureAnalyticsRoutes();

const NOW = Date.parse('2026-03-10T12:30:00.000Z');
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const at = (ms: number) => new Date(ms);

let env: TestEnv;
let a: TestTenant;
let b: TestTenant;
let empty: TestTenant;

interface Req {
  id: string;
  createdAt: Date;
  latencyMs: number;
  taskType: string | null;
  complexity: string | null;
  routedBy: string;
  provider: string | null;
  model: string | null;
  usedFallback?: boolean;
  cached?: 'exact' | 'semantic';
  saved?: [number, number];
  tokens?: [number, number];
  status?: 'ok' | 'error' | 'client_closed';
  streamed?: boolean;
}

// Tenant A. NOW is 2026-03-10 12:30 UTC: 24h starts 03-09 12:30, 7d starts 03-03 12:30.
const A_REQUESTS: Req[] = [
  {
    id: 'req_t01',
    createdAt: at(NOW - 10 * MIN),
    latencyMs: 1000,
    taskType: 'coding',
    complexity: 'simple',
    routedBy: 'classification',
    provider: 'openai',
    model: 'gpt-4o-mini',
    tokens: [100, 50],
  },
  // Exactly on the 12:00 bucket boundary; fell back from gpt-4o.
  {
    id: 'req_t02',
    createdAt: at(Date.parse('2026-03-10T12:00:00.000Z')),
    latencyMs: 3000,
    taskType: 'qa',
    complexity: 'medium',
    routedBy: 'routing-hint',
    provider: 'anthropic',
    model: 'claude-3-5-haiku-20241022',
    usedFallback: true,
    tokens: [200, 100],
    streamed: true,
  },
  // One millisecond before the boundary: the 11:00 bucket.
  {
    id: 'req_t03',
    createdAt: at(Date.parse('2026-03-10T11:59:59.999Z')),
    latencyMs: 0,
    taskType: 'qa',
    complexity: 'medium',
    routedBy: 'classification',
    provider: 'openai',
    model: 'gpt-4o-mini',
    cached: 'exact',
    saved: [80, 40],
  },
  // Exactly the 24h range start (included); classifier bypassed.
  {
    id: 'req_t04',
    createdAt: at(NOW - DAY),
    latencyMs: 500,
    taskType: null,
    complexity: null,
    routedBy: 'user-override',
    provider: 'openai',
    model: 'gpt-4o',
    tokens: [10, 5],
  },
  // One millisecond before the 24h start (excluded from 24h, inside 7d).
  {
    id: 'req_t05',
    createdAt: at(NOW - DAY - 1),
    latencyMs: 700,
    taskType: null,
    complexity: null,
    routedBy: 'ab-test',
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    status: 'error',
  },
  {
    id: 'req_t06',
    createdAt: at(NOW - 3 * DAY),
    latencyMs: 0,
    taskType: 'coding',
    complexity: 'complex',
    routedBy: 'adaptive',
    provider: 'gemini',
    model: 'gemini-2.0-flash',
    cached: 'semantic',
    saved: [30, 20],
  },
  // Exactly the 7d range start (included) and one millisecond before it (excluded).
  {
    id: 'req_t07',
    createdAt: at(NOW - 7 * DAY),
    latencyMs: 2000,
    taskType: 'general',
    complexity: 'simple',
    routedBy: 'exploration',
    provider: 'gemini',
    model: 'gemini-2.0-flash',
    tokens: [300, 200],
  },
  {
    id: 'req_t08',
    createdAt: at(NOW - 7 * DAY - 1),
    latencyMs: 400,
    taskType: 'coding',
    complexity: 'simple',
    routedBy: 'classification',
    provider: 'openai',
    model: 'gpt-4o-mini',
    tokens: [40, 20],
  },
  // Older than every range: all-time figures only.
  {
    id: 'req_t09',
    createdAt: at(NOW - 40 * DAY),
    latencyMs: 600,
    taskType: 'coding',
    complexity: 'simple',
    routedBy: 'classification',
    provider: 'openai',
    model: 'gpt-4o-mini',
    tokens: [60, 30],
  },
  // No provider could be reached.
  {
    id: 'req_t10',
    createdAt: at(NOW - 2 * HOUR),
    latencyMs: 5,
    taskType: 'coding',
    complexity: 'simple',
    routedBy: 'classification',
    provider: null,
    model: null,
    status: 'error',
  },
];

type Cost = [
  requestId: string,
  provider: string,
  model: string,
  input: number,
  output: number,
  cost: number,
  status: 'ok' | 'error',
  createdAt: Date,
];
const A_COSTS: Cost[] = [
  ['req_t01', 'openai', 'gpt-4o-mini', 100, 50, 0.000045, 'ok', at(NOW - 10 * MIN + 1000)],
  ['req_t02', 'openai', 'gpt-4o', 200, 0, 0.0005, 'error', at(Date.parse('2026-03-10T12:00:00.500Z'))],
  [
    'req_t02',
    'anthropic',
    'claude-3-5-haiku-20241022',
    200,
    100,
    0.00056,
    'ok',
    at(Date.parse('2026-03-10T12:00:03.000Z')),
  ],
  ['req_t04', 'openai', 'gpt-4o', 10, 5, 0.000075, 'ok', at(NOW - DAY + 500)],
  ['req_t05', 'anthropic', 'claude-sonnet-4-5', 50, 0, 0.00015, 'error', at(NOW - DAY - 1)],
  ['req_t07', 'gemini', 'gemini-2.0-flash', 300, 200, 0.0001, 'ok', at(NOW - 7 * DAY)],
  ['req_t08', 'openai', 'gpt-4o-mini', 40, 20, 0.000018, 'ok', at(NOW - 7 * DAY - 1)],
  ['req_t09', 'openai', 'gpt-4o-mini', 60, 30, 0.000027, 'ok', at(NOW - 40 * DAY)],
];

// [id, requestId, score, source]
const A_FEEDBACK: Array<[string, string, number, string]> = [
  ['fb_t1', 'req_t01', 5, 'user'],
  ['fb_t2', 'req_t01', 3, 'judge'],
  ['fb_t3', 'req_t07', 2, 'user'],
  ['fb_t4', 'req_t08', 4, 'user'],
  // Re-rated from 1 to 4 below (an upsert, as the feedback module does).
  ['fb_t5', 'req_t02', 1, 'user'],
];

// Tenant B: big numbers on the same models, to catch any leak into A.
const B_REQUESTS: Req[] = [0, 1, 2].map((i) => ({
  id: `req_b0${i}`,
  createdAt: at(NOW - (i + 1) * 5 * MIN),
  latencyMs: i === 0 ? 0 : 10_000,
  taskType: 'coding',
  complexity: 'simple',
  routedBy: 'classification',
  provider: 'openai',
  model: 'gpt-4o-mini',
  cached: i === 0 ? 'exact' : undefined,
  saved: i === 0 ? [1000, 1000] : undefined,
  tokens: i === 0 ? undefined : [5000, 5000],
}));

async function seedRequests(tenantId: string, rows: Req[]): Promise<void> {
  const values: unknown[] = [];
  const tuples = rows.map((r, i) => {
    const v = [
      r.id,
      tenantId,
      r.createdAt,
      r.latencyMs,
      r.taskType,
      r.complexity,
      r.routedBy,
      r.provider,
      r.model,
      r.usedFallback ?? false,
      Boolean(r.cached),
      r.cached ?? null,
      r.saved?.[0] ?? 0,
      r.saved?.[1] ?? 0,
      r.tokens?.[0] ?? 0,
      r.tokens?.[1] ?? 0,
      r.streamed ?? false,
      r.status ?? 'ok',
      r.status === 'error' ? 'provider_error' : null,
    ];
    values.push(...v);
    return `(${v.map((_, j) => `$${i * v.length + j + 1}`).join(', ')})`;
  });
  await env.database.pool.query(
    `insert into requests (id, tenant_id, created_at, latency_ms, task_type, complexity, routed_by, provider, model, used_fallback, cached, cache_type,
       tokens_saved_input, tokens_saved_output, input_tokens, output_tokens, streamed, status, error_type) values ${tuples.join(', ')}`,
    values,
  );
}

async function seedCosts(tenantId: string, rows: Cost[]): Promise<void> {
  for (const [requestId, provider, model, input, output, cost, status, createdAt] of rows) {
    await env.database.pool.query(
      `insert into cost_logs (tenant_id, request_id, provider, model, input_tokens, output_tokens, cost, status, created_at) values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [tenantId, requestId, provider, model, input, output, cost, status, createdAt],
    );
  }
}

async function seedFeedback(tenantId: string, rows: Array<[string, string, number, string]>): Promise<void> {
  const values = rows.flatMap(([id, requestId, score, source]) => [id, tenantId, requestId, score, source]);
  const tuples = rows.map((_, i) => `($${i * 5 + 1}, $${i * 5 + 2}, $${i * 5 + 3}, $${i * 5 + 4}, $${i * 5 + 5})`);
  await env.database.pool.query(
    `insert into feedback (id, tenant_id, request_id, score, source) values ${tuples.join(', ')}`,
    values,
  );
}

async function seedAbTest(tenantId: string, status: string): Promise<void> {
  await env.database.pool.query(
    `insert into ab_tests (id, tenant_id, name, status, variants) values ($1, $2, $3, $4, '[]'::jsonb)`,
    [newId('abt'), tenantId, `test-${status}`, status],
  );
}

beforeAll(async () => {
  env = await startTestEnv();
  // A pinned clock; two active providers; exploration on.
  (env.services as unknown as { analytics: AnalyticsService }).analytics = new AnalyticsService(
    env.database.pool,
    { activeProviders: () => 2, explorationRate: () => 0.1 },
    { now: () => NOW },
  );
  a = await env.createTenant();
  b = await env.createTenant();
  empty = await env.createTenant();

  // Two statements for A's requests, so the rollups also add to rows that already exist.
  await seedRequests(a.tenantId, A_REQUESTS.slice(0, 4));
  await seedRequests(a.tenantId, A_REQUESTS.slice(4));
  await seedCosts(a.tenantId, A_COSTS);
  await seedFeedback(a.tenantId, A_FEEDBACK);
  await env.database.pool.query(
    `insert into feedback (id, tenant_id, request_id, score, source) values ('fb_again', $1, 'req_t02', 4, 'user')
     on conflict (tenant_id, request_id, source) do update set score = excluded.score, updated_at = now()`,
    [a.tenantId],
  );
  await seedAbTest(a.tenantId, 'active');
  await seedAbTest(a.tenantId, 'paused');

  await seedRequests(b.tenantId, B_REQUESTS);
  await seedCosts(b.tenantId, [
    ['req_b01', 'openai', 'gpt-4o-mini', 5000, 5000, 1.5, 'ok', at(NOW - 10 * MIN)],
    ['req_b02', 'openai', 'gpt-4o-mini', 5000, 5000, 1.5, 'ok', at(NOW - 15 * MIN)],
  ]);
  await seedFeedback(b.tenantId, [['fb_b1', 'req_b01', 1, 'user']]);
  await seedAbTest(b.tenantId, 'completed');
});
afterAll(() => env?.close());

const get = async (token: string, path: string) => {
  const res = await env.http('GET', path, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};

describe('analytics totals', () => {
  it('overview: totals over request rows and cost rows', async () => {
    expect(await get(a.token, '/v1/analytics/overview')).toEqual({
      totalRequests: 10,
      totalCostUsd: 0.001475,
      // 1000 + 3000 + 0 + 500 + 700 + 0 + 2000 + 400 + 600 + 5 = 8205 over 10 rows.
      avgLatencyMs: 820.5,
      activeProviders: 2,
      tokensSaved: 170,
      tokensSavedInput: 110,
      tokensSavedOutput: 60,
      cacheHits: 2,
      upstreamCalls: 8,
      errors: 2,
    });
  });

  it('cache savings: hit rates over all requests, savings by model over cached rows', async () => {
    const body = await get(a.token, '/v1/analytics/cache/savings');
    const geminiUsd = costUsd('gemini-2.0-flash', 30, 20, 'gemini')!;
    const miniUsd = costUsd('gpt-4o-mini', 80, 40, 'openai')!;
    expect(geminiUsd).toBeGreaterThan(0);
    expect(body).toMatchObject({
      totalRequests: 10,
      hits: 2,
      exactHits: 1,
      semanticHits: 1,
      hitRate: 0.2,
      exactHitRate: 0.1,
      semanticHitRate: 0.1,
      tokensSavedInput: 110,
      tokensSavedOutput: 60,
      tokensSaved: 170,
    });
    expect(body.estimatedSavingsUsd).toBeCloseTo(geminiUsd + miniUsd, 12);
    expect(body.byModel).toEqual([
      {
        provider: 'gemini',
        model: 'gemini-2.0-flash',
        hits: 1,
        exactHits: 0,
        semanticHits: 1,
        tokensSavedInput: 30,
        tokensSavedOutput: 20,
        tokensSaved: 50,
        estimatedSavingsUsd: expect.closeTo(geminiUsd, 12),
      },
      {
        provider: 'openai',
        model: 'gpt-4o-mini',
        hits: 1,
        exactHits: 1,
        semanticHits: 0,
        tokensSavedInput: 80,
        tokensSavedOutput: 40,
        tokensSaved: 120,
        estimatedSavingsUsd: expect.closeTo(miniUsd, 12),
      },
    ]);
  });

  it('costs by provider: all-time sums and cost-row counts', async () => {
    expect(await get(a.token, '/v1/analytics/costs/by-provider')).toEqual({
      totalCostUsd: 0.001475,
      items: [
        {
          provider: 'anthropic',
          totalCostUsd: 0.00071,
          inputTokens: 250,
          outputTokens: 100,
          upstreamCalls: 2,
          failedCalls: 1,
        },
        {
          provider: 'openai',
          totalCostUsd: 0.000665,
          inputTokens: 410,
          outputTokens: 105,
          upstreamCalls: 5,
          failedCalls: 1,
        },
        {
          provider: 'gemini',
          totalCostUsd: 0.0001,
          inputTokens: 300,
          outputTokens: 200,
          upstreamCalls: 1,
          failedCalls: 0,
        },
      ],
    });
  });

  it('costs by model: averages divide by cost rows, not requests', async () => {
    expect(await get(a.token, '/v1/analytics/costs/by-model')).toEqual({
      totalCostUsd: 0.001475,
      items: [
        {
          provider: 'openai',
          model: 'gpt-4o',
          totalCostUsd: 0.000575,
          inputTokens: 210,
          outputTokens: 5,
          upstreamCalls: 2,
          failedCalls: 1,
          avgCostUsd: 0.0002875,
        },
        {
          provider: 'anthropic',
          model: 'claude-3-5-haiku-20241022',
          totalCostUsd: 0.00056,
          inputTokens: 200,
          outputTokens: 100,
          upstreamCalls: 1,
          failedCalls: 0,
          avgCostUsd: 0.00056,
        },
        {
          provider: 'anthropic',
          model: 'claude-sonnet-4-5',
          totalCostUsd: 0.00015,
          inputTokens: 50,
          outputTokens: 0,
          upstreamCalls: 1,
          failedCalls: 1,
          avgCostUsd: 0.00015,
        },
        {
          provider: 'gemini',
          model: 'gemini-2.0-flash',
          totalCostUsd: 0.0001,
          inputTokens: 300,
          outputTokens: 200,
          upstreamCalls: 1,
          failedCalls: 0,
          avgCostUsd: 0.0001,
        },
        // Four gpt-4o-mini requests (one a cache hit) but three cost rows: 0.00009 / 3.
        {
          provider: 'openai',
          model: 'gpt-4o-mini',
          totalCostUsd: 0.00009,
          inputTokens: 200,
          outputTokens: 100,
          upstreamCalls: 3,
          failedCalls: 0,
          avgCostUsd: 0.00003,
        },
      ],
    });
  });
});

describe('analytics timeseries', () => {
  const zero = { requests: 0, avgLatencyMs: 0, p50LatencyMs: 0, p95LatencyMs: 0, p99LatencyMs: 0, totalCostUsd: 0 };

  it('24h: 25 hourly buckets from the hour holding the start, the start itself inclusive', async () => {
    const body = await get(a.token, '/v1/analytics/timeseries');
    expect(body).toMatchObject({
      range: '24h',
      bucket: 'hour',
      start: '2026-03-09T12:30:00.000Z',
      end: '2026-03-10T12:30:00.000Z',
    });
    expect(body.buckets).toHaveLength(25);
    expect(body.buckets[0].bucketStart).toBe('2026-03-09T12:00:00.000Z');
    expect(body.buckets[24].bucketStart).toBe('2026-03-10T12:00:00.000Z');
    const byStart = new Map<string, unknown>(body.buckets.map((x: { bucketStart: string }) => [x.bucketStart, x]));
    // req_t04 exactly at the start (req_t05 one ms before it is out); its cost row 0.5 s later.
    expect(byStart.get('2026-03-09T12:00:00.000Z')).toEqual({
      bucketStart: '2026-03-09T12:00:00.000Z',
      requests: 1,
      avgLatencyMs: 500,
      p50LatencyMs: 500,
      p95LatencyMs: 500,
      p99LatencyMs: 500,
      totalCostUsd: 0.000075,
    });
    expect(byStart.get('2026-03-10T10:00:00.000Z')).toEqual({
      bucketStart: '2026-03-10T10:00:00.000Z',
      requests: 1,
      avgLatencyMs: 5,
      p50LatencyMs: 5,
      p95LatencyMs: 5,
      p99LatencyMs: 5,
      totalCostUsd: 0,
    });
    // 11:59:59.999 stays in 11:00; 12:00:00.000 opens 12:00.
    expect(byStart.get('2026-03-10T11:00:00.000Z')).toEqual({
      bucketStart: '2026-03-10T11:00:00.000Z',
      ...zero,
      requests: 1,
    });
    // 1000 and 3000 ms: mean 2000, p95 = 2000 + 0.8 x (3000 - 2000); three cost rows.
    expect(byStart.get('2026-03-10T12:00:00.000Z')).toEqual({
      bucketStart: '2026-03-10T12:00:00.000Z',
      requests: 2,
      avgLatencyMs: 2000,
      p50LatencyMs: 2000,
      p95LatencyMs: 2800,
      p99LatencyMs: 3000,
      totalCostUsd: 0.001105,
    });
    expect(byStart.get('2026-03-10T09:00:00.000Z')).toEqual({ bucketStart: '2026-03-10T09:00:00.000Z', ...zero });
    expect(body.buckets.reduce((s: number, x: { requests: number }) => s + x.requests, 0)).toBe(5);
  });

  it('7d: a day whose slowest request was deleted (log retention) reports the slowest one left', async () => {
    const t = await env.createTenant();
    const row = (id: string, iso: string, latencyMs: number): Req => ({
      id,
      createdAt: new Date(iso),
      latencyMs,
      taskType: 'qa',
      complexity: 'simple',
      routedBy: 'classification',
      provider: 'openai',
      model: 'gpt-4o-mini',
    });
    await seedRequests(t.tenantId, [
      row('req_slow', '2026-03-08T12:20:00Z', 90_000),
      row('req_fast', '2026-03-08T12:40:00Z', 100),
    ]);
    const day = async () =>
      (await get(t.token, '/v1/analytics/timeseries?range=7d')).buckets.find(
        (x: { bucketStart: string }) => x.bucketStart === '2026-03-08T00:00:00.000Z',
      );
    expect(await day()).toMatchObject({ requests: 2, p99LatencyMs: 90_000 });
    // A retention cutoff falls mid-hour: the slow row goes, the fast one in the same hour stays.
    await env.database.pool.query(`delete from requests where tenant_id = $1 and created_at < '2026-03-08T12:30:00Z'`, [
      t.tenantId,
    ]);
    expect(await day()).toMatchObject({ requests: 1, avgLatencyMs: 100, p95LatencyMs: 100, p99LatencyMs: 100 });
  });

  it('7d and 30d: daily UTC buckets', async () => {
    const week = await get(a.token, '/v1/analytics/timeseries?range=7d');
    expect(week).toMatchObject({ range: '7d', bucket: 'day', start: '2026-03-03T12:30:00.000Z' });
    expect(week.buckets.map((x: { bucketStart: string }) => x.bucketStart.slice(0, 10))).toEqual([
      '2026-03-03',
      '2026-03-04',
      '2026-03-05',
      '2026-03-06',
      '2026-03-07',
      '2026-03-08',
      '2026-03-09',
      '2026-03-10',
    ]);
    const day = (d: string) =>
      week.buckets.find((x: { bucketStart: string }) => x.bucketStart === `${d}T00:00:00.000Z`);
    // 1000 + 3000 + 0 + 5 = 4005 over 4; p95 = 1001.25 + 0.8 x (3000 - 1001.25).
    expect(day('2026-03-10')).toEqual({
      bucketStart: '2026-03-10T00:00:00.000Z',
      requests: 4,
      avgLatencyMs: 1001.25,
      p50LatencyMs: 1001.25,
      p95LatencyMs: 2600.25,
      p99LatencyMs: 3000,
      totalCostUsd: 0.001105,
    });
    // req_t04 (500) and req_t05 (700); cost 0.000075 + 0.00015.
    expect(day('2026-03-09')).toEqual({
      bucketStart: '2026-03-09T00:00:00.000Z',
      requests: 2,
      avgLatencyMs: 600,
      p50LatencyMs: 600,
      p95LatencyMs: 680,
      p99LatencyMs: 700,
      totalCostUsd: 0.000225,
    });
    expect(day('2026-03-07')).toEqual({ bucketStart: '2026-03-07T00:00:00.000Z', ...zero, requests: 1 });
    // req_t07 exactly at the start counts, req_t08 one ms earlier does not.
    expect(day('2026-03-03')).toEqual({
      bucketStart: '2026-03-03T00:00:00.000Z',
      requests: 1,
      avgLatencyMs: 2000,
      p50LatencyMs: 2000,
      p95LatencyMs: 2000,
      p99LatencyMs: 2000,
      totalCostUsd: 0.0001,
    });
    expect(day('2026-03-05')).toEqual({ bucketStart: '2026-03-05T00:00:00.000Z', ...zero });

    const month = await get(a.token, '/v1/analytics/timeseries?range=30d');
    expect(month.buckets).toHaveLength(31);
    expect(month.buckets[0].bucketStart).toBe('2026-02-08T00:00:00.000Z');
    const march3 = month.buckets.find((x: { bucketStart: string }) => x.bucketStart === '2026-03-03T00:00:00.000Z');
    expect(march3).toEqual({
      bucketStart: '2026-03-03T00:00:00.000Z',
      requests: 2,
      avgLatencyMs: 1200,
      p50LatencyMs: 1200,
      p95LatencyMs: 1840,
      p99LatencyMs: 2000,
      totalCostUsd: 0.000118,
    });
    // req_t09 (40 days old) is in no range.
    expect(month.buckets.reduce((s: number, x: { requests: number }) => s + x.requests, 0)).toBe(9);
  });

  it('short ranges', async () => {
    const hour = await get(a.token, '/v1/analytics/timeseries?range=1h');
    expect(hour.buckets.map((x: { bucketStart: string }) => x.bucketStart)).toEqual([
      '2026-03-10T11:00:00.000Z',
      '2026-03-10T12:00:00.000Z',
    ]);
    // 11:30 to 12:30: req_t03 at 11:59:59.999, req_t02 and req_t01 in 12:00.
    expect(hour.buckets.map((x: { requests: number }) => x.requests)).toEqual([1, 2]);
    const six = await get(a.token, '/v1/analytics/timeseries?range=6h');
    expect(six.buckets).toHaveLength(7);
    expect(six.buckets.reduce((s: number, x: { requests: number }) => s + x.requests, 0)).toBe(4);
  });

  it('cost by provider per bucket, every provider in every bucket', async () => {
    const body = await get(a.token, '/v1/analytics/timeseries/cost-by-provider');
    expect(body).toMatchObject({
      range: '24h',
      bucket: 'hour',
      providers: ['anthropic', 'openai'],
      totalCostUsd: 0.00118,
    });
    expect(body.buckets).toHaveLength(25);
    expect(body.buckets[24]).toEqual({
      bucketStart: '2026-03-10T12:00:00.000Z',
      totalCostUsd: 0.001105,
      byProvider: { anthropic: 0.00056, openai: 0.000545 },
    });
    expect(body.buckets[0]).toEqual({
      bucketStart: '2026-03-09T12:00:00.000Z',
      totalCostUsd: 0.000075,
      byProvider: { anthropic: 0, openai: 0.000075 },
    });
    expect(body.buckets[5]).toEqual({
      bucketStart: '2026-03-09T17:00:00.000Z',
      totalCostUsd: 0,
      byProvider: { anthropic: 0, openai: 0 },
    });

    const week = await get(a.token, '/v1/analytics/timeseries/cost-by-provider?range=7d');
    expect(week.providers).toEqual(['anthropic', 'gemini', 'openai']);
    expect(week.totalCostUsd).toBeCloseTo(0.001105 + 0.000225 + 0.0001, 12);
    expect(
      week.buckets.find((x: { bucketStart: string }) => x.bucketStart === '2026-03-09T00:00:00.000Z').byProvider,
    ).toEqual({ anthropic: 0.00015, gemini: 0, openai: 0.000075 });
    expect(week.buckets[0].byProvider).toEqual({ anthropic: 0, gemini: 0.0001, openai: 0 });
  });
});

describe('analytics routing', () => {
  it('routing stats', async () => {
    expect(await get(a.token, '/v1/analytics/routing/stats')).toEqual({
      totalRequests: 10,
      byRoutedBy: [
        // 1000 + 0 + 400 + 600 + 5 over 5.
        { routedBy: 'classification', requests: 5, share: 0.5, avgLatencyMs: 401, fallbackCount: 0, cacheHits: 1 },
        { routedBy: 'ab-test', requests: 1, share: 0.1, avgLatencyMs: 700, fallbackCount: 0, cacheHits: 0 },
        { routedBy: 'adaptive', requests: 1, share: 0.1, avgLatencyMs: 0, fallbackCount: 0, cacheHits: 1 },
        { routedBy: 'exploration', requests: 1, share: 0.1, avgLatencyMs: 2000, fallbackCount: 0, cacheHits: 0 },
        { routedBy: 'routing-hint', requests: 1, share: 0.1, avgLatencyMs: 3000, fallbackCount: 1, cacheHits: 0 },
        { routedBy: 'user-override', requests: 1, share: 0.1, avgLatencyMs: 500, fallbackCount: 0, cacheHits: 0 },
      ],
      classifiedRequests: 8,
      unclassifiedRequests: 2,
      classifierShare: 0.6,
      fallbackCount: 1,
      fallbackRate: 0.1,
      llmFallbackCount: 0,
      cacheHits: 2,
      cacheHitRate: 0.2,
      errors: 2,
      errorRate: 0.2,
      explorationRate: 0.1,
    });
  });

  it('routing distribution by each dimension and by full cell', async () => {
    const body = await get(a.token, '/v1/analytics/routing/distribution');
    expect(body.totalRequests).toBe(10);
    expect(body.byTaskType).toEqual([
      { value: 'coding', requests: 5, share: 0.5 },
      { value: null, requests: 2, share: 0.2 },
      { value: 'qa', requests: 2, share: 0.2 },
      { value: 'general', requests: 1, share: 0.1 },
    ]);
    expect(body.byComplexity).toEqual([
      { value: 'simple', requests: 5, share: 0.5 },
      { value: null, requests: 2, share: 0.2 },
      { value: 'medium', requests: 2, share: 0.2 },
      { value: 'complex', requests: 1, share: 0.1 },
    ]);
    expect(body.byRoutedBy[0]).toEqual({ value: 'classification', requests: 5, share: 0.5 });
    expect(body.byProvider).toEqual([
      { value: 'openai', requests: 5, share: 0.5 },
      { value: 'anthropic', requests: 2, share: 0.2 },
      { value: 'gemini', requests: 2, share: 0.2 },
      { value: null, requests: 1, share: 0.1 },
    ]);
    expect(body.byModel).toEqual([
      { provider: 'openai', model: 'gpt-4o-mini', requests: 4, share: 0.4 },
      { provider: 'gemini', model: 'gemini-2.0-flash', requests: 2, share: 0.2 },
      { provider: null, model: null, requests: 1, share: 0.1 },
      { provider: 'anthropic', model: 'claude-3-5-haiku-20241022', requests: 1, share: 0.1 },
      { provider: 'anthropic', model: 'claude-sonnet-4-5', requests: 1, share: 0.1 },
      { provider: 'openai', model: 'gpt-4o', requests: 1, share: 0.1 },
    ]);
    expect(body.cells).toHaveLength(8);
    // req_t01, req_t08, req_t09: 1000 + 400 + 600 over 3.
    expect(body.cells[0]).toEqual({
      taskType: 'coding',
      complexity: 'simple',
      routedBy: 'classification',
      provider: 'openai',
      model: 'gpt-4o-mini',
      requests: 3,
      share: 0.3,
      avgLatencyMs: 666.667,
    });
    expect(body.cells).toContainEqual({
      taskType: null,
      complexity: null,
      routedBy: 'user-override',
      provider: 'openai',
      model: 'gpt-4o',
      requests: 1,
      share: 0.1,
      avgLatencyMs: 500,
    });
    expect(body.cells).toContainEqual({
      taskType: 'coding',
      complexity: 'simple',
      routedBy: 'classification',
      provider: null,
      model: null,
      requests: 1,
      share: 0.1,
      avgLatencyMs: 5,
    });
  });

  it('pipeline stages, active flags and the SPEC-named counters', async () => {
    expect(await get(a.token, '/v1/analytics/pipeline')).toEqual({
      totalRequests: 10,
      stages: {
        // classification 5 + routing-hint 1: (2005 + 3000) / 6.
        classifier: { active: true, count: 6, avgLatencyMs: 834.167 },
        userOverride: { active: true, count: 1, avgLatencyMs: 500 },
        abTest: { active: true, count: 1, avgLatencyMs: 700 },
        adaptive: { active: true, count: 1, avgLatencyMs: 0 },
        exploration: { active: true, count: 1, avgLatencyMs: 2000 },
        fallback: { active: true, count: 1, avgLatencyMs: 3000 },
        // Reached a provider and not cached: t01 t02 t04 t05 t07 t08 t09, 8200 ms in all.
        providers: { active: true, count: 7, avgLatencyMs: 1171.429 },
      },
      explorationRate: 0.1,
      activeAbTests: 1,
      feedbackCount: 5,
      active_ab_tests: 1,
      feedback_count: 5,
    });
  });
});

describe('models compare', () => {
  it('7d (default): requests from the start on, cost by model in range, feedback on those requests', async () => {
    const body = await get(a.token, '/v1/analytics/models/compare');
    expect(body).toMatchObject({ range: '7d', start: '2026-03-03T12:30:00.000Z', end: '2026-03-10T12:30:00.000Z' });
    expect(body.items).toEqual([
      {
        provider: 'gemini',
        model: 'gemini-2.0-flash',
        requests: 2,
        avgLatencyMs: 1000,
        totalCostUsd: 0.0001,
        upstreamCalls: 1,
        avgScore: 2,
        feedbackCount: 1,
      },
      // req_t08 (and its score 4, and its cost) fall one ms before the start.
      {
        provider: 'openai',
        model: 'gpt-4o-mini',
        requests: 2,
        avgLatencyMs: 500,
        totalCostUsd: 0.000045,
        upstreamCalls: 1,
        avgScore: 4,
        feedbackCount: 2,
      },
      // Served nothing itself here but the failed first attempt of req_t02 is its cost.
      {
        provider: 'openai',
        model: 'gpt-4o',
        requests: 1,
        avgLatencyMs: 500,
        totalCostUsd: 0.000575,
        upstreamCalls: 2,
        avgScore: null,
        feedbackCount: 0,
      },
      // Re-rated 1 -> 4: one row, score 4.
      {
        provider: 'anthropic',
        model: 'claude-3-5-haiku-20241022',
        requests: 1,
        avgLatencyMs: 3000,
        totalCostUsd: 0.00056,
        upstreamCalls: 1,
        avgScore: 4,
        feedbackCount: 1,
      },
      {
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        requests: 1,
        avgLatencyMs: 700,
        totalCostUsd: 0.00015,
        upstreamCalls: 1,
        avgScore: null,
        feedbackCount: 0,
      },
      {
        provider: null,
        model: null,
        requests: 1,
        avgLatencyMs: 5,
        totalCostUsd: 0,
        upstreamCalls: 0,
        avgScore: null,
        feedbackCount: 0,
      },
    ]);
  });

  it('24h', async () => {
    const body = await get(a.token, '/v1/analytics/models/compare?range=24h');
    expect(body.items).toEqual([
      {
        provider: 'openai',
        model: 'gpt-4o-mini',
        requests: 2,
        avgLatencyMs: 500,
        totalCostUsd: 0.000045,
        upstreamCalls: 1,
        avgScore: 4,
        feedbackCount: 2,
      },
      {
        provider: 'openai',
        model: 'gpt-4o',
        requests: 1,
        avgLatencyMs: 500,
        totalCostUsd: 0.000575,
        upstreamCalls: 2,
        avgScore: null,
        feedbackCount: 0,
      },
      {
        provider: 'anthropic',
        model: 'claude-3-5-haiku-20241022',
        requests: 1,
        avgLatencyMs: 3000,
        totalCostUsd: 0.00056,
        upstreamCalls: 1,
        avgScore: 4,
        feedbackCount: 1,
      },
      {
        provider: null,
        model: null,
        requests: 1,
        avgLatencyMs: 5,
        totalCostUsd: 0,
        upstreamCalls: 0,
        avgScore: null,
        feedbackCount: 0,
      },
    ]);
  });
});

describe('request log', () => {
  const ORDER_CREATED = [
    'req_t01',
    'req_t02',
    'req_t03',
    'req_t10',
    'req_t04',
    'req_t05',
    'req_t06',
    'req_t07',
    'req_t08',
    'req_t09',
  ];

  async function walk(token: string, query: string, limit: number): Promise<Array<Record<string, any>>> {
    const items: Array<Record<string, any>> = [];
    let cursor: string | null = null;
    for (let page = 0; page < 50; page++) {
      const body: { items: Array<Record<string, any>>; nextCursor: string | null } = await get(
        token,
        `/v1/analytics/requests?${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(body.items.length).toBeLessThanOrEqual(limit);
      items.push(...body.items);
      cursor = body.nextCursor;
      if (!cursor) return items;
    }
    throw new Error('cursor never ended');
  }

  it("newest first by default, with each request's cost", async () => {
    const body = await get(a.token, '/v1/analytics/requests');
    expect(body.nextCursor).toBeNull();
    expect(body.items.map((r: { id: string }) => r.id)).toEqual(ORDER_CREATED);
    expect(body.items[1]).toEqual({
      id: 'req_t02',
      createdAt: '2026-03-10T12:00:00.000Z',
      provider: 'anthropic',
      model: 'claude-3-5-haiku-20241022',
      taskType: 'qa',
      complexity: 'medium',
      routedBy: 'routing-hint',
      usedFallback: true,
      cached: false,
      cacheType: null,
      streamed: true,
      status: 'ok',
      errorType: null,
      latencyMs: 3000,
      inputTokens: 200,
      outputTokens: 100,
      tokensSaved: 0,
      costUsd: 0.00106,
      abTestId: null,
      variant: null,
      endpoint: 'chat',
    });
    expect(body.items[2]).toMatchObject({
      id: 'req_t03',
      cached: true,
      cacheType: 'exact',
      latencyMs: 0,
      tokensSaved: 120,
      costUsd: 0,
    });
  });

  it('keyset pages walk the whole log in every order without gaps or repeats', async () => {
    expect((await walk(a.token, 'orderBy=createdAt', 3)).map((r) => r.id)).toEqual(ORDER_CREATED);
    expect((await walk(a.token, 'orderBy=createdAt&order=asc', 4)).map((r) => r.id)).toEqual(
      [...ORDER_CREATED].reverse(),
    );
    // Ties (two cache hits at 0 ms) are broken by id.
    const slowest = [
      'req_t02',
      'req_t07',
      'req_t01',
      'req_t05',
      'req_t09',
      'req_t04',
      'req_t08',
      'req_t10',
      'req_t06',
      'req_t03',
    ];
    expect((await walk(a.token, 'orderBy=latencyMs', 3)).map((r) => r.id)).toEqual(slowest);
    expect((await walk(a.token, 'orderBy=latencyMs&order=asc', 1)).map((r) => r.id)).toEqual([...slowest].reverse());
  });

  it('rejects bad paging input with 400', async () => {
    for (const q of ['limit=0', 'limit=501', 'limit=abc', 'order=up'])
      expectTypedError(
        await env.http('GET', `/v1/analytics/requests?${q}`, { token: a.token }),
        400,
        'invalid_request_error',
      );
    expectTypedError(
      await env.http('GET', '/v1/analytics/requests?cursor=not-a-cursor', { token: a.token }),
      400,
      'invalid_request_error',
    );
    // Crafted cursors (encoded as the service encodes them) whose key or id JavaScript accepts but
    // PostgreSQL would not: a 400, never a 500.
    const crafted: unknown[][] = [
      ['createdAt', 'desc', '1', 'req_t01'],
      ['createdAt', 'desc', '0', 'req_t01'],
      ['createdAt', 'desc', '2024-01-01T00:00:00Z', 'a\u0000b'],
      ['createdAt', 'desc', '2024-01-01T00:00:00.000000Z', 'req_t\u000001'],
      ['createdAt', 'desc', '2024-02-30T00:00:00.000000Z', 'req_t01'],
      ['createdAt', 'desc', '0000-01-01T00:00:00.000000Z', 'req_t01'],
      ['createdAt', 'desc', '+275760-09-13T00:00:00.000Z', 'req_t01'],
      ['createdAt', 'desc', '2024-01-01T00:00:00.000000Z', 'x'],
      ['latencyMs', 'desc', 10_000_000_000, 'req_t01'],
      ['latencyMs', 'desc', 1e300, 'req_t01'],
      ['latencyMs', 'desc', -1, 'req_t01'],
      ['latencyMs', 'desc', 10, 'x'],
    ];
    for (const parts of crafted) {
      const cursor = Buffer.from(JSON.stringify(parts)).toString('base64url');
      const orderBy = parts[0] as string;
      const res = await env.http('GET', `/v1/analytics/requests?orderBy=${orderBy}&cursor=${cursor}`, {
        token: a.token,
      });
      expectTypedError(res, 400, 'invalid_request_error');
    }
    // The extremes of the formats the service writes are accepted.
    const edges: unknown[][] = [
      ['createdAt', 'desc', '9999-12-31T23:59:59.999999Z', 'req_zzzzzzzzzzzzzzzzzzzz'],
      ['createdAt', 'desc', '0001-01-01T00:00:00.000000Z', 'req_t01'],
      ['createdAt', 'desc', '2024-02-29T00:00:00.000000Z', 'req_t01'],
      ['latencyMs', 'desc', 2_147_483_647, 'req_t01'],
    ];
    for (const parts of edges) {
      const cursor = Buffer.from(JSON.stringify(parts)).toString('base64url');
      await get(a.token, `/v1/analytics/requests?orderBy=${parts[0]}&cursor=${cursor}`);
    }
    const first = await get(a.token, '/v1/analytics/requests?limit=2');
    const mismatch = await env.http('GET', `/v1/analytics/requests?orderBy=latencyMs&cursor=${first.nextCursor}`, {
      token: a.token,
    });
    expectTypedError(mismatch, 400, 'invalid_request_error');
    expect(mismatch.body.error.message).toContain('orderBy');
  });
});

describe('validation', () => {
  it('a bad range answers 400 listing the accepted values', async () => {
    for (const path of [
      '/v1/analytics/timeseries',
      '/v1/analytics/timeseries/cost-by-provider',
      '/v1/analytics/models/compare',
    ]) {
      const res = await env.http('GET', `${path}?range=2w`, { token: a.token });
      expectTypedError(res, 400, 'invalid_request_error');
      for (const v of ['1h', '6h', '24h', '7d', '30d']) expect(res.body.error.message).toContain(`"${v}"`);
      expect(res.body.error.message).toContain('range');
    }
  });

  it('a bad orderBy answers 400 listing the accepted values', async () => {
    const res = await env.http('GET', '/v1/analytics/requests?orderBy=cost', { token: a.token });
    expectTypedError(res, 400, 'invalid_request_error');
    expect(res.body.error.message).toContain('orderBy');
    expect(res.body.error.message).toContain('"createdAt"');
    expect(res.body.error.message).toContain('"latencyMs"');
  });
});

describe('tenancy', () => {
  it('another tenant sees only its own rows', async () => {
    const overview = await get(b.token, '/v1/analytics/overview');
    expect(overview).toEqual({
      totalRequests: 3,
      totalCostUsd: 3,
      avgLatencyMs: 6666.667,
      activeProviders: 2,
      tokensSaved: 2000,
      tokensSavedInput: 1000,
      tokensSavedOutput: 1000,
      cacheHits: 1,
      upstreamCalls: 2,
      errors: 0,
    });
    const pipeline = await get(b.token, '/v1/analytics/pipeline');
    expect(pipeline).toMatchObject({
      totalRequests: 3,
      activeAbTests: 0,
      active_ab_tests: 0,
      feedbackCount: 1,
      feedback_count: 1,
    });
    expect(pipeline.stages.abTest.active).toBe(false);
    expect(pipeline.stages.adaptive.active).toBe(true);
    const log = await get(b.token, '/v1/analytics/requests');
    expect(log.items.map((r: { id: string }) => r.id).sort()).toEqual(['req_b00', 'req_b01', 'req_b02']);
    const compare = await get(b.token, '/v1/analytics/models/compare');
    expect(compare.items).toEqual([
      {
        provider: 'openai',
        model: 'gpt-4o-mini',
        requests: 3,
        avgLatencyMs: 6666.667,
        totalCostUsd: 3,
        upstreamCalls: 2,
        avgScore: 1,
        feedbackCount: 1,
      },
    ]);
  });

  it('an empty workspace gets zeros, empty lists and zero buckets, never errors', async () => {
    const t = empty.token;
    expect(await get(t, '/v1/analytics/overview')).toEqual({
      totalRequests: 0,
      totalCostUsd: 0,
      avgLatencyMs: 0,
      activeProviders: 2,
      tokensSaved: 0,
      tokensSavedInput: 0,
      tokensSavedOutput: 0,
      cacheHits: 0,
      upstreamCalls: 0,
      errors: 0,
    });
    expect(await get(t, '/v1/analytics/cache/savings')).toEqual({
      totalRequests: 0,
      hits: 0,
      exactHits: 0,
      semanticHits: 0,
      hitRate: 0,
      exactHitRate: 0,
      semanticHitRate: 0,
      tokensSavedInput: 0,
      tokensSavedOutput: 0,
      tokensSaved: 0,
      estimatedSavingsUsd: 0,
      byModel: [],
    });
    expect(await get(t, '/v1/analytics/costs/by-provider')).toEqual({ totalCostUsd: 0, items: [] });
    expect(await get(t, '/v1/analytics/costs/by-model')).toEqual({ totalCostUsd: 0, items: [] });
    const ts = await get(t, '/v1/analytics/timeseries?range=30d');
    expect(ts.buckets).toHaveLength(31);
    expect(
      ts.buckets.every(
        (x: { requests: number; totalCostUsd: number; p99LatencyMs: number }) =>
          x.requests === 0 && x.totalCostUsd === 0 && x.p99LatencyMs === 0,
      ),
    ).toBe(true);
    const cost = await get(t, '/v1/analytics/timeseries/cost-by-provider');
    expect(cost.providers).toEqual([]);
    expect(cost.buckets[3]).toEqual({ bucketStart: cost.buckets[3].bucketStart, totalCostUsd: 0, byProvider: {} });
    const stats = await get(t, '/v1/analytics/routing/stats');
    expect(stats).toMatchObject({
      totalRequests: 0,
      byRoutedBy: [],
      classifierShare: 0,
      fallbackRate: 0,
      cacheHitRate: 0,
      errorRate: 0,
    });
    const dist = await get(t, '/v1/analytics/routing/distribution');
    expect(dist).toEqual({
      totalRequests: 0,
      byTaskType: [],
      byComplexity: [],
      byRoutedBy: [],
      byProvider: [],
      byModel: [],
      cells: [],
    });
    const pipeline = await get(t, '/v1/analytics/pipeline');
    expect(pipeline.stages.fallback).toEqual({ active: true, count: 0, avgLatencyMs: 0 });
    expect(pipeline.stages.adaptive).toEqual({ active: false, count: 0, avgLatencyMs: 0 });
    expect(pipeline.stages.abTest).toEqual({ active: false, count: 0, avgLatencyMs: 0 });
    expect(pipeline).toMatchObject({ feedbackCount: 0, feedback_count: 0, active_ab_tests: 0 });
    expect((await get(t, '/v1/analytics/models/compare')).items).toEqual([]);
    expect(await get(t, '/v1/analytics/requests')).toEqual({ items: [], nextCursor: null });
  });
});

describe('typed SDK', () => {
  it('reaches the analytics procedures over tRPC', async () => {
    const sdk = env.sdk(a.token) as unknown as { analytics: Record<string, { query(input?: unknown): Promise<any> }> };
    expect((await sdk.analytics.overview!.query()).totalRequests).toBe(10);
    expect((await sdk.analytics.timeseries!.query()).buckets).toHaveLength(25);
    expect((await sdk.analytics.modelsCompare!.query({ range: '24h' })).items).toHaveLength(4);
    expect((await sdk.analytics.requests!.query({ orderBy: 'latencyMs', limit: 1 })).items[0].id).toBe('req_t02');
  });
});

describe('rollups follow writes', () => {
  function row(tenantId: string, i: number): [RequestLogRow, CostLogRow[]] {
    const id = newId('req');
    const createdAt = new Date(NOW - (i % 48) * 30 * MIN - 1);
    const cached = i % 4 === 0;
    return [
      {
        id,
        tenantId,
        createdAt,
        tokenId: null,
        latencyMs: cached ? 0 : 100 + i,
        taskType: i % 3 ? 'qa' : null,
        complexity: i % 3 ? 'simple' : null,
        routedBy: i % 3 ? 'classification' : 'user-override',
        provider: 'openai',
        model: i % 2 ? 'gpt-4o' : 'gpt-4o-mini',
        usedFallback: i % 7 === 0,
        usedLlmFallback: false,
        cached,
        cacheType: cached ? 'exact' : null,
        tokensSavedInput: cached ? 10 : 0,
        tokensSavedOutput: cached ? 5 : 0,
        inputTokens: cached ? 0 : 10,
        outputTokens: cached ? 0 : 5,
        streamed: false,
        status: i % 11 ? 'ok' : 'error',
        errorType: null,
        abTestId: null,
        variant: null,
        promptVersionId: null,
        endpoint: 'chat',
      },
      cached
        ? []
        : [
            {
              tenantId,
              requestId: id,
              tokenId: null,
              provider: 'openai',
              model: i % 2 ? 'gpt-4o' : 'gpt-4o-mini',
              inputTokens: 10,
              outputTokens: 5,
              cachedInputTokens: 0,
              cacheWrite5mTokens: 0,
              cacheWrite1hTokens: 0,
              serviceTier: null,
              cost: 0.000001 * (i % 5),
              status: 'ok',
              createdAt,
            },
          ],
    ];
  }

  async function direct(tenantId: string) {
    const { rows } = await env.database.pool.query(
      `select count(*)::int n, coalesce(sum(latency_ms), 0)::int lat, count(*) filter (where cached)::int hits,
              coalesce((select sum(cost) from cost_logs where tenant_id = $1), 0)::float8 cost,
              (select count(*)::int from cost_logs where tenant_id = $1) calls
       from requests where tenant_id = $1`,
      [tenantId],
    );
    return rows[0] as { n: number; lat: number; hits: number; cost: number; calls: number };
  }

  it('match the raw rows after log-writer batches, a replayed batch, deletes and feedback changes', async () => {
    const t = await env.createTenant();
    const writer = new LogWriter({
      pool: env.database.pool,
      logger: createLogger('silent'),
      flushIntervalMs: 5,
      maxBuffered: 10_000,
    });
    const rows = Array.from({ length: 300 }, (_, i) => row(t.tenantId, i));
    for (const [r, c] of rows) writer.write(r, c);
    await writer.drain();
    // A batch retried after a lost COMMIT acknowledgement: request rows conflict and are skipped.
    await env.database.pool.query(
      `insert into requests select * from requests where tenant_id = $1 limit 50 on conflict (id) do nothing`,
      [t.tenantId],
    );

    const check = async () => {
      const d = await direct(t.tenantId);
      const o = await get(t.token, '/v1/analytics/overview');
      expect(o.totalRequests).toBe(d.n);
      expect(o.avgLatencyMs).toBeCloseTo(d.n ? d.lat / d.n : 0, 3);
      expect(o.cacheHits).toBe(d.hits);
      expect(o.totalCostUsd).toBeCloseTo(d.cost, 12);
      expect(o.upstreamCalls).toBe(d.calls);
      const ts = await get(t.token, '/v1/analytics/timeseries');
      const inWindow = await env.database.pool.query(
        `select count(*)::int n from requests where tenant_id = $1 and created_at >= $2`,
        [t.tenantId, new Date(NOW - DAY)],
      );
      expect(ts.buckets.reduce((s: number, x: { requests: number }) => s + x.requests, 0)).toBe(inWindow.rows[0].n);
      return d;
    };
    expect((await check()).n).toBe(300);

    const someIds = rows.slice(0, 6).map(([r]) => r.id);
    await seedFeedback(
      t.tenantId,
      someIds.map((id, i) => [`fb_${id}`, id, 1 + (i % 5), 'user']),
    );
    expect((await get(t.token, '/v1/analytics/pipeline')).feedbackCount).toBe(6);
    await env.database.pool.query(`update feedback set score = 5 where tenant_id = $1`, [t.tenantId]);
    const compared = await get(t.token, '/v1/analytics/models/compare?range=30d');
    expect(compared.items.reduce((s: number, m: { feedbackCount: number }) => s + m.feedbackCount, 0)).toBe(6);
    for (const m of compared.items) if (m.feedbackCount) expect(m.avgScore).toBe(5);

    // Deleting requests (log retention) takes them out of the rollups; deleting cost rows likewise.
    await env.database.pool.query(`delete from requests where tenant_id = $1 and id = any($2)`, [
      t.tenantId,
      someIds.slice(0, 3),
    ]);
    await env.database.pool.query(`delete from cost_logs where tenant_id = $1 and request_id = any($2)`, [
      t.tenantId,
      someIds.slice(0, 3),
    ]);
    expect((await check()).n).toBe(297);
    // The feedback rows on them remain and adaptive routing still learns from them: the pipeline
    // counts every one, and its adaptive stage stays active.
    const kept = await get(t.token, '/v1/analytics/pipeline');
    expect(kept).toMatchObject({ feedbackCount: 6, feedback_count: 6 });
    expect(kept.stages.adaptive.active).toBe(true);
    await env.database.pool.query(`delete from feedback where tenant_id = $1`, [t.tenantId]);
    const none = await get(t.token, '/v1/analytics/pipeline');
    expect(none).toMatchObject({ feedbackCount: 0, feedback_count: 0 });
    expect(none.stages.adaptive.active).toBe(false);
  });
});

describe('auth', () => {
  securityMatrix(
    () => env,
    (): SecurityContext => ({ owner: a, other: b, ids: {} }),
    [
      '/v1/analytics/overview',
      '/v1/analytics/cache/savings',
      '/v1/analytics/costs/by-provider',
      '/v1/analytics/costs/by-model',
      '/v1/analytics/timeseries/cost-by-provider',
      '/v1/analytics/timeseries',
      '/v1/analytics/routing/stats',
      '/v1/analytics/routing/distribution',
      '/v1/analytics/pipeline',
      '/v1/analytics/models/compare',
      '/v1/analytics/requests',
    ].map((path) => ({ method: 'GET', path })),
  );

  it('every path is in the OpenAPI document', async () => {
    const doc = (await env.http('GET', '/openapi.json')).body;
    for (const p of [
      'overview',
      'cache/savings',
      'costs/by-provider',
      'costs/by-model',
      'timeseries/cost-by-provider',
      'timeseries',
      'routing/stats',
      'routing/distribution',
      'pipeline',
      'models/compare',
      'requests',
    ]) {
      expect(doc.paths[`/v1/analytics/${p}`]?.get, p).toBeDefined();
    }
    const params = doc.paths['/v1/analytics/requests'].get.parameters.map((x: { name: string }) => x.name);
    expect(params).toEqual(expect.arrayContaining(['orderBy', 'order', 'limit', 'cursor']));
  });
});

describe('gatewayctl analytics', () => {
  async function run(args: string[], token = a.token): Promise<string> {
    const program = new Command('gatewayctl')
      .option('--url <url>')
      .option('--token <token>')
      .option('--json')
      .exitOverride()
      .configureOutput({ writeErr: () => undefined });
    registerAnalyticsCommand(program);
    const out: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      out.push(String(chunk));
      return true;
    });
    try {
      await program.parseAsync(['node', 'gatewayctl', '--url', env.baseUrl, '--token', token, ...args]);
    } finally {
      spy.mockRestore();
    }
    return out.join('');
  }

  it('prints tables', async () => {
    const overview = await run(['analytics', 'overview']);
    expect(overview).toMatch(/REQUESTS\s*│\s*10/);
    expect(overview).toMatch(/AVG LATENCY\s*│\s*821 ms/);
    const costs = await run(['analytics', 'costs', '--by', 'model']);
    expect(costs).toContain('claude-3-5-haiku-20241022');
    expect(costs).toMatch(/Total: \$0\.0014[78]/);
    expect(await run(['analytics', 'timeseries', '--range', '7d'])).toContain('2026-03-03');
    expect(await run(['analytics', 'timeseries', '--by-provider'])).toContain('ANTHROPIC');
    expect(await run(['analytics', 'models', '--range', '24h'])).toContain('openai/gpt-4o-mini');
    const routing = await run(['analytics', 'routing']);
    expect(routing).toContain('classification');
    expect(routing).toContain('userOverride');
    const log = await run(['analytics', 'requests', '--limit', '2']);
    expect(log).toContain('req_t01');
    expect(log).toContain('More requests exist');
  });

  it('--json prints the API result; --all walks every page', async () => {
    expect(JSON.parse(await run(['--json', 'analytics', 'costs']))).toEqual(
      await get(a.token, '/v1/analytics/costs/by-provider'),
    );
    const all = JSON.parse(
      await run(['--json', 'analytics', 'requests', '--order-by', 'latencyMs', '--limit', '3', '--all']),
    );
    expect(all.nextCursor).toBeNull();
    expect(all.items.map((r: { id: string }) => r.id)).toEqual([
      'req_t02',
      'req_t07',
      'req_t01',
      'req_t05',
      'req_t09',
      'req_t04',
      'req_t08',
      'req_t10',
      'req_t06',
      'req_t03',
    ]);
  });

  it('rejects a bad range before calling the gateway', async () => {
    await expect(run(['analytics', 'timeseries', '--range', '2w'])).rejects.toThrow(
      /Allowed choices are 1h, 6h, 24h, 7d, 30d/,
    );
  });
});
