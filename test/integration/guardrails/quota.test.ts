import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';
import { expectTypedError } from '../../support/security.js';

// The free tier's monthly request quota (GATEWAY_FREE_MONTHLY_REQUESTS), counted across nodes.

let c: ChatEnv;

beforeAll(async () => {
  c = await startChatEnv({ env: { GATEWAY_FREE_MONTHLY_REQUESTS: '6' } });
});
afterAll(() => c.close());

const call = async (baseUrl: string, token: string) => {
  const res = await fetch(`${baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  });
  return { status: res.status, body: (await res.json()) as any };
};

describe('monthly request quota', () => {
  it('answers 429 quota_exhausted once a free workspace used its month, on every node', async () => {
    const free = await c.env.createTenant('free');
    const node = await c.env.addNode({ GATEWAY_FREE_MONTHLY_REQUESTS: '6' });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      statuses.push((await call(i % 2 ? node.baseUrl : c.env.baseUrl, free.token)).status);
      // Each node hears of the other's calls within milliseconds.
      await new Promise((r) => setTimeout(r, 30));
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
    // Announcements usually arrive within milliseconds; under load one may take longer, and the
    // month's committed rows, re-read every second, are the floor each node then counts from.
    await c.waitForCount('select count(*) n from requests where tenant_id = $1', [free.tenantId], 6);
    await new Promise((r) => setTimeout(r, 1_500));
    const refused = await call(c.env.baseUrl, free.token);
    expectTypedError(refused, 429, 'quota_exhausted');
    expect(refused.body.error.message).toContain('6 requests');
    expectTypedError(await call(node.baseUrl, free.token), 429, 'quota_exhausted');
  });

  it('a node started later reads the month so far before its first decision', async () => {
    const free = await c.env.createTenant('free');
    for (let i = 0; i < 6; i++) expect((await call(c.env.baseUrl, free.token)).status).toBe(200);
    await c.waitForCount('select count(*) n from requests where tenant_id = $1', [free.tenantId], 6);
    const late = await c.env.addNode({ GATEWAY_FREE_MONTHLY_REQUESTS: '6' });
    expectTypedError(await call(late.baseUrl, free.token), 429, 'quota_exhausted');
  });

  it('does not apply to paid tiers', async () => {
    const team = await c.env.createTenant('team');
    for (let i = 0; i < 8; i++) expect((await call(c.env.baseUrl, team.token)).status).toBe(200);
  });
});
