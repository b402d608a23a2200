import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';
import type { TestTenant } from '../../support/harness.js';
import { expectTypedError, securityMatrix, type SecurityContext } from '../../support/security.js';

// Workspace budgets: GET/PUT /v1/spend/budgets (team tier), the hard stop (402 budget_exceeded),
// alert thresholds recorded once, and the concurrency bound across two gateway nodes. Budgets are
// stored to 1/100 of a cent, so they are rounded here as the gateway stores them.

const cents100 = (usd: number) => Math.round(usd * 1e4) / 1e4;

let c: ChatEnv;

beforeAll(async () => {
  c = await startChatEnv();
});
afterAll(() => c.close());

const api = (method: string, path: string, token: string, body?: unknown) => c.env.http(method, path, { token, body });

const chatOn = (baseUrl: string, token: string) =>
  fetch(`${baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'count to three' }],
      cache: false,
    }),
  });

async function spentOf(t: TestTenant): Promise<number> {
  const rows = await c.query<{ usd: string | null }>('select sum(cost) usd from cost_logs where tenant_id = $1', [
    t.tenantId,
  ]);
  return Number(rows[0]?.usd ?? 0);
}

async function settle(t: TestTenant): Promise<void> {
  // The log writer commits within milliseconds: wait until two reads a moment apart agree.
  let last = -1;
  for (;;) {
    const now = await spentOf(t);
    if (now === last) return;
    last = now;
    await new Promise((r) => setTimeout(r, 150));
  }
}

describe('budgets', () => {
  it('needs the team tier', async () => {
    const free = await c.env.createTenant('free');
    expectTypedError(await api('GET', '/v1/spend/budgets', free.token), 402, 'insufficient_tier');
    expectTypedError(await api('PUT', '/v1/spend/budgets', free.token, { monthlyUsd: 5 }), 402, 'insufficient_tier');
  });

  it('sets a budget, stops calls with 402 budget_exceeded once spent, records each threshold once', async () => {
    const t = await c.env.createTenant('team');
    const none = await api('GET', '/v1/spend/budgets', t.token);
    expect(none.body).toMatchObject({ monthlyUsd: null, spentUsd: 0, alertsCrossed: [] });
    expect(none.body.month).toMatch(/^\d{4}-\d{2}$/);

    const first = await chatOn(c.env.baseUrl, t.token);
    expect(first.status).toBe(200);
    const perCall = Number(first.headers.get('x-gateway-cost'));
    expect(perCall).toBeGreaterThan(0);
    await settle(t);

    const budget = cents100(4 * perCall);
    const put = await api('PUT', '/v1/spend/budgets', t.token, { monthlyUsd: budget, alertThresholds: [50, 80, 100] });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ monthlyUsd: budget, hardStop: true, alertThresholds: [50, 80, 100] });
    let status = 200;
    let calls = 0;
    while (status === 200 && calls < 20) {
      const res = await chatOn(c.env.baseUrl, t.token);
      status = res.status;
      calls++;
      if (status !== 200) {
        const body = (await res.json()) as { error: { type: string; message: string } };
        expectTypedError({ status, body }, 402, 'budget_exceeded');
        expect(body.error.message).toContain('budget');
      }
    }
    expect(status).toBe(402);
    await settle(t);
    // Calls one at a time: the one that reached the budget was the last admitted.
    expect(await spentOf(t)).toBeGreaterThanOrEqual(budget);
    expect((await spentOf(t)) - budget).toBeLessThanOrEqual(perCall + 1e-9);
    const after = await api('GET', '/v1/spend/budgets', t.token);
    expect(after.body.alertsCrossed.map((a: { thresholdPct: number }) => a.thresholdPct)).toEqual([50, 80, 100]);
    await c.waitForCount(
      `select count(*) n from audit_logs where tenant_id = $1 and action = 'budget.alert'`,
      [t.tenantId],
      3,
    );
    await c.waitForCount(
      `select count(*) n from audit_logs where tenant_id = $1 and action = 'budget.update'`,
      [t.tenantId],
      1,
    );
    // Raising the budget lets calls through again; removing it too.
    await api('PUT', '/v1/spend/budgets', t.token, { monthlyUsd: 100 });
    expect((await chatOn(c.env.baseUrl, t.token)).status).toBe(200);
    const removed = await api('PUT', '/v1/spend/budgets', t.token, { monthlyUsd: null });
    expect(removed.body.monthlyUsd).toBeNull();
  });

  it('200 parallel calls on two nodes overshoot only by what was in flight, and none is admitted after', async () => {
    const t = await c.env.createTenant('team');
    const node = await c.env.addNode();
    const first = await chatOn(c.env.baseUrl, t.token);
    const perCall = Number(first.headers.get('x-gateway-cost'));
    await settle(t);
    const start = await spentOf(t);
    const budget = cents100(start + 5 * perCall);
    await api('PUT', '/v1/spend/budgets', t.token, { monthlyUsd: budget });
    // The other node learns of the budget through NOTIFY.
    await new Promise((r) => setTimeout(r, 200));

    // One burst of 200 (100 per node): all are admitted before any has cost anything, which is
    // the overshoot the guarantee allows (every one was in flight when the budget was reached).
    const burst = await Promise.all(
      Array.from({ length: 200 }, (_, i) => chatOn(i % 2 ? node.baseUrl : c.env.baseUrl, t.token)),
    );
    const admitted = burst.filter((r) => r.status === 200).length;
    expect(burst.every((r) => r.status === 200 || r.status === 402)).toBe(true);
    await Promise.all(burst.map((r) => r.text()));
    await settle(t);
    const spent = await spentOf(t);
    expect(spent - budget).toBeLessThanOrEqual(admitted * perCall + 1e-9);

    // After it: waves of 20 (10 per node), a moment apart; the budget is spent, nothing passes.
    for (let wave = 0; wave < 3; wave++) {
      const res = await Promise.all(
        Array.from({ length: 20 }, (_, i) => chatOn(i % 2 ? node.baseUrl : c.env.baseUrl, t.token)),
      );
      expect(res.map((r) => r.status)).toEqual(Array(20).fill(402));
      await Promise.all(res.map((r) => r.text()));
    }
  });

  it('staggered waves across two nodes stop within one wave of the budget', async () => {
    const t = await c.env.createTenant('team');
    const node = await c.env.addNode();
    const first = await chatOn(c.env.baseUrl, t.token);
    const perCall = Number(first.headers.get('x-gateway-cost'));
    await settle(t);
    const budget = cents100((await spentOf(t)) + 30 * perCall);
    await api('PUT', '/v1/spend/budgets', t.token, { monthlyUsd: budget });
    await new Promise((r) => setTimeout(r, 200));
    let refusedWaves = 0;
    for (let wave = 0; wave < 10 && refusedWaves < 2; wave++) {
      const res = await Promise.all(
        Array.from({ length: 10 }, (_, i) => chatOn(i % 2 ? node.baseUrl : c.env.baseUrl, t.token)),
      );
      await Promise.all(res.map((r) => r.text()));
      if (res.every((r) => r.status === 402)) refusedWaves++;
      // A moment for the other node to hear of the costs (announced within milliseconds).
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(refusedWaves).toBe(2);
    await settle(t);
    // At most the wave in flight when the budget was reached went over it.
    expect((await spentOf(t)) - budget).toBeLessThanOrEqual(10 * perCall + 1e-9);
  });
});

describe('security', () => {
  let other: TestTenant;
  beforeAll(async () => {
    other = await c.env.createTenant();
  });
  const ctx = (): SecurityContext => ({ owner: c.tenant, other, ids: {} });
  securityMatrix(() => c.env, ctx, [
    { method: 'GET', path: '/v1/spend/budgets' },
    { method: 'PUT', path: '/v1/spend/budgets', body: { monthlyUsd: 5 } },
  ]);
  it('refuses bad bodies with 400', async () => {
    for (const body of [
      { monthlyUsd: -1 },
      { monthlyUsd: 'x' },
      { monthlyUsd: 5, extra: true },
      { monthlyUsd: 5, alertThresholds: [0] },
    ])
      expectTypedError(await api('PUT', '/v1/spend/budgets', c.tenant.token, body), 400, 'invalid_request_error');
  });
});
