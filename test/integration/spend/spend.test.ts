import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpendRepository } from '../../../server/modules/spend/repository.js';
import { SpendService } from '../../../server/modules/spend/service.js';
import { lines, runCli } from '../../support/cli.js';
import { startTestEnv, type TestEnv, type TestTenant } from '../../support/harness.js';
import { expectTypedError, securityMatrix } from '../../support/security.js';

// /v1/spend against cost rows, requests and feedback seeded straight into the database at chosen
// times, with a pinned clock: rows sit exactly on window starts and hour boundaries, so the rollup
// and the raw partial hours must both be read right. Expected figures come from the seed table
// below, filtered by hand-written rules (reference()), and a few are written out as literals.

const NOW = Date.parse('2026-03-10T12:30:00.000Z');
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

interface Call {
  id: string;
  provider: string;
  model: string;
  /** 'A' or 'B': the tenant's two tokens; null: the gateway's own call (no request row). */
  token: 'A' | 'B' | null;
  taskType: string | null;
  complexity: string | null;
  cost: number;
  at: number;
  score: number | null;
}

const CALLS: Call[] = [
  {
    id: 'r01',
    provider: 'openai',
    model: 'gpt-4o',
    token: 'A',
    taskType: 'coding',
    complexity: 'simple',
    cost: 0.5,
    at: NOW - 10 * MIN,
    score: 5,
  },
  {
    id: 'r02',
    provider: 'openai',
    model: 'gpt-4o',
    token: 'A',
    taskType: 'coding',
    complexity: 'simple',
    cost: 0.5,
    at: Date.parse('2026-03-10T12:00:00Z'),
    score: 4,
  },
  {
    id: 'r03',
    provider: 'openai',
    model: 'gpt-4o',
    token: 'B',
    taskType: 'coding',
    complexity: 'simple',
    cost: 0.5,
    at: NOW - 2 * HOUR,
    score: 5,
  },
  {
    id: 'r04',
    provider: 'openai',
    model: 'gpt-4o-mini',
    token: 'A',
    taskType: 'coding',
    complexity: 'simple',
    cost: 0.1,
    at: NOW - DAY,
    score: 4,
  },
  {
    id: 'r05',
    provider: 'openai',
    model: 'gpt-4o-mini',
    token: 'B',
    taskType: 'coding',
    complexity: 'simple',
    cost: 0.1,
    at: NOW - DAY - 1,
    score: 5,
  },
  {
    id: 'r06',
    provider: 'gemini',
    model: 'gemini-2.0-flash',
    token: 'A',
    taskType: 'coding',
    complexity: 'simple',
    cost: 0.05,
    at: NOW - 3 * DAY,
    score: 2,
  },
  {
    id: 'r07',
    provider: 'gemini',
    model: 'gemini-2.0-flash',
    token: 'A',
    taskType: 'coding',
    complexity: 'simple',
    cost: 0.05,
    at: NOW - 8 * DAY,
    score: 3,
  },
  {
    id: 'r08',
    provider: 'anthropic',
    model: 'claude-3-5-haiku',
    token: 'B',
    taskType: 'qa',
    complexity: 'medium',
    cost: 0.3,
    at: NOW - 23 * HOUR,
    score: 4,
  },
  {
    id: 'r09',
    provider: 'anthropic',
    model: 'claude-3-5-haiku',
    token: 'A',
    taskType: 'qa',
    complexity: 'medium',
    cost: 0.2,
    at: NOW - 10 * DAY,
    score: null,
  },
  {
    id: 'r10',
    provider: 'openai',
    model: 'gpt-4o',
    token: null,
    taskType: null,
    complexity: null,
    cost: 0.02,
    at: NOW - 5 * HOUR,
    score: null,
  },
  {
    id: 'r11',
    provider: 'openai',
    model: 'gpt-4o-mini',
    token: 'A',
    taskType: 'coding',
    complexity: 'simple',
    cost: 0.1,
    at: Date.parse('2026-02-25T00:00:00Z'),
    score: null,
  },
];

let env: TestEnv;
let owner: TestTenant;
let other: TestTenant;
let tokenB: { id: string; name: string };

const tokenIdOf = (c: Call) => (c.token === 'A' ? owner.tokenId : c.token === 'B' ? tokenB.id : null);

/** The reference: sum the seed rows in [from, to) by a key, as the endpoint should. */
function reference(from: number, to: number, key: (c: Call) => string): Map<string, { cost: number; calls: number }> {
  const out = new Map<string, { cost: number; calls: number }>();
  for (const c of CALLS) {
    if (c.at < from || c.at >= to) continue;
    const k = key(c);
    const e = out.get(k) ?? { cost: 0, calls: 0 };
    e.cost += c.cost;
    e.calls += 1;
    out.set(k, e);
  }
  return out;
}

const close = (a: number, b: number) => expect(a).toBeCloseTo(b, 9);

async function seed(tenantId: string): Promise<void> {
  const pool = env.database.pool;
  for (const c of CALLS) {
    if (c.token !== null)
      await pool.query(
        `insert into requests (id, tenant_id, created_at, token_id, latency_ms, task_type, complexity, routed_by, provider, model, status)
         values ($1, $2, $3, $4, 100, $5, $6, 'classification', $7, $8, 'ok')`,
        [`${tenantId}-${c.id}`, tenantId, new Date(c.at), tokenIdOf(c), c.taskType, c.complexity, c.provider, c.model],
      );
    await pool.query(
      `insert into cost_logs (tenant_id, request_id, token_id, provider, model, input_tokens, output_tokens, cost, status, created_at, task_type, complexity, seq)
       values ($1, $2, $3, $4, $5, 10, 5, $6, 'ok', $7, $8, $9, 0)`,
      [
        tenantId,
        `${tenantId}-${c.id}`,
        tokenIdOf(c),
        c.provider,
        c.model,
        c.cost,
        new Date(c.at),
        c.taskType,
        c.complexity,
      ],
    );
    if (c.score !== null)
      await pool.query(
        `insert into feedback (id, tenant_id, request_id, score, source) values ($1, $2, $3, $4, 'user')`,
        [`fb-${tenantId}-${c.id}`, tenantId, `${tenantId}-${c.id}`, c.score],
      );
  }
}

beforeAll(async () => {
  env = await startTestEnv();
  owner = await env.createTenant('enterprise');
  other = await env.createTenant('enterprise');
  const created = await env.http('POST', '/v1/admin/tokens', { token: owner.token, body: { name: '=ci-bot, batch' } });
  tokenB = { id: created.body.id, name: created.body.name };
  // A pinned clock, as the analytics tests do.
  env.services.spend = new SpendService({
    repository: new SpendRepository(env.database.pool),
    tokenNames: async (tenantId) => new Map((await env.services.tokens.list(tenantId)).map((t) => [t.id, t.name])),
    cellQuality: (tenantId) => env.services.analytics.cellQuality(tenantId),
    monthlyBudget: async (tenantId) => (tenantId === owner.tenantId ? 10 : null),
    minSamples: 10,
    now: () => NOW,
  });
  await seed(owner.tenantId);
  // The other workspace: one large call now, which the owner must never see.
  await env.database.pool.query(
    `insert into cost_logs (tenant_id, request_id, provider, model, input_tokens, output_tokens, cost, status, created_at, seq)
     values ($1, 'x1', 'openai', 'gpt-4o', 1, 1, 99, 'ok', $2, 0)`,
    [other.tenantId, new Date(NOW - MIN)],
  );
});
afterAll(() => env?.close());

const get = (path: string, token = owner.token) => env.http('GET', path, { token });

describe('GET /v1/spend/by', () => {
  it('adds up the last 24 hours per model, exactly on the window start and an hour boundary', async () => {
    const res = await get('/v1/spend/by?dimension=model&range=24h');
    expect(res.status).toBe(200);
    close(res.body.totalUsd, 1.92);
    close(res.body.previousTotalUsd, 0.1);
    const want = reference(NOW - DAY, NOW, (c) => `${c.provider}/${c.model}`);
    expect(res.body.items.map((i: any) => i.key)).toEqual([
      'openai/gpt-4o',
      'anthropic/claude-3-5-haiku',
      'openai/gpt-4o-mini',
    ]);
    for (const item of res.body.items) {
      close(item.spendUsd, want.get(item.key)!.cost);
      expect(item.calls).toBe(want.get(item.key)!.calls);
      close(item.share, Math.round((want.get(item.key)!.cost / 1.92) * 1e6) / 1e6);
    }
    const mini = res.body.items.find((i: any) => i.key === 'openai/gpt-4o-mini');
    close(mini.previousSpendUsd, 0.1);
    expect(mini.changePct).toBe(0);
    expect(res.body.items.find((i: any) => i.key === 'openai/gpt-4o').changePct).toBeNull();
    expect(res.body.period).toEqual({ from: new Date(NOW - DAY).toISOString(), to: new Date(NOW).toISOString() });
  });

  it.each([
    ['provider', (c: Call) => c.provider],
    ['cell', (c: Call) => `${c.taskType ?? ''}/${c.complexity ?? ''}`],
  ])('groups by %s over 30 days', async (dimension, key) => {
    const res = await get(`/v1/spend/by?dimension=${dimension}&range=30d`);
    expect(res.status).toBe(200);
    const want = reference(NOW - 30 * DAY, NOW, key);
    expect(new Set(res.body.items.map((i: any) => i.key))).toEqual(new Set(want.keys()));
    for (const item of res.body.items) close(item.spendUsd, want.get(item.key)!.cost);
  });

  it('groups by token with its name as the label, and by user as tokens until sign-in exists', async () => {
    for (const dimension of ['token', 'user']) {
      const res = await get(`/v1/spend/by?dimension=${dimension}&range=7d`);
      expect(res.status).toBe(200);
      const want = reference(NOW - 7 * DAY, NOW, (c) => tokenIdOf(c) ?? '');
      const b = res.body.items.find((i: any) => i.key === tokenB.id);
      close(b.spendUsd, want.get(tokenB.id)!.cost);
      expect(b.label).toBe('=ci-bot, batch');
      close(res.body.items.find((i: any) => i.key === '').spendUsd, 0.02);
      expect(res.body.note).toMatch(dimension === 'user' ? /per token/ : /no token/);
    }
  });

  it('reads an explicit window whose ends fall inside hours', async () => {
    const from = NOW - 24 * HOUR - 17 * MIN; // 12:13 the day before
    const to = NOW - 25 * MIN; // 12:05 today: r02 (12:00) in, r01 (12:20) out
    const res = await get(
      `/v1/spend/by?dimension=model&from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}`,
    );
    expect(res.status).toBe(200);
    const want = reference(from, to, (c) => `${c.provider}/${c.model}`);
    expect(res.body.items.length).toBe(want.size);
    for (const item of res.body.items) close(item.spendUsd, want.get(item.key)!.cost);
    close(res.body.totalUsd, 0.5 + 0.5 + 0.1 + 0.1 + 0.3 + 0.02);
  });

  it('matches cost_logs for every preset range', async () => {
    for (const range of ['24h', '7d', '30d', '90d'] as const) {
      const ms = { '24h': DAY, '7d': 7 * DAY, '30d': 30 * DAY, '90d': 90 * DAY }[range];
      const { rows } = await env.database.pool.query(
        `select coalesce(sum(cost), 0)::float8 as s from cost_logs where tenant_id = $1 and created_at >= $2 and created_at < $3`,
        [owner.tenantId, new Date(NOW - ms), new Date(NOW)],
      );
      const res = await get(`/v1/spend/by?dimension=provider&range=${range}`);
      close(res.body.totalUsd, rows[0].s);
    }
  });

  it('never shows another workspace its rows', async () => {
    const res = await get('/v1/spend/by?dimension=model&range=24h', other.token);
    expect(res.body.items).toEqual([expect.objectContaining({ key: 'openai/gpt-4o', spendUsd: 99 })]);
    const mine = await get('/v1/spend/by?dimension=provider&range=24h');
    expect(mine.body.items.some((i: any) => i.spendUsd === 99)).toBe(false);
  });

  it.each([
    ['/v1/spend/by', 'dimension'],
    ['/v1/spend/by?dimension=team', 'dimension'],
    ['/v1/spend/by?dimension=model&range=1y', 'range'],
    ['/v1/spend/by?dimension=model&range=7d&from=2026-03-01T00:00:00Z', 'range'],
    ['/v1/spend/by?dimension=model&from=yesterday', 'from'],
    ['/v1/spend/by?dimension=model&from=2026-03-10T00:00:00Z&to=2026-03-01T00:00:00Z', 'from'],
    ['/v1/spend/by?dimension=model&from=2020-01-01T00:00:00Z', 'from'],
    ['/v1/spend/by?dimension=model&limit=3', 'limit'],
    ['/v1/spend/recommendations?tolerance=-1', 'tolerance'],
    ['/v1/spend/trajectory?month=2026-03', 'month'],
    ['/v1/spend/export?format=xml', 'format'],
  ])('refuses %s with a 400 naming %s', async (path, field) => {
    const res = await get(path);
    expectTypedError(res, 400, 'invalid_request_error');
    expect(res.body.error.message).toContain(field);
  });
});

describe('tiers', () => {
  it('needs team for spend, enterprise for tokens, users, drift and recommendations', async () => {
    const free = await env.createTenant('free');
    const team = await env.createTenant('team');
    for (const path of ['/v1/spend/by?dimension=model', '/v1/spend/trajectory', '/v1/spend/export']) {
      const res = await get(path, free.token);
      expectTypedError(res, 402, 'insufficient_tier');
      expect(res.body.error.upgrade).toMatchObject({ requiredTier: 'team', currentTier: 'free' });
      expect((await get(path, team.token)).status).toBe(200);
    }
    for (const path of [
      '/v1/spend/by?dimension=token',
      '/v1/spend/by?dimension=user',
      '/v1/spend/drift',
      '/v1/spend/recommendations',
    ]) {
      const res = await get(path, team.token);
      expectTypedError(res, 402, 'insufficient_tier');
      expect(res.body.error.upgrade).toMatchObject({ requiredTier: 'enterprise', currentTier: 'team' });
    }
    // A team export leaves out the enterprise dimensions.
    const csv = await env.http('GET', '/v1/spend/export', { token: team.token });
    expect(String(csv.body)).not.toMatch(/^(token|user),/m);
  });
});

describe('GET /v1/spend/trajectory', () => {
  it('gives each day of the month, the month-end projection with its method, and the budget', async () => {
    const res = await get('/v1/spend/trajectory');
    expect(res.status).toBe(200);
    expect(res.body.month).toBe('2026-03');
    expect(res.body.days).toHaveLength(10);
    const day = (d: string) => res.body.days.find((x: any) => x.date === d).spendUsd;
    close(day('2026-03-10'), 1.52);
    close(day('2026-03-09'), 0.5);
    close(day('2026-03-07'), 0.05);
    close(day('2026-03-02'), 0.05);
    close(day('2026-03-05'), 0);
    close(res.body.monthToDateUsd, 2.12);
    // Whole days 03-03..03-09 average 0.55 / 7; 21 days 11.5 hours remain.
    const left = (Date.parse('2026-04-01T00:00:00Z') - NOW) / DAY;
    const rate = 0.55 / 7;
    close(res.body.projection.projectedMonthUsd, Math.round((2.12 + rate * left) * 1e6) / 1e6);
    const sd = Math.sqrt([0, 0, 0, 0, 0.05, 0, 0.5].reduce((s, v) => s + (v - rate) ** 2, 0) / 6);
    expect(res.body.projection.highUsd).toBeCloseTo(2.12 + rate * left + 1.96 * sd * Math.sqrt(left), 5);
    expect(res.body.projection.lowUsd).toBeGreaterThanOrEqual(2.12);
    expect(res.body.projection.method).toMatch(/last 7 whole day/);
    expect(res.body.budget.monthlyUsd).toBe(10);
    close(res.body.budget.spentShare, 0.212);
  });
});

describe('GET /v1/spend/drift', () => {
  it('splits the week-over-week change into volume and price or mix, largest first', async () => {
    const res = await get('/v1/spend/drift');
    expect(res.status).toBe(200);
    const byModel = Object.fromEntries(res.body.byModel.map((i: any) => [i.key, i]));
    expect(res.body.byModel[0].key).toBe('openai/gpt-4o');
    close(byModel['openai/gpt-4o'].changeUsd, 1.52);
    close(byModel['openai/gpt-4o'].volumeUsd, 1.52);
    // One call each week, dearer now: all price.
    close(byModel['anthropic/claude-3-5-haiku'].changeUsd, 0.1);
    close(byModel['anthropic/claude-3-5-haiku'].volumeUsd, 0);
    close(byModel['anthropic/claude-3-5-haiku'].priceOrMixUsd, 0.1);
    const coding = res.body.byCell.find((i: any) => i.key === 'coding/simple');
    // 6 calls now against 2 (r07, r11) at 0.075 each: volume 4 x 0.075; the rest is the dearer mix of models.
    expect([coding.calls, coding.previousCalls]).toEqual([6, 2]);
    close(coding.changeUsd, 1.6);
    close(coding.volumeUsd, 0.3);
    close(coding.priceOrMixUsd, 1.3);
    // Twice the calls at the same price: all volume.
    close(byModel['openai/gpt-4o-mini'].volumeUsd, 0.1);
    close(byModel['openai/gpt-4o-mini'].priceOrMixUsd, 0);
    for (const i of [...res.body.byModel, ...res.body.byCell]) close(i.volumeUsd + i.priceOrMixUsd, i.changeUsd);
  });
});

describe('GET /v1/spend/recommendations', () => {
  it('names a cheaper model of equal judged quality on a cell, with the evidence', async () => {
    const res = await get('/v1/spend/recommendations?minSamples=2');
    expect(res.status).toBe(200);
    // qa/medium has one judged sample: no recommendation there.
    expect(res.body.items).toHaveLength(1);
    const [rec] = res.body.items;
    expect(rec).toMatchObject({
      taskType: 'coding',
      complexity: 'simple',
      current: { provider: 'openai', model: 'gpt-4o', samples: 3, callsLast30d: 3 },
      recommended: { provider: 'openai', model: 'gpt-4o-mini', samples: 2, avgScore: 4.5 },
    });
    close(rec.current.avgScore, 4.6667);
    close(rec.current.avgCostPerCallUsd, 0.5);
    close(rec.recommended.avgCostPerCallUsd, 0.1);
    close(rec.estimatedMonthlySavingsUsd, 1.2);
  });

  it('recommends nothing when the evidence is thin or the cheaper model is worse', async () => {
    expect((await get('/v1/spend/recommendations')).body.items).toEqual([]); // default 10 samples
    expect((await get('/v1/spend/recommendations?minSamples=2&tolerance=0.1')).body.items).toEqual([]);
  });
});

describe('GET /v1/spend/export', () => {
  it('streams every dimension as CSV with a filename, text kept as text', async () => {
    const res = await env.http('GET', '/v1/spend/export?range=7d', { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(res.headers.get('content-disposition')).toBe(
      'attachment; filename="spend-20260303T123000-20260310T123000.csv"',
    );
    const lines = String(res.body).trim().split('\r\n');
    expect(lines[0]).toBe(
      'dimension,key,label,spend_usd,calls,input_tokens,output_tokens,share,previous_spend_usd,change_pct,period_from,period_to',
    );
    expect(new Set(lines.slice(1).map((l) => l.split(',')[0]))).toEqual(
      new Set(['provider', 'model', 'cell', 'token', 'user']),
    );
    // The token's name starts with '=' and has a comma: quoted, and prefixed so no sheet runs it.
    expect(lines.find((l) => l.startsWith(`token,${tokenB.id},`))).toContain(`"'=ci-bot, batch"`);
    const by = await get('/v1/spend/by?dimension=model&range=7d');
    for (const item of by.body.items) {
      const line = lines.find((l) => l.startsWith(`model,${item.key},`))!;
      expect(Number(line.split(',')[3])).toBeCloseTo(item.spendUsd, 12);
    }
  });

  it('gives the same figures as JSON', async () => {
    const res = await env.http('GET', '/v1/spend/export?format=json&range=24h', { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(/filename="spend-.*\.json"/);
    const body = typeof res.body === 'string' ? JSON.parse(res.body) : res.body;
    const model = body.dimensions.find((d: any) => d.dimension === 'model');
    expect(model).toEqual((await get('/v1/spend/by?dimension=model&range=24h')).body);
  });

  it('is listed in /openapi.json beside the other spend paths', async () => {
    const doc = (await env.http('GET', '/openapi.json')).body;
    for (const p of [
      '/v1/spend/by',
      '/v1/spend/trajectory',
      '/v1/spend/drift',
      '/v1/spend/recommendations',
      '/v1/spend/export',
    ])
      expect(doc.paths[p]?.get, p).toBeDefined();
  });
});

describe('SDK and gatewayctl', () => {
  it('reads spend through the typed SDK, export included', async () => {
    const gw = env.sdk(owner.token);
    const by = await gw.spend.by.query({ dimension: 'provider', range: '24h' });
    close(by.totalUsd, 1.92);
    const recs = await gw.spend.recommendations.query({ minSamples: 2 });
    expect(recs.items[0]?.recommended.model).toBe('gpt-4o-mini');
    const file = await gw.spendExport.download({ format: 'csv', range: '24h' });
    expect(file.filename).toBe('spend-20260309T123000-20260310T123000.csv');
    expect(file.body.split('\r\n')[0]).toMatch(/^dimension,key,/);
    await expect(env.sdk(other.token).spendExport.download({ format: 'json', from: 'soon' })).rejects.toMatchObject({
      status: 400,
      type: 'invalid_request_error',
    });
  });

  it('prints tables, --json and an export file', async () => {
    const vars = { url: env.baseUrl, token: owner.token };
    const table = await runCli(['spend', 'by', '--dimension', 'model', '--range', '24h'], vars);
    expect(table).toMatchObject({ code: 0, stderr: '' });
    expect(lines(table.stdout).find((l) => l.includes('openai/gpt-4o '))).toMatch(/\$1\.52/);
    expect(table.stdout).toMatch(/Total \$1\.92 \(before: \$0\.10\)/);

    const drift = await runCli(['--json', 'spend', 'drift'], vars);
    expect(drift.code).toBe(0);
    expect(JSON.parse(drift.stdout).byModel[0].key).toBe('openai/gpt-4o');

    const dir = await mkdtemp(path.join(tmpdir(), 'spend-'));
    const out = path.join(dir, 'spend.csv');
    const exported = await runCli(['spend', 'export', '--range', '7d', '--out', out], vars);
    expect(exported).toMatchObject({ code: 0, stderr: '' });
    expect((await readFile(out, 'utf8')).split('\r\n')[0]).toMatch(/^dimension,key,label,spend_usd/);

    const bad = await runCli(['spend', 'recommendations', '--tolerance', 'lots'], vars);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--tolerance: not a number/);
  });
});

describe('security', () => {
  securityMatrix(
    () => env,
    () => ({ owner, other, ids: {} }),
    [
      { method: 'GET', path: '/v1/spend/by?dimension=model' },
      { method: 'GET', path: '/v1/spend/trajectory' },
      { method: 'GET', path: '/v1/spend/drift' },
      { method: 'GET', path: '/v1/spend/recommendations' },
      { method: 'GET', path: '/v1/spend/export' },
    ],
  );
});
