import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';
import { expectTypedError } from '../../support/security.js';

// A token's spend limit: every cost row made with the token counts (token_spend, kept by a trigger
// on cost_logs), the call that crosses the limit completes, and later chat calls get 402
// spend_limit_error until the limit is raised or removed.

let c: ChatEnv;
beforeAll(async () => {
  // gpt-4o at $10 per million output tokens: 400 output tokens cost $0.004 a call.
  c = await startChatEnv({ sim: { outputTokens: 400 } });
});
afterAll(() => c.close());

const MODEL = 'openai/gpt-4o';
const user = [{ role: 'user', content: 'Write a long story about a lighthouse.' }];
// temperature > 0 keeps every call out of the exact cache, so each one is a paid upstream call.
const post = (token: string, body: Record<string, unknown> = {}) =>
  c.env.http('POST', '/v1/chat/completions', {
    token,
    body: { model: MODEL, messages: user, temperature: 0.7, ...body },
  });

async function createToken(body: Record<string, unknown>): Promise<{ id: string; token: string }> {
  const res = await c.env.http('POST', '/v1/admin/tokens', {
    token: c.tenant.token,
    body: { name: 'spender', ...body },
  });
  expect(res.status).toBe(200);
  return res.body;
}

const costRowsOf = async (tokenId: string) =>
  Number(
    (await c.query<{ usd: string | null }>('select sum(cost) as usd from cost_logs where token_id = $1', [tokenId]))[0]!
      .usd ?? 0,
  );

async function listed(id: string): Promise<{ spentUsd: number; spendLimitUsd: number | null }> {
  const res = await c.env.http('GET', '/v1/admin/tokens', { token: c.tenant.token });
  return res.body.items.find((t: { id: string }) => t.id === id);
}

describe('per-token spend limit', () => {
  it('refuses calls with 402 spend_limit_error once the token has spent its limit', async () => {
    const { id, token } = await createToken({ spendLimitUsd: 0.006 });
    expect((await listed(id)).spentUsd).toBe(0);

    const first = await post(token);
    expect(first.status).toBe(200);
    const firstCost = first.body._gateway.cost as number;
    expect(firstCost).toBeGreaterThan(0.003);
    expect(firstCost).toBeLessThan(0.006);

    // Streamed calls count too; this one crosses the limit and still completes.
    const stream = await c
      .openai(token)
      .chat.completions.create({ model: MODEL, messages: user as never, temperature: 0.7, stream: true });
    let chunks = 0;
    for await (const _ of stream) chunks++;
    expect(chunks).toBeGreaterThan(1);

    const refused = await post(token);
    expectTypedError(refused, 402, 'spend_limit_error');
    expect(refused.body.error.message).toContain('spend limit');

    // The committed figure: the token's cost rows, summed by the trigger into token_spend.
    await c.waitForCount('select count(*)::int as n from cost_logs where token_id = $1', [id], 2);
    const rows = await costRowsOf(id);
    expect(rows).toBeGreaterThan(0.006);
    expect((await listed(id)).spentUsd).toBeCloseTo(rows, 10);
    // A refused call is not logged and costs nothing.
    await c.waitForCount('select count(*)::int as n from requests where token_id = $1', [id], 2);
  });

  it('a raised limit lets the token call again, a lowered one refuses it at once; other tokens are not affected', async () => {
    const { id, token } = await createToken({ spendLimitUsd: 0.001 });
    expect((await post(token)).status).toBe(200);
    expectTypedError(await post(token), 402, 'spend_limit_error');
    await c.waitForCount('select count(*)::int as n from cost_logs where token_id = $1', [id], 1);

    // A token change reloads the token from the database: what it spent is read back from token_spend.
    const raised = await c.env.http('PATCH', `/v1/admin/tokens/${id}`, {
      token: c.tenant.token,
      body: { spendLimitUsd: 1 },
    });
    expect(raised.status).toBe(200);
    expect(raised.body.spentUsd).toBeCloseTo(await costRowsOf(id), 10);
    expect((await post(token)).status).toBe(200);
    await c.waitForCount('select count(*)::int as n from cost_logs where token_id = $1', [id], 2);

    const lowered = await c.env.http('PATCH', `/v1/admin/tokens/${id}`, {
      token: c.tenant.token,
      body: { spendLimitUsd: 0.002 },
    });
    expect(lowered.body.spentUsd).toBeGreaterThan(0.002);
    expectTypedError(await post(token), 402, 'spend_limit_error');

    const removed = await c.env.http('PATCH', `/v1/admin/tokens/${id}`, {
      token: c.tenant.token,
      body: { spendLimitUsd: null },
    });
    expect(removed.body.spendLimitUsd).toBeNull();
    expect((await post(token)).status).toBe(200);

    // The tenant's own token has no limit and keeps working.
    expect((await post(c.tenant.token)).status).toBe(200);
  });

  it('spend written by another gateway process (a cost row committed elsewhere) is enforced after the next reload', async () => {
    const { id, token } = await createToken({ spendLimitUsd: 0.5 });
    expect((await post(token)).status).toBe(200);
    await c.query(
      `insert into cost_logs (tenant_id, request_id, token_id, provider, model, input_tokens, output_tokens, cost, status, created_at)
       values ($1, 'req_elsewhere', $2, 'openai', 'gpt-4o', 10, 50000, 0.5, 'ok', now())`,
      [c.tenant.tenantId, id],
    );
    // The cached token is re-read within about two seconds.
    const deadline = Date.now() + 5_000;
    let status = 200;
    while (Date.now() < deadline && status === 200) {
      await new Promise((r) => setTimeout(r, 250));
      status = (await post(token, { max_tokens: 1 })).status;
    }
    expect(status).toBe(402);
    expect((await listed(id)).spentUsd).toBeGreaterThan(0.5);
  });

  it('a stream that breaks after its first byte counts against the limit at once', async () => {
    const { id, token } = await createToken({ spendLimitUsd: 0.0001 });
    c.sim.setFaults([{ format: 'openai', model: 'gpt-4o', cutStreamAfterChunks: 40 }]);
    try {
      const res = await fetch(`${c.env.baseUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, messages: user, temperature: 0.7, stream: true }),
      });
      expect(await res.text()).toContain('event: error');
    } finally {
      c.sim.setFaults([]);
    }
    // Refused by the next call, made at once: the process counted the broken stream's cost itself
    // rather than waiting for its cost row to reach token_spend (re-read every second).
    expectTypedError(await post(token), 402, 'spend_limit_error');
    await c.waitForCount('select count(*)::int as n from cost_logs where token_id = $1', [id], 1);
    expect(await costRowsOf(id)).toBeGreaterThanOrEqual(0.0001);
  });

  it('a call refused for its spend limit does not use up a rate-limit slot', async () => {
    const { id, token } = await createToken({ spendLimitUsd: 0.001, rateLimitPerMinute: 2 });
    // Takes the first of two slots, and spends the limit.
    expect((await post(token)).status).toBe(200);
    for (let i = 0; i < 3; i++) expectTypedError(await post(token), 402, 'spend_limit_error');
    await c.waitForCount('select count(*)::int as n from cost_logs where token_id = $1', [id], 1);

    // Once the limit is raised the second slot is still there.
    const raised = await c.env.http('PATCH', `/v1/admin/tokens/${id}`, {
      token: c.tenant.token,
      body: { spendLimitUsd: 1 },
    });
    expect(raised.status).toBe(200);
    expect((await post(token)).status).toBe(200);
  });

  it('a limit the column cannot hold is a 400, not a silent zero', async () => {
    const res = await c.env.http('POST', '/v1/admin/tokens', {
      token: c.tenant.token,
      body: { name: 'tiny', spendLimitUsd: 0.00001 },
    });
    expectTypedError(res, 400, 'invalid_request_error');
  });
});

describe('a monthly spend limit', () => {
  /** A paid call of the token's, dated at the start of last month (UTC). */
  async function spentLastMonth(tokenId: string, usd: number): Promise<void> {
    const now = new Date();
    const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 3));
    await c.query(
      `insert into cost_logs (tenant_id, request_id, token_id, provider, model, input_tokens, output_tokens, cost, status, created_at, seq)
       values ($1, $2, $3, 'openai', 'gpt-4o', 10, 10, $4, 'ok', $5, 0)`,
      [c.tenant.tenantId, `req_last_month_${tokenId}`, tokenId, usd, lastMonth],
    );
  }

  it("counts this UTC month only: last month's spend does not count, this month's does", async () => {
    const monthly = await createToken({ spendLimitUsd: 0.006, spendLimitPeriod: 'monthly' });
    const allTime = await createToken({ spendLimitUsd: 0.006 });
    await spentLastMonth(monthly.id, 1);
    await spentLastMonth(allTime.id, 1);

    expect((await listed(monthly.id)) as unknown).toMatchObject({ spendLimitPeriod: 'monthly', spentUsd: 1 });
    // The all-time limit counts last month's dollar; the monthly one starts from 0.
    expectTypedError(await post(allTime.token), 402, 'spend_limit_error');
    expect((await post(monthly.token)).status).toBe(200);
    expect((await post(monthly.token)).status).toBe(200);
    const refused = await post(monthly.token);
    expectTypedError(refused, 402, 'spend_limit_error');
    expect(refused.body.error.message).toContain('monthly spend limit');

    // Switched to monthly: last month's dollar no longer counts.
    const patched = await c.env.http('PATCH', `/v1/admin/tokens/${allTime.id}`, {
      token: c.tenant.token,
      body: { spendLimitPeriod: 'monthly' },
    });
    expect(patched.body.spendLimitPeriod).toBe('monthly');
    expect((await post(allTime.token)).status).toBe(200);
  });

  it('refuses an unknown period with a 400 naming the field', async () => {
    const res = await c.env.http('POST', '/v1/admin/tokens', {
      token: c.tenant.token,
      body: { name: 'x', spendLimitUsd: 1, spendLimitPeriod: 'weekly' },
    });
    expectTypedError(res, 400, 'invalid_request_error');
    expect(res.body.error.message).toContain('spendLimitPeriod');
  });
});
