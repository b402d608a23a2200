import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ChatEnv, startChatEnv } from '../../support/chat-env.js';

// Spend from real calls: chat completions through the gateway to the simulator, whole and
// streamed, routed by the classifier and pinned. Cost rows carry the routing cell they were
// served in, and /v1/spend/by adds up to cost_logs exactly.

let chat: ChatEnv;

beforeAll(async () => {
  chat = await startChatEnv();
});
afterAll(() => chat?.close());

it('stamps cost rows with their cell and adds them up exactly per dimension', async () => {
  const client = chat.openai();
  await client.chat.completions.create({
    model: '',
    messages: [{ role: 'user', content: 'Write a Python function that reverses a linked list.' }],
  });
  await client.chat.completions.create({
    model: '',
    messages: [{ role: 'user', content: 'Write a short poem about the sea at night.' }],
  });
  const stream = await client.chat.completions.create({
    model: 'openai/gpt-4o-mini',
    stream: true,
    messages: [{ role: 'user', content: 'What is the capital of France?' }],
  });
  for await (const _ of stream);
  const tenantId = chat.tenant.tenantId;
  await chat.waitForCount('select count(*)::int as n from cost_logs where tenant_id = $1', [tenantId], 3);

  const rows = await chat.query<{ request_id: string; task_type: string | null; complexity: string | null }>(
    `select c.request_id, c.task_type, c.complexity, r.task_type as req_task, r.complexity as req_complexity
       from cost_logs c join requests r on r.id = c.request_id where c.tenant_id = $1`,
    [tenantId],
  );
  expect(rows).toHaveLength(3);
  // Each cost row's cell is its request's (null for the pinned call, which skips the classifier).
  for (const r of rows as any[]) expect([r.task_type, r.complexity]).toEqual([r.req_task, r.req_complexity]);
  expect(rows.filter((r) => r.task_type !== null)).toHaveLength(2);

  const [sum] = await chat.query<{ total: number }>(
    'select sum(cost)::float8 as total from cost_logs where tenant_id = $1',
    [tenantId],
  );
  const total = sum!.total;
  expect(total).toBeGreaterThan(0);
  for (const dimension of ['provider', 'model', 'cell', 'token']) {
    const res = await chat.env.http('GET', `/v1/spend/by?dimension=${dimension}&range=24h`, {
      token: chat.tenant.token,
    });
    expect(res.status).toBe(200);
    expect(res.body.totalUsd).toBeCloseTo(total, 12);
    expect(res.body.items.reduce((s: number, i: any) => s + i.calls, 0)).toBe(3);
  }
  const cells = await chat.env.http('GET', '/v1/spend/by?dimension=cell&range=24h', { token: chat.tenant.token });
  const keys = cells.body.items.map((i: any) => i.key);
  expect(keys).toContain('/');
  expect(keys.some((k: string) => k.startsWith('coding/'))).toBe(true);
});

it('shows the workspace budget in the trajectory once one is set', async () => {
  const token = chat.tenant.token;
  expect((await chat.env.http('GET', '/v1/spend/trajectory', { token })).body.budget).toBeNull();
  const set = await chat.env.http('PUT', '/v1/spend/budgets', { token, body: { monthlyUsd: 50 } });
  expect(set.status, JSON.stringify(set.body)).toBe(200);
  const res = await chat.env.http('GET', '/v1/spend/trajectory', { token });
  expect(res.body.budget.monthlyUsd).toBe(50);
  expect(res.body.budget.spentShare).toBeCloseTo(res.body.monthToDateUsd / 50, 4);
});
