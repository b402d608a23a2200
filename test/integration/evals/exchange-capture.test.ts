import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';
import type { TestTenant } from '../../support/harness.js';
import { crossTenantMatrix, expectTypedError, securityMatrix, type SecurityContext } from '../../support/security.js';

// Opt-in exchange capture (per workspace, sampled, its own table and retention) and eval cases
// saved from the request log with expected set to the observed answer.

let c: ChatEnv;
let other: TestTenant;
const ids: Record<string, string> = {};

beforeAll(async () => {
  c = await startChatEnv({
    sim: { replies: [{ whenContains: 'capital of France', reply: 'Paris.' }] },
    env: { GATEWAY_EXPLORATION_RATE: '0' },
  });
  other = await c.env.createTenant();
});
afterAll(() => c.close());

const put = (body: unknown, token = c.tenant.token) => c.env.http('PUT', '/v1/captures/settings', { token, body });
const get = (path: string, token = c.tenant.token) => c.env.http('GET', path, { token });
const post = (path: string, body: unknown, token = c.tenant.token) => c.env.http('POST', path, { token, body });

async function chat(content: string, baseUrl = c.env.baseUrl): Promise<{ id: string; answer: string }> {
  const res = await fetch(`${baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${c.tenant.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content }] }),
  });
  const body = (await res.json()) as any;
  expect(res.status).toBe(200);
  return { id: body._gateway.requestId, answer: body.choices[0].message.content };
}

const captured = (requestId: string) =>
  c.query('select messages, answer from captured_exchanges where tenant_id = $1 and request_id = $2', [
    c.tenant.tenantId,
    requestId,
  ]);

describe('exchange capture', () => {
  it('is off by default: nothing is captured', async () => {
    expect((await get('/v1/captures/settings')).body).toEqual({ enabled: false, sampleRate: 1, retentionDays: 30 });
    const { id } = await chat('What is the capital of France? (before)');
    await new Promise((r) => setTimeout(r, 200));
    expect(await captured(id)).toHaveLength(0);
  });

  it('captures answered calls once enabled, in its own table, and lists them', async () => {
    const res = await put({ enabled: true, retentionDays: 7 });
    expect(res.body).toEqual({ enabled: true, sampleRate: 1, retentionDays: 7 });
    const { id, answer } = await chat('What is the capital of France?');
    expect(answer).toBe('Paris.');
    await c.waitForCount(
      'select count(*)::int as n from captured_exchanges where tenant_id = $1 and request_id = $2',
      [c.tenant.tenantId, id],
      1,
    );
    expect((await captured(id))[0]).toEqual({
      messages: [{ role: 'user', content: 'What is the capital of France?' }],
      answer: 'Paris.',
    });
    ids.request = id;
    const list = await get('/v1/captures?limit=5');
    expect(list.body.items[0]).toMatchObject({ requestId: id, answer: 'Paris.' });
  });

  it('sample rate 0 captures nothing; another node follows the setting through NOTIFY', async () => {
    await put({ sampleRate: 0 });
    const skipped = await chat('What is the capital of France? (unsampled)');
    await new Promise((r) => setTimeout(r, 200));
    expect(await captured(skipped.id)).toHaveLength(0);

    const node = await c.env.addNode();
    await put({ sampleRate: 1 });
    const deadline = Date.now() + 5_000;
    let id = '';
    // A new question each try: a repeated one would be answered from the node's exact cache,
    // and cache hits are never captured.
    for (let attempt = 0; ; attempt++) {
      id = (await chat(`What is the capital of France? (node 2, try ${attempt})`, node.baseUrl)).id;
      await new Promise((r) => setTimeout(r, 100));
      if ((await captured(id)).length) break;
      if (Date.now() > deadline) throw new Error('the second node never captured');
    }
    await put({ enabled: false });
  });

  it('turns captured exchanges into eval cases with expected set to the observed answer', async () => {
    const ds = await post('/v1/evals/datasets', {
      name: 'from the log',
      jsonl: JSON.stringify({ input: [{ role: 'user', content: 'seed' }] }),
    });
    ids.dataset = ds.body.id;
    const res = await post(`/v1/evals/datasets/${ds.body.id}/cases/from-requests`, { requestIds: [ids.request] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.items).toEqual([
      {
        index: 1,
        input: [{ role: 'user', content: 'What is the capital of France?' }],
        expected: 'Paris.',
        metadata: { requestId: ids.request },
      },
    ]);
    const missing = await post(`/v1/evals/datasets/${ds.body.id}/cases/from-requests`, {
      requestIds: [ids.request, 'req_never'],
    });
    expectTypedError(missing, 404, 'not_found_error');
    expect(missing.body.error.message).toMatch(/req_never/);
    expect((await get(`/v1/evals/datasets/${ds.body.id}`)).body.caseCount).toBe(2);
  });

  it('expires captured exchanges past their retention (capture-retention job)', async () => {
    await c.query(
      `insert into captured_exchanges (tenant_id, request_id, messages, answer, created_at)
       values ($1, 'req_old', '[]', 'x', now() - interval '8 days')`,
      [c.tenant.tenantId],
    );
    const run = await post('/v1/admin/scheduler/jobs/capture-retention/run', {});
    expect(run.body).toMatchObject({ outcome: 'succeeded', summary: '1 captured exchanges expired' });
    expect(await captured('req_old')).toHaveLength(0);
    expect(await captured(ids.request!)).toHaveLength(1);
  });

  it('the request log itself holds no prompt text', async () => {
    const cols = await c.query<{ column_name: string }>(
      "select column_name from information_schema.columns where table_name in ('requests', 'cost_logs')",
    );
    expect(cols.map((r) => r.column_name)).not.toEqual(expect.arrayContaining(['messages']));
  });
});

describe('security', () => {
  const ctx = (): SecurityContext => ({ owner: c.tenant, other, ids });
  securityMatrix(() => c.env, ctx, [
    { method: 'GET', path: '/v1/captures/settings' },
    { method: 'PUT', path: '/v1/captures/settings', body: { enabled: true } },
    { method: 'GET', path: '/v1/captures' },
    {
      method: 'POST',
      path: (x) => `/v1/evals/datasets/${x.ids.dataset}/cases/from-requests`,
      body: { requestIds: ['req_x'] },
    },
  ]);
  crossTenantMatrix(() => c.env, ctx, [
    {
      method: 'POST',
      path: (x) => `/v1/evals/datasets/${x.ids.dataset}/cases/from-requests`,
      body: { requestIds: ['req_x'] },
    },
  ]);
  it("another workspace sees none of the captures, nor can it save another's requests as cases", async () => {
    expect((await get('/v1/captures', other.token)).body.items).toEqual([]);
    const ds = await post(
      '/v1/evals/datasets',
      { name: 'x', jsonl: '{"input":[{"role":"user","content":"a"}]}' },
      other.token,
    );
    const res = await post(
      `/v1/evals/datasets/${ds.body.id}/cases/from-requests`,
      { requestIds: [ids.request] },
      other.token,
    );
    expectTypedError(res, 404, 'not_found_error');
  });
  it('only admin tokens change the setting or read captures; saving cases needs the intelligence tier', async () => {
    const app = (await post('/v1/admin/tokens', { name: 'app' })).body.token;
    expectTypedError(await put({ enabled: true }, app), 403, 'permission_error');
    expectTypedError(await get('/v1/captures', app), 403, 'permission_error');
    expect((await get('/v1/captures/settings', app)).status).toBe(200);
    const team = await c.env.createTenant('team');
    expect((await put({ enabled: true }, team.token)).status).toBe(200);
    const res = await post('/v1/evals/datasets/ds_x/cases/from-requests', { requestIds: ['req_x'] }, team.token);
    expectTypedError(res, 402, 'insufficient_tier');
  });
});
