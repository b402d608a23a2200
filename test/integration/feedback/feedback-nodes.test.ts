import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';

// Two gateway nodes on one database: a call answered by one node can be rated at once on the
// other, while the first node's log writer still holds its request row (here for up to 300 ms).

let c: ChatEnv;
let other: { baseUrl: string };
beforeAll(async () => {
  c = await startChatEnv({ env: { GATEWAY_LOG_FLUSH_MS: '300' } });
  other = await c.env.addNode();
}, 60_000);
afterAll(() => c.close());

describe('feedback on another node', () => {
  it('finds a request the answering node has not written yet', async () => {
    const answered = await c.env.http('POST', '/v1/chat/completions', {
      token: c.tenant.token,
      body: { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'rate me elsewhere' }] },
    });
    const requestId = answered.body._gateway.requestId;
    const res = await fetch(`${other.baseUrl}/v1/feedback`, {
      method: 'POST',
      headers: { authorization: `Bearer ${c.tenant.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ requestId, score: 4 }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ requestId, score: 4, provider: 'openai', model: 'gpt-4o-mini' });
  });

  it('still answers 404 for an id no node made', async () => {
    const res = await fetch(`${other.baseUrl}/v1/feedback`, {
      method: 'POST',
      headers: { authorization: `Bearer ${c.tenant.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ requestId: 'req_nosuchrequest', score: 4 }),
    });
    expect(res.status).toBe(404);
  });
});
