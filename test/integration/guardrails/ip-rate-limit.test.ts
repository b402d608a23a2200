import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';
import { expectTypedError } from '../../support/security.js';

// GATEWAY_IP_RATE_LIMIT_PER_MINUTE: chat and embeddings calls per minute from one client address,
// the address taken from X-Forwarded-For only behind GATEWAY_TRUSTED_PROXY_HOPS trusted proxies.

let c: ChatEnv;

beforeAll(async () => {
  c = await startChatEnv({ env: { GATEWAY_IP_RATE_LIMIT_PER_MINUTE: '3', GATEWAY_TRUSTED_PROXY_HOPS: '1' } });
});
afterAll(() => c.close());

const call = (baseUrl: string, forwardedFor: string | null, token = c.tenant.token) =>
  fetch(`${baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}),
    },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  });

describe('client address rate limit', () => {
  it('counts per forwarded client address, then answers 429 rate_limit_error with Retry-After and no request row', async () => {
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await call(c.env.baseUrl, '203.0.113.7');
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('3');
      remaining.push(res.headers.get('x-ratelimit-remaining')!);
    }
    expect(remaining).toEqual(['2', '1', '0']);
    const refused = await call(c.env.baseUrl, '203.0.113.7');
    expectTypedError({ status: refused.status, body: await refused.json() }, 429, 'rate_limit_error');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    const requestId = refused.headers.get('x-gateway-request-id');
    await new Promise((r) => setTimeout(r, 100));
    expect((await c.query('select count(*)::int n from requests where id = $1', [requestId]))[0].n).toBe(0);
    // Another client is not affected, and a spoofed entry left of the trusted one changes nothing.
    expect((await call(c.env.baseUrl, '198.51.100.1')).status).toBe(200);
    expect((await call(c.env.baseUrl, '198.51.100.99, 203.0.113.7')).status).toBe(429);
  });

  it('is checked before the token: a flood of bad tokens from one address is refused too', async () => {
    for (let i = 0; i < 3; i++) expect((await call(c.env.baseUrl, '192.0.2.50', 'gw_bad')).status).toBe(401);
    expect((await call(c.env.baseUrl, '192.0.2.50', 'gw_bad')).status).toBe(429);
  });

  it('with a token limit too, the headers show whichever limit has fewer requests left', async () => {
    const token = async (rateLimit: number) =>
      (
        await c.env.http('POST', '/v1/admin/tokens', {
          token: c.tenant.token,
          body: { name: `rl${rateLimit}`, rateLimitPerMinute: rateLimit },
        })
      ).body.token as string;
    const loose = await token(100);
    const res = await call(c.env.baseUrl, '203.0.113.80', loose);
    expect(res.status).toBe(200);
    expect([res.headers.get('x-ratelimit-limit'), res.headers.get('x-ratelimit-remaining')]).toEqual(['3', '2']);
    const tight = await token(1);
    const first = await call(c.env.baseUrl, '203.0.113.81', tight);
    expect(first.status).toBe(200);
    expect([first.headers.get('x-ratelimit-limit'), first.headers.get('x-ratelimit-remaining')]).toEqual(['1', '0']);
    const refused = await call(c.env.baseUrl, '203.0.113.81', tight);
    expect(refused.status).toBe(429);
    expect([refused.headers.get('x-ratelimit-limit'), refused.headers.get('x-ratelimit-remaining')]).toEqual([
      '1',
      '0',
    ]);
  });

  it('with no trusted proxy, X-Forwarded-For is ignored and the socket address counts', async () => {
    const node = await c.env.addNode({ GATEWAY_TRUSTED_PROXY_HOPS: '0' });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await call(node.baseUrl, `10.0.0.${i}`)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});
