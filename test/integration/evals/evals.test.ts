import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classify } from '../../../server/gateway/classifier/index.js';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';
import type { TestTenant } from '../../support/harness.js';
import { crossTenantMatrix, expectTypedError, securityMatrix, type SecurityContext } from '../../support/security.js';

// Evals end to end over HTTP against the simulator: datasets (line-numbered refusals, limits),
// runs with each scorer and the classifier target, SPEC aggregates computed by hand, cost rows
// eval-<runId>-<caseIndex> and no request rows, cancel, the tier gate.

let c: ChatEnv;
let other: TestTenant;
const ids: Record<string, string> = {};

// The judge's prompt holds the graded answer after "ASSISTANT ANSWER:\n": its rules come first,
// because the judge prompt also holds the question the target rules match on.
const REPLIES = [
  { whenContains: 'ASSISTANT ANSWER:\nanswer alpha', reply: 'Score: 4' },
  { whenContains: 'ASSISTANT ANSWER:\nanswer beta', reply: 'Score: 2' },
  { whenContains: 'ASSISTANT ANSWER:\nanswer gamma', reply: 'I would rather not grade this.' },
  { whenContains: 'question alpha', reply: 'answer alpha' },
  { whenContains: 'question beta', reply: 'answer beta' },
  { whenContains: 'question gamma', reply: 'answer gamma' },
  { whenContains: 'capital of France', reply: 'Paris is the capital of France.' },
  { whenContains: 'two plus two', reply: '5, I think' },
  { whenContains: 'largest planet', reply: '  Jupiter\nis the largest' },
  { whenContains: 'color of the sky', reply: 'Blue' },
  { whenContains: 'many a', reply: `${'a'.repeat(5_000)}b` },
];

beforeAll(async () => {
  c = await startChatEnv({ sim: { replies: REPLIES }, env: { GATEWAY_EXPLORATION_RATE: '0' } });
  other = await c.env.createTenant();
});
afterAll(() => c.close());

const user = (content: string) => [{ role: 'user', content }];
const jsonl = (cases: unknown[]) => cases.map((x) => JSON.stringify(x)).join('\n');
const post = (path: string, body: unknown, token = c.tenant.token) => c.env.http('POST', path, { token, body });
const get = (path: string, token = c.tenant.token) => c.env.http('GET', path, { token });

async function dataset(cases: unknown[], name = 'ds'): Promise<string> {
  const res = await post('/v1/evals/datasets', { name, jsonl: jsonl(cases) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.id;
}

async function runToEnd(body: Record<string, unknown>): Promise<any> {
  const res = await post('/v1/evals/runs', body);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  expect(res.body.status).toBe('queued');
  const deadline = Date.now() + 20_000;
  for (;;) {
    const detail = await get(`/v1/evals/runs/${res.body.runId}`);
    expect(detail.status).toBe(200);
    if (!['queued', 'running'].includes(detail.body.status)) return detail.body;
    if (Date.now() > deadline) throw new Error(`run still ${detail.body.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('datasets', () => {
  it('stores JSONL cases and previews the first 5', async () => {
    const cases = Array.from({ length: 7 }, (_, i) => ({
      input: user(`case ${i}`),
      expected: `e${i}`,
      ...(i === 0 ? { metadata: { source: 'handmade' } } : {}),
    }));
    const res = await post('/v1/evals/datasets', { name: 'seven', description: 'd', jsonl: `${jsonl(cases)}\n\n` });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'seven', description: 'd', caseCount: 7 });
    ids.dataset = res.body.id;
    const detail = await get(`/v1/evals/datasets/${res.body.id}`);
    expect(detail.body.preview).toHaveLength(5);
    expect(detail.body.preview[0]).toEqual({
      index: 0,
      input: user('case 0'),
      expected: 'e0',
      metadata: { source: 'handmade' },
    });
    const list = await get('/v1/evals/datasets');
    expect(list.body.items.map((d: any) => d.id)).toContain(res.body.id);
  });

  it('takes multimodal input', async () => {
    const id = await dataset([
      {
        input: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'what is this?' },
              { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
            ],
          },
        ],
      },
    ]);
    expect((await get(`/v1/evals/datasets/${id}`)).body.caseCount).toBe(1);
  });

  it('refuses a bad line with its line number and stores nothing', async () => {
    const before = (await get('/v1/evals/datasets')).body.items.length;
    const bad = [
      `${JSON.stringify({ input: user('fine'), expected: 'x' })}\n${JSON.stringify({ input: user('fine too') })}\n{"input": "not messages"}`,
      `${JSON.stringify({ input: user('fine') })}\n{not json`,
      `${JSON.stringify({ input: user('a') })}\n${JSON.stringify({ input: [{ role: 'wizard', content: 'x' }] })}`,
      `${JSON.stringify({ input: user('a'), expect: 'typo' })}`,
      `${JSON.stringify({ input: user('a'), metadata: 'not an object' })}`,
      `${JSON.stringify({ input: [] })}`,
    ];
    const lines = [3, 2, 2, 1, 1, 1];
    for (const [i, text] of bad.entries()) {
      const res = await post('/v1/evals/datasets', { name: 'bad', jsonl: text });
      expectTypedError(res, 400, 'invalid_request_error');
      expect(res.body.error.message).toMatch(new RegExp(`^jsonl line ${lines[i]}: `));
    }
    expect((await get('/v1/evals/datasets')).body.items.length).toBe(before);
  });

  it('answers 413 for an upload over the size limit', async () => {
    const big = JSON.stringify({ input: user('x'.repeat(1_000)) });
    const text = Array.from({ length: 5_300 }, () => big).join('\n');
    const res = await post('/v1/evals/datasets', { name: 'big', jsonl: text });
    expect(res.status).toBe(413);
    expect(res.body.error.type).toBe('invalid_request_error');
  });

  it('appends one case at the next index and refuses a bad one', async () => {
    const res = await post(`/v1/evals/datasets/${ids.dataset}/cases`, { input: user('appended'), expected: 42 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ index: 7, input: user('appended'), expected: '42', metadata: null });
    expectTypedError(
      await post(`/v1/evals/datasets/${ids.dataset}/cases`, { input: 'x' }),
      400,
      'invalid_request_error',
    );
    expect((await get(`/v1/evals/datasets/${ids.dataset}`)).body.caseCount).toBe(8);
    expectTypedError(await post('/v1/evals/datasets/ds_missing/cases', { input: user('x') }), 404, 'not_found_error');
  });

  it('an empty upload makes an empty dataset, which takes cases but cannot be run while it holds none', async () => {
    const res = await post('/v1/evals/datasets', { name: 'to fill', jsonl: '\n  \n' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.caseCount).toBe(0);
    const run = await post('/v1/evals/runs', { datasetId: res.body.id, provider: 'openai', model: 'gpt-4o-mini' });
    expect(res400Message(run)).toMatch(/holds no case/);
    expect((await post(`/v1/evals/datasets/${res.body.id}/cases`, { input: user('first') })).body.index).toBe(0);
    expect((await get(`/v1/evals/datasets/${res.body.id}`)).body.caseCount).toBe(1);
  });
});

function res400Message(res: { status: number; body: any }): string {
  expect(res.status).toBe(400);
  return res.body.error.message;
}

describe('runs', () => {
  it('exact-match on a model target: pass rate by hand, cost rows per case, no request rows', async () => {
    const ds = await dataset([
      { input: user('What is the capital of France?'), expected: 'Paris' }, // "Paris is ..." -> 5
      { input: user('What is two plus two?'), expected: '4' }, // "5, I think" -> 1
      { input: user('Name the largest planet'), expected: 'Jupiter' }, // "  Jupiter\n..." -> 5
      { input: user('What is the color of the sky?'), expected: 'Blue' }, // "Blue" -> 5
      { input: user('What is the capital of France, again?'), expected: 'paris' }, // case differs -> 1
    ]);
    const run = await runToEnd({ datasetId: ds, provider: 'openai', model: 'gpt-4o-mini', scorer: 'exact-match' });
    expect(run.status).toBe('completed');
    expect(run.completedCases).toBe(5);
    expect(run.results.map((r: any) => r.score)).toEqual([5, 1, 5, 5, 1]);
    expect(run.results[1].output).toBe('5, I think');
    // avg = (5+1+5+5+1)/5 = 3.4; ((3.4 - 1) / 4) x 100 = 60 = 3 of 5 passed.
    expect(run.aggregate.avgScore).toBeCloseTo(3.4, 10);
    expect(run.aggregate.passRate).toBeCloseTo(60, 10);
    expect(run.aggregate.score).toBeCloseTo(60, 10);
    expect(run.costUsd).toBeGreaterThan(0);

    await c.waitForCount(
      "select count(*)::int as n from cost_logs where tenant_id = $1 and request_id like 'eval-%'",
      [c.tenant.tenantId],
      5,
    );
    const rows = await c.query<{ request_id: string; provider: string; model: string }>(
      'select request_id, provider, model from cost_logs where tenant_id = $1 order by request_id',
      [c.tenant.tenantId],
    );
    expect(rows.map((r) => r.request_id)).toEqual([0, 1, 2, 3, 4].map((i) => `eval-${run.id}-${i}`));
    expect(rows.every((r) => r.provider === 'openai' && r.model === 'gpt-4o-mini')).toBe(true);
    const requests = await c.query('select 1 from requests where tenant_id = $1', [c.tenant.tenantId]);
    expect(requests).toHaveLength(0);
  });

  it('regex-match: JavaScript patterns, flags, a catastrophic pattern that does not stall', async () => {
    const ds = await dataset([
      { input: user('What is the capital of France?'), expected: '^Paris\\b' }, // pass
      { input: user('What is two plus two?'), expected: '/^four/i' }, // fail
      { input: user('What is the color of the sky?'), expected: '/^blue$/i' }, // pass (flag i)
      { input: user('many a'), expected: '^(a+)+$' }, // catastrophic backtracking, no match: fail
      { input: user('Name the largest planet'), expected: '(J)upiter.*\\1?' }, // backreference (JS engine): pass
    ]);
    const started = Date.now();
    const run = await runToEnd({ datasetId: ds, provider: 'openai', model: 'gpt-4o-mini', scorer: 'regex-match' });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(run.status).toBe('completed');
    expect(run.results.map((r: any) => r.score)).toEqual([5, 1, 5, 1, 5]);
    // 3 of 5 passed: avg 3.4, 60 percent.
    expect(run.aggregate.passRate).toBeCloseTo(60, 10);
  });

  it('refuses a match scorer on cases without expected, and an invalid pattern, naming the case', async () => {
    const ds = await dataset([{ input: user('a'), expected: '(' }, { input: user('b') }]);
    const exact = await post('/v1/evals/runs', {
      datasetId: ds,
      provider: 'openai',
      model: 'gpt-4o-mini',
      scorer: 'exact-match',
    });
    expectTypedError(exact, 400, 'invalid_request_error');
    expect(exact.body.error.message).toMatch(/case 1 \(line 2\) has no expected/);
    const regex = await post('/v1/evals/runs', {
      datasetId: ds,
      provider: 'openai',
      model: 'gpt-4o-mini',
      scorer: 'regex-match',
    });
    expect(res400Message(regex)).toMatch(/case 0 \(line 1\).*not a valid regular expression/);
  });

  it('llm-judge: average over non-null scores, null cases count toward progress only', async () => {
    const ds = await dataset([
      { input: user('question alpha') },
      { input: user('question beta') },
      { input: user('question gamma') },
    ]);
    const run = await runToEnd({ datasetId: ds, provider: 'openai', model: 'gpt-4o' });
    expect(run.scorer).toBe('llm-judge');
    expect(run.status).toBe('completed');
    expect(run.completedCases).toBe(3);
    expect(run.results.map((r: any) => [r.output, r.score])).toEqual([
      ['answer alpha', 4],
      ['answer beta', 2],
      ['answer gamma', null],
    ]);
    // (4 + 2) / 2 = 3; the unreadable grade is left out of the average.
    expect(run.aggregate).toEqual({ scorer: 'llm-judge', avgScore: 3, passRate: null, score: 3, scoredCases: 2 });
    expect(run.judgeModel).toMatch(/\//);
    await c.waitForCount(
      'select count(*)::int as n from cost_logs where tenant_id = $1 and request_id like $2',
      [c.tenant.tenantId, `eval-${run.id}-%`],
      6,
    );
    const names = await c.query<{ request_id: string }>(
      'select request_id from cost_logs where tenant_id = $1 and request_id like $2 order by request_id',
      [c.tenant.tenantId, `eval-${run.id}-%`],
    );
    expect(names.map((r) => r.request_id)).toEqual(
      [0, 1, 2].flatMap((i) => [`eval-${run.id}-${i}`, `eval-${run.id}-${i}-judge`]),
    );
  });

  it('the classifier target costs nothing and prints <taskType>/<complexity> (conf=a/b)', async () => {
    const prompts = [
      'Write a Python function that reverses a linked list and explain its complexity.',
      'Write a short poem about the autumn sea.',
      'Summarize the following paragraph in two sentences: The committee met on Tuesday to discuss the budget.',
      'What year did the Berlin wall fall?',
    ];
    const labels = prompts.map((p) => {
      const k = classify([{ role: 'user', content: p }]);
      return `${k.taskType}/${k.complexity}`;
    });
    // Three expected labels are the classifier's own; the fourth is deliberately wrong.
    const wrong = labels[3] === 'vision/complex' ? 'creative/complex' : 'vision/complex';
    const ds = await dataset(prompts.map((p, i) => ({ input: user(p), expected: i === 3 ? wrong : labels[i] })));
    const costBefore = await c.query<{ n: number }>('select count(*)::int as n from cost_logs where tenant_id = $1', [
      c.tenant.tenantId,
    ]);
    const run = await runToEnd({ datasetId: ds, provider: 'gateway', model: 'classifier', scorer: 'exact-match' });
    expect(run.status).toBe('completed');
    for (const [i, r] of run.results.entries())
      expect(r.output).toMatch(new RegExp(`^${labels[i]!.replace('/', '\\/')} \\(conf=\\d\\.\\d\\d/\\d\\.\\d\\d\\)$`));
    expect(run.results.map((r: any) => r.score)).toEqual([5, 5, 5, 1]);
    // 3 of 4: avg 4, ((4 - 1) / 4) x 100 = 75.
    expect(run.aggregate.passRate).toBeCloseTo(75, 10);
    expect(run.costUsd).toBe(0);
    await new Promise((r) => setTimeout(r, 100));
    const costAfter = await c.query<{ n: number }>('select count(*)::int as n from cost_logs where tenant_id = $1', [
      c.tenant.tenantId,
    ]);
    expect(costAfter[0]!.n).toBe(costBefore[0]!.n);
    expectTypedError(
      await post('/v1/evals/runs', { datasetId: ds, provider: 'gateway', model: 'classifier' }),
      400,
      'invalid_request_error',
    );
  });

  it('a failing target gives null scores with the reason; the run still completes', async () => {
    c.sim.setFaults([{ status: 500, times: 100 } as any]);
    try {
      const ds = await dataset([{ input: user('question alpha'), expected: 'x' }]);
      const run = await runToEnd({ datasetId: ds, provider: 'openai', model: 'gpt-4o-mini', scorer: 'exact-match' });
      expect(run.status).toBe('completed');
      expect(run.erroredCases).toBe(1);
      expect(run.results[0]).toMatchObject({ output: null, score: null });
      expect(run.results[0].error).toMatch(/^target call failed/);
      expect(run.aggregate.score).toBeNull();
    } finally {
      c.sim.clearFaults();
    }
  });

  it('lists the last runs, refuses unknown targets, cancels, and deleting the dataset removes its runs', async () => {
    const list = await get('/v1/evals/runs');
    expect(list.status).toBe(200);
    expect(list.body.items.length).toBeGreaterThanOrEqual(4);
    const ds = await dataset([{ input: user('question alpha'), expected: 'x' }]);
    expectTypedError(
      await post('/v1/evals/runs', { datasetId: ds, provider: 'nope', model: 'gpt-4o' }),
      404,
      'not_found_error',
    );
    expectTypedError(
      await post('/v1/evals/runs', { datasetId: 'ds_missing', provider: 'openai', model: 'gpt-4o' }),
      404,
      'not_found_error',
    );
    expectTypedError(
      await post('/v1/evals/runs', { datasetId: ds, provider: 'openai', model: 'gpt-4o', scorer: 'vibes' }),
      400,
      'invalid_request_error',
    );
    const done = await runToEnd({ datasetId: ds, provider: 'openai', model: 'gpt-4o-mini', scorer: 'exact-match' });
    expectTypedError(await post(`/v1/evals/runs/${done.id}/cancel`, {}), 409, 'conflict_error');
    const del = await c.env.http('DELETE', `/v1/evals/datasets/${ds}`, { token: c.tenant.token });
    expect(del.body).toEqual({ id: ds, deleted: true });
    expectTypedError(await get(`/v1/evals/runs/${done.id}`), 404, 'not_found_error');
    const left = await c.query('select 1 from eval_results where run_id = $1', [done.id]);
    expect(left).toHaveLength(0);
  });
});

describe('restart safety', () => {
  async function leftRunning(attempts: number, done: number[]): Promise<{ runId: string; ds: string }> {
    const ds = await dataset(
      [0, 1, 2, 3, 4].map((i) => ({ input: user(`What is the capital of France? ${i}`), expected: 'Paris' })),
    );
    const runId = `run_left${attempts}${Math.random().toString(36).slice(2, 8)}`;
    // What a node that died mid-run leaves behind: status running, some results stored.
    await c.query(
      `insert into eval_runs (id, tenant_id, dataset_id, provider, model, scorer, status, total_cases, attempts, started_at)
       values ($1, $2, $3, 'openai', 'gpt-4o-mini', 'exact-match', 'running', 5, $4, now())`,
      [runId, c.tenant.tenantId, ds, attempts],
    );
    for (const i of done)
      await c.query(
        `insert into eval_results (tenant_id, run_id, case_index, output, score, latency_ms) values ($1, $2, $3, 'Paris (before)', 5, 1)`,
        [c.tenant.tenantId, runId, i],
      );
    return { runId, ds };
  }
  async function settled(runId: string): Promise<any> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const r = await get(`/v1/evals/runs/${runId}`);
      if (!['queued', 'running'].includes(r.body.status)) return r.body;
      if (Date.now() > deadline) throw new Error('run did not settle');
      await new Promise((res) => setTimeout(res, 50));
    }
  }

  it('a run left running resumes where it stopped: stored cases are not run again', async () => {
    const { runId } = await leftRunning(1, [0, 1]);
    await c.env.services.evals.kick(c.tenant.tenantId);
    const run = await settled(runId);
    expect(run.status).toBe('completed');
    expect(run.completedCases).toBe(5);
    expect(run.results.map((r: any) => r.output.startsWith('Paris (before)'))).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
    expect(run.aggregate.passRate).toBe(100);
    await c.waitForCount(
      'select count(*)::int as n from cost_logs where tenant_id = $1 and request_id like $2',
      [c.tenant.tenantId, `eval-${runId}-%`],
      3,
    );
  });

  it('a run interrupted too many times is failed with the reason, never left running', async () => {
    const { runId } = await leftRunning(5, [0]);
    await c.env.services.evals.kick(c.tenant.tenantId);
    const run = await settled(runId);
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(/interrupted 5 times/);
  });

  it('cancelling a running run stops it between batches', async () => {
    c.sim.configure({ latencyMs: 150 });
    try {
      const ds = await dataset(
        Array.from({ length: 16 }, (_, i) => ({
          input: user(`What is the capital of France? ${i}`),
          expected: 'Paris',
        })),
      );
      const started = await post('/v1/evals/runs', {
        datasetId: ds,
        provider: 'openai',
        model: 'gpt-4o-mini',
        scorer: 'exact-match',
      });
      const runId = started.body.runId;
      const deadline = Date.now() + 10_000;
      while ((await get(`/v1/evals/runs/${runId}`)).body.status !== 'running') {
        if (Date.now() > deadline) throw new Error('run never started');
        await new Promise((r) => setTimeout(r, 20));
      }
      const cancelled = await post(`/v1/evals/runs/${runId}/cancel`, {});
      expect(cancelled.body).toMatchObject({ status: 'cancelled', error: 'cancelled on request' });
      await new Promise((r) => setTimeout(r, 600));
      const run = (await get(`/v1/evals/runs/${runId}`)).body;
      expect(run.status).toBe('cancelled');
      // The batch in flight when it was cancelled may finish; no batch starts after it.
      expect(run.completedCases).toBeLessThanOrEqual(8);
      expect(run.completedCases % 4).toBe(0);
    } finally {
      c.sim.configure({ latencyMs: 0 });
    }
  });

  it('a queued run cancelled before it starts stays cancelled', async () => {
    const ds = await dataset([{ input: user('question alpha'), expected: 'x' }]);
    const runId = 'run_queuedcancel';
    await c.query(
      `insert into eval_runs (id, tenant_id, dataset_id, provider, model, scorer, status, total_cases)
       values ($1, $2, $3, 'openai', 'gpt-4o-mini', 'exact-match', 'queued', 1)`,
      [runId, c.tenant.tenantId, ds],
    );
    const res = await post(`/v1/evals/runs/${runId}/cancel`, {});
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('cancelled');
    await c.env.services.evals.kick(c.tenant.tenantId);
    await new Promise((r) => setTimeout(r, 200));
    const run = await get(`/v1/evals/runs/${runId}`);
    expect(run.body).toMatchObject({ status: 'cancelled', completedCases: 0 });
  });
});

describe('OpenAPI', () => {
  it('describes every evals path; starting a run answers 202', async () => {
    const { paths } = (await c.env.http('GET', '/openapi.json')).body;
    for (const [path, method] of [
      ['/v1/evals/datasets', 'post'],
      ['/v1/evals/datasets', 'get'],
      ['/v1/evals/datasets/{id}', 'get'],
      ['/v1/evals/datasets/{id}', 'delete'],
      ['/v1/evals/datasets/{id}/cases', 'post'],
      ['/v1/evals/runs', 'get'],
      ['/v1/evals/runs/{id}', 'get'],
      ['/v1/evals/runs/{id}/cancel', 'post'],
    ] as const) {
      expect(paths[path]?.[method], `${method} ${path}`).toBeDefined();
      expect(Object.keys(paths[path][method].responses)).toContain('402');
    }
    expect(Object.keys(paths['/v1/evals/runs'].post.responses)).toEqual(expect.arrayContaining(['202', '402']));
    expect(paths['/v1/evals/runs'].post.responses['200']).toBeUndefined();
  });
});

describe('tier', () => {
  it('answers 402 insufficient_tier with an upgrade payload below intelligence', async () => {
    const team = await c.env.createTenant('team');
    for (const [method, path, body] of [
      ['GET', '/v1/evals/datasets', undefined],
      ['POST', '/v1/evals/datasets', { name: 'x', jsonl: jsonl([{ input: user('a') }]) }],
      ['POST', '/v1/evals/runs', { datasetId: 'ds_x', provider: 'openai', model: 'gpt-4o' }],
      ['GET', '/v1/evals/runs', undefined],
    ] as const) {
      const res = await c.env.http(method, path, { token: team.token, body });
      expectTypedError(res, 402, 'insufficient_tier');
      expect(res.body.error.upgrade).toMatchObject({ requiredTier: 'intelligence', currentTier: 'team' });
    }
  });
});

describe('security', () => {
  beforeAll(async () => {
    ids.run = (
      await post('/v1/evals/runs', {
        datasetId: ids.dataset,
        provider: 'gateway',
        model: 'classifier',
        scorer: 'exact-match',
      })
    ).body.runId;
  });
  const ctx = (): SecurityContext => ({ owner: c.tenant, other, ids });
  securityMatrix(() => c.env, ctx, [
    { method: 'GET', path: '/v1/evals/datasets' },
    {
      method: 'POST',
      path: '/v1/evals/datasets',
      body: { name: 'x', jsonl: '{"input":[{"role":"user","content":"a"}]}' },
    },
    { method: 'GET', path: (x) => `/v1/evals/datasets/${x.ids.dataset}` },
    { method: 'POST', path: (x) => `/v1/evals/datasets/${x.ids.dataset}/cases`, body: { input: user('a') } },
    { method: 'DELETE', path: (x) => `/v1/evals/datasets/${x.ids.dataset}` },
    { method: 'POST', path: '/v1/evals/runs', body: { datasetId: 'ds_x', provider: 'openai', model: 'gpt-4o' } },
    { method: 'GET', path: '/v1/evals/runs' },
    { method: 'GET', path: (x) => `/v1/evals/runs/${x.ids.run}` },
    { method: 'POST', path: (x) => `/v1/evals/runs/${x.ids.run}/cancel` },
  ]);
  crossTenantMatrix(() => c.env, ctx, [
    { method: 'GET', path: (x) => `/v1/evals/datasets/${x.ids.dataset}` },
    { method: 'POST', path: (x) => `/v1/evals/datasets/${x.ids.dataset}/cases`, body: { input: user('a') } },
    { method: 'DELETE', path: (x) => `/v1/evals/datasets/${x.ids.dataset}` },
    { method: 'GET', path: (x) => `/v1/evals/runs/${x.ids.run}` },
    { method: 'POST', path: (x) => `/v1/evals/runs/${x.ids.run}/cancel` },
  ]);
  it("another tenant's dataset id in a run body answers 404", async () => {
    const body = { datasetId: ids.dataset, provider: 'gateway', model: 'classifier', scorer: 'exact-match' };
    expectTypedError(await post('/v1/evals/runs', body, other.token), 404, 'not_found_error');
  });
  it('another tenant lists none of them', async () => {
    expect((await get('/v1/evals/datasets', other.token)).body.items).toEqual([]);
    expect((await get('/v1/evals/runs', other.token)).body.items).toEqual([]);
  });
});
