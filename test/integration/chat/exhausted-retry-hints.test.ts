import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';
import { expectTypedError } from '../../support/security.js';

// When every provider failed, the 502 tells a retrying client (the OpenAI SDKs retry 5xx twice by
// default, and each retry runs the whole fallback chain again) when asking again may help.
// Faults apply to every provider (the fallback chain may go to another family's equivalent model).

let c: ChatEnv;
beforeAll(async () => {
  c = await startChatEnv({ groq: true });
});
afterAll(() => c.close());
beforeEach(() => {
  c.sim.clearFaults();
  // The faults open circuits (a Retry-After opens one until then): each test starts with all closed.
  for (const provider of ['openai', 'groq', 'anthropic', 'gemini']) c.env.services.dataPlane.breakers.reset(provider);
});

const body = (content: string) => ({ model: 'gpt-4.1-mini', messages: [{ role: 'user', content }] });
const upstreamCalls = () => c.sim.requests.length;

describe('a 502 after every provider failed', () => {
  it('passes on the shortest wait the providers asked for as Retry-After', async () => {
    c.sim.setFaults([
      { status: 429, retryAfterSeconds: 7, times: 1 },
      { status: 429, retryAfterSeconds: 3 },
    ]);
    const res = await c.env.http('POST', '/v1/chat/completions', {
      token: c.tenant.token,
      body: body('rate limited everywhere'),
    });
    expectTypedError(res, 502, 'provider_error');
    expect(res.body.error.attempts.length).toBeGreaterThanOrEqual(2);
    expect(res.body.error.attempts.every((a: { status: number }) => a.status === 429)).toBe(true);
    expect(res.headers.get('retry-after')).toBe('3');
    expect(res.headers.get('retry-after-ms')).toBe('3000');
    expect(res.headers.get('x-should-retry')).toBeNull();
  });

  it('says not to retry when every provider refused the account, and the OpenAI SDK then asks once', async () => {
    c.sim.setFaults([{ status: 401 }]);
    const res = await c.env.http('POST', '/v1/chat/completions', {
      token: c.tenant.token,
      body: body('no valid key anywhere'),
    });
    expectTypedError(res, 502, 'provider_error');
    expect(res.headers.get('x-should-retry')).toBe('false');
    expect(res.headers.get('retry-after')).toBeNull();
    const attempts = res.body.error.attempts.length;
    expect(attempts).toBeGreaterThanOrEqual(2);

    const before = upstreamCalls();
    const err = await c
      .openai()
      .withOptions({ maxRetries: 2 })
      .chat.completions.create(body('asked once') as never)
      .catch((e: unknown) => e);
    expect((err as { status?: number }).status).toBe(502);
    // One gateway call's attempts, not three calls'.
    expect(upstreamCalls() - before).toBe(attempts);
  });

  it('leaves a client free to retry failures that may pass', async () => {
    c.sim.setFaults([{ status: 503 }]);
    const res = await c.env.http('POST', '/v1/chat/completions', { token: c.tenant.token, body: body('overloaded') });
    expectTypedError(res, 502, 'provider_error');
    expect(res.headers.get('x-should-retry')).toBeNull();
    expect(res.headers.get('retry-after')).toBeNull();
  });
});
