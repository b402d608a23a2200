import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';
import { expectTypedError } from '../../support/security.js';

// Fallback, Retry-After, the circuit breaker, timeouts and stream failures, under faults injected
// in the simulator. groq is configured as a second OpenAI-format host serving the same model ids.

let c: ChatEnv;
beforeAll(async () => {
  c = await startChatEnv({ groq: true, env: { GATEWAY_UPSTREAM_TIMEOUT_MS: '1500' } });
});
afterAll(() => c.close());
beforeEach(() => {
  c.sim.clearFaults();
  c.sim.configure({ chunkDelayMs: 0 });
});

const user = (content: string) => [{ role: 'user' as const, content }];

describe('fallback', () => {
  it('retries the same model on another provider after a 503, and says so', async () => {
    c.sim.setFaults([{ format: 'openai', model: 'gpt-4.1-mini', status: 503, times: 1 }]);
    const { data, response } = await c
      .openai()
      .chat.completions.create({ model: 'gpt-4.1-mini', messages: user('fallback please') })
      .withResponse();
    const gw = (data as any)._gateway;
    expect(gw.routing.usedFallback).toBe(true);
    expect(gw.model).toBe('gpt-4.1-mini');
    expect(gw.provider).toBe('groq');
    const errors = JSON.parse(response.headers.get('x-gateway-errors')!);
    expect(errors).toEqual([expect.objectContaining({ provider: 'openai', model: 'gpt-4.1-mini', status: 503 })]);

    // One request row; one cost row per real upstream call (the failed one costs nothing).
    await c.waitForCount('select count(*) n from cost_logs where request_id = $1', [gw.requestId], 2);
    const costs = await c.query(
      'select provider, status, cost::float8 cost from cost_logs where request_id = $1 order by id',
      [gw.requestId],
    );
    expect(costs.map((r) => [r.provider, r.status])).toEqual([
      ['openai', 'error'],
      ['groq', 'ok'],
    ]);
    expect(costs[0].cost).toBe(0);
    const [row] = await c.query('select used_fallback, provider from requests where id = $1', [gw.requestId]);
    expect(row).toEqual({ used_fallback: true, provider: 'groq' });
  });

  it('falls back to an equivalent model when no other provider serves the same id', async () => {
    c.sim.setFaults([{ format: 'anthropic', model: 'claude-3-5-haiku-latest', status: 529, times: 1 }]);
    const res: any = await c
      .openai()
      .chat.completions.create({ model: 'anthropic/claude-3-5-haiku-latest', messages: user('equivalent please') });
    expect(res._gateway.routing.usedFallback).toBe(true);
    expect(res._gateway.provider).not.toBe('anthropic');
    expect(res.choices[0].message.content).toBeTruthy();
  });

  it('falls back on a connection reset and on a timeout', async () => {
    c.sim.setFaults([{ format: 'openai', model: 'gpt-4.1-nano', resetConnection: true, times: 1 }]);
    const a: any = await c.openai().chat.completions.create({ model: 'gpt-4.1-nano', messages: user('reset') });
    expect(a._gateway.routing.usedFallback).toBe(true);

    c.sim.setFaults([{ format: 'openai', model: 'o3-mini', latencyMs: 5_000, times: 1 }]);
    const started = Date.now();
    const b: any = await c.openai().chat.completions.create({ model: 'o3-mini', messages: user('slow') });
    expect(b._gateway.routing.usedFallback).toBe(true);
    expect(Date.now() - started).toBeLessThan(4_500);
  });

  it('does not fall back on a request the provider rejects as invalid', async () => {
    c.sim.setFaults([{ format: 'gemini', model: 'gemini-2.5-pro', status: 400, times: 1 }]);
    const res = await c.env.http('POST', '/v1/chat/completions', {
      token: c.tenant.token,
      body: { model: 'gemini/gemini-2.5-pro', messages: user('bad') },
    });
    expectTypedError(res, 400, 'invalid_request_error');
    expect(res.body.error.message).toContain('gemini');
  });

  it('answers 502 provider_error when every provider fails, and logs the request as an error', async () => {
    c.sim.setFaults([{ status: 500 }]);
    const res = await c.env.http('POST', '/v1/chat/completions', {
      token: c.tenant.token,
      body: { model: 'gpt-4o', messages: user('doomed') },
    });
    expectTypedError(res, 502, 'provider_error');
    expect(res.body.error.attempts.length).toBeGreaterThanOrEqual(2);
    const id = res.headers.get('x-gateway-request-id');
    await c.waitForCount('select count(*) n from requests where id = $1 and status = $2', [id, 'error'], 1);
  });
});

describe('a malformed 200 answer', () => {
  const breakers = () => c.env.services.dataPlane.breakers;
  // Each test starts and leaves with closed circuits, so failures are counted from zero and do
  // not open a circuit for the tests after.
  const closeCircuits = () => {
    for (const p of ['openai', 'groq', 'anthropic', 'gemini']) breakers().success(p);
  };
  beforeEach(closeCircuits);
  afterEach(closeCircuits);

  it.each(['not-json', 'no-choices', 'empty-choices', 'no-message'] as const)(
    "(%s) is the provider's fault: the next target serves, and the circuit counts it",
    async (malformedAnswer) => {
      c.sim.setFaults([{ format: 'openai', model: 'gpt-4.1-mini', malformedAnswer, times: 1 }]);
      const { data, response } = await c
        .openai()
        .chat.completions.create({ model: 'openai/gpt-4.1-mini', messages: user(`malformed ${malformedAnswer}`) })
        .withResponse();
      const gw = (data as any)._gateway;
      expect(gw).toMatchObject({ provider: 'groq', model: 'gpt-4.1-mini', routing: { usedFallback: true } });
      expect(JSON.parse(response.headers.get('x-gateway-errors')!)).toEqual([
        expect.objectContaining({ provider: 'openai', status: 200 }),
      ]);
      expect(breakers().snapshot().openai?.consecutiveFailures).toBe(1);
      // The same question again is answered afresh: nothing broken was cached.
      c.sim.setFaults([{ format: 'openai', model: 'gpt-4.1-mini', malformedAnswer, times: 1 }]);
      const again = await c
        .openai()
        .chat.completions.create({ model: 'openai/gpt-4.1-mini', messages: user(`malformed ${malformedAnswer}`) })
        .withResponse();
      expect(again.response.headers.get('x-gateway-cache')).toBeNull();
    },
  );

  it.each([408, 409, 402])(
    "a provider's %i is its own trouble (a timeout, a conflict, no credit left): the next target serves, and the circuit counts it",
    async (status) => {
      c.sim.setFaults([{ format: 'openai', model: 'gpt-4.1-mini', status, times: 1 }]);
      const { data, response } = await c
        .openai()
        .chat.completions.create({ model: 'openai/gpt-4.1-mini', messages: user(`status ${status}`) })
        .withResponse();
      expect((data as any)._gateway).toMatchObject({ provider: 'groq', routing: { usedFallback: true } });
      expect(JSON.parse(response.headers.get('x-gateway-errors')!)).toEqual([
        expect.objectContaining({ provider: 'openai', status }),
      ]);
      expect(breakers().snapshot().openai?.consecutiveFailures).toBe(1);
    },
  );

  it('falls back in a stream too', async () => {
    c.sim.setFaults([
      { format: 'openai', model: 'gpt-4.1-mini', endpoint: 'stream', malformedAnswer: 'not-json', times: 1 },
    ]);
    const stream = await c
      .openai()
      .chat.completions.create({ model: 'openai/gpt-4.1-mini', messages: user('malformed stream'), stream: true });
    let last: any;
    for await (const chunk of stream) last = chunk;
    expect(last._gateway).toMatchObject({ provider: 'groq', routing: { usedFallback: true } });
  });

  it('from every candidate is 502 provider_error, logged without used_fallback', async () => {
    c.sim.setFaults([{ malformedAnswer: 'not-json' }]);
    const res = await c.env.http('POST', '/v1/chat/completions', {
      token: c.tenant.token,
      body: { model: 'gpt-4.1-mini', messages: user('all broken') },
    });
    expectTypedError(res, 502, 'provider_error');
    expect(res.body.error.attempts.length).toBeGreaterThanOrEqual(2);
    const id = res.headers.get('x-gateway-request-id');
    await c.waitForCount('select count(*) n from requests where id = $1', [id], 1);
    const [row] = await c.query('select status, error_type, used_fallback from requests where id = $1', [id]);
    expect(row).toEqual({ status: 'error', error_type: 'provider_error', used_fallback: false });

    const streamed = await c.env.http('POST', '/v1/chat/completions', {
      token: c.tenant.token,
      body: { model: 'gpt-4.1-mini', messages: user('all broken, streamed'), stream: true },
    });
    expectTypedError(streamed, 502, 'provider_error');
  });
});

describe('used_fallback on calls that failed', () => {
  it('is false for a stream that fell back and then broke mid-way', async () => {
    c.sim.setFaults([
      { format: 'openai', model: 'gpt-4.1', endpoint: 'stream', status: 502, times: 1 },
      { format: 'openai', model: 'gpt-4.1', cutStreamAfterChunks: 3 },
    ]);
    const res = await fetch(`${c.env.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${c.tenant.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-4.1', messages: user('fall back, then break'), stream: true }),
    });
    expect(res.headers.get('x-gateway-provider')).toBe('groq');
    expect(await res.text()).toContain('event: error');
    const id = res.headers.get('x-gateway-request-id');
    await c.waitForCount('select count(*) n from requests where id = $1', [id], 1);
    const [row] = await c.query('select status, provider, used_fallback from requests where id = $1', [id]);
    expect(row).toEqual({ status: 'error', provider: 'groq', used_fallback: false });
  });

  it('is false for a call whose fallback targets failed or refused the request', async () => {
    // openai answers 503, its fallback groq refuses the request (400): that says groq cannot serve
    // it, not that the request is bad, so the next candidate (gemini) is tried; it fails too.
    c.sim.setFaults([
      { format: 'openai', model: 'gpt-4.1', endpoint: 'chat', status: 503, times: 1 },
      { format: 'openai', model: 'gpt-4.1', endpoint: 'chat', status: 400, times: 1 },
      { format: 'gemini', endpoint: 'chat', status: 503, times: 1 },
    ]);
    const res = await c.env.http('POST', '/v1/chat/completions', {
      token: c.tenant.token,
      body: { model: 'openai/gpt-4.1', messages: user('fall back, then be refused') },
    });
    expectTypedError(res, 502, 'provider_error');
    expect(res.body.error.attempts.map((a: any) => [a.provider, a.status])).toEqual([
      ['openai', 503],
      ['groq', 400],
      ['gemini', 503],
    ]);
    const id = res.headers.get('x-gateway-request-id');
    await c.waitForCount('select count(*) n from requests where id = $1', [id], 1);
    const [row] = await c.query('select status, used_fallback from requests where id = $1', [id]);
    expect(row).toEqual({ status: 'error', used_fallback: false });
  });

  it('serves from the next candidate after a fallback refused the request', async () => {
    c.sim.setFaults([
      { format: 'openai', model: 'gpt-4.1', endpoint: 'chat', status: 503, times: 1 },
      { format: 'openai', model: 'gpt-4.1', endpoint: 'chat', status: 400, times: 1 },
    ]);
    const { data, response } = await c
      .openai()
      .chat.completions.create({ model: 'openai/gpt-4.1', messages: user('refused by groq, served by gemini') })
      .withResponse();
    expect((data as any)._gateway).toMatchObject({ provider: 'gemini', routing: { usedFallback: true } });
    expect(JSON.parse(response.headers.get('x-gateway-errors')!).map((e: any) => [e.provider, e.status])).toEqual([
      ['openai', 503],
      ['groq', 400],
    ]);
  });

  it('ends the call when the model the caller named refuses the request', async () => {
    c.sim.setFaults([{ format: 'openai', model: 'gpt-4.1', endpoint: 'chat', status: 400, times: 1 }]);
    const res = await c.env.http('POST', '/v1/chat/completions', {
      token: c.tenant.token,
      body: { model: 'openai/gpt-4.1', messages: user('refused at once') },
    });
    expectTypedError(res, 400, 'invalid_request_error');
    expect(res.body.error.message).toContain('openai rejected the request');
  });
});

describe('a fallback target that cannot take the request', () => {
  // gpt-4.1-nano falls back to groq (same id), then to gemini-2.0-flash, which cannot fetch an
  // image from an arbitrary URL: that rules gemini out, it does not turn the call into a 400.
  const body = (stream: boolean) => ({
    model: 'openai/gpt-4.1-nano',
    stream,
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is in this picture?' },
          { type: 'image_url', image_url: { url: 'https://images.example.com/cat.png' } },
        ],
      },
    ],
  });

  for (const stream of [false, true]) {
    it(`is ruled out after the named target failed${stream ? ' (stream)' : ''}: 502 with every attempt, not a 400`, async () => {
      const { pipeline } = c.env.services.dataPlane;
      const messages = body(stream).messages;
      const plan = await pipeline.plan({
        tenantId: c.tenant.tenantId,
        body: body(stream),
        messages,
        headerHints: {},
      } as any);
      expect(plan.candidates.map((t) => `${t.provider}/${t.model}`)).toEqual([
        'openai/gpt-4.1-nano',
        'groq/gpt-4.1-nano',
        'gemini/gemini-2.0-flash',
      ]);

      c.sim.setFaults([{ format: 'openai', model: 'gpt-4.1-nano', status: 503 }]);
      c.sim.resetRequests();
      const res = await c.env.http('POST', '/v1/chat/completions', { token: c.tenant.token, body: body(stream) });
      expectTypedError(res, 502, 'provider_error');
      const attempts = res.body.error.attempts.map((a: any) => [a.provider, a.status]);
      expect(attempts).toEqual([
        ['openai', 503],
        ['groq', 503],
        ['gemini', 0],
      ]);
      expect(res.body.error.attempts[2].message).toContain('cannot fetch images from URLs');
      expect(c.sim.requests.some((r) => r.format === 'gemini')).toBe(false);
    });
  }

  it('ends the call with a 400 when the caller named that target', async () => {
    const res = await c.env.http('POST', '/v1/chat/completions', {
      token: c.tenant.token,
      body: { ...body(false), model: 'gemini/gemini-2.0-flash' },
    });
    expectTypedError(res, 400, 'invalid_request_error');
    expect(res.body.error.message).toContain('could not be sent to gemini');
  });
});

describe('a call every target failed', () => {
  it.each([false, true])(
    'is logged under the last target tried, not a candidate the breakers skipped (stream %s)',
    async (stream) => {
      const { breakers } = c.env.services.dataPlane;
      const resetAll = () => Object.keys(breakers.snapshot()).forEach((p) => breakers.reset(p));
      resetAll();
      c.sim.setFaults([{ status: 500 }]);
      const body = { model: 'gpt-4o', stream, messages: user(`all fail ${stream}`) };
      const first = await c.env.http('POST', '/v1/chat/completions', { token: c.tenant.token, body });
      expectTypedError(first, 502, 'provider_error');
      const planned = first.body.error.attempts as Array<{ provider: string; model: string }>;
      expect(planned.length).toBeGreaterThanOrEqual(3);
      const skipped = planned[planned.length - 1]!;
      try {
        // The plan's last candidate is skipped from now on: its circuit is open.
        for (let i = 0; i < 5; i++) breakers.failure(skipped.provider, 60_000);
        const res = await c.env.http('POST', '/v1/chat/completions', { token: c.tenant.token, body });
        expectTypedError(res, 502, 'provider_error');
        const attempts = res.body.error.attempts as Array<{ provider: string; model: string }>;
        expect(attempts.map((a) => a.provider)).not.toContain(skipped.provider);
        const last = attempts[attempts.length - 1]!;
        const id = res.headers.get('x-gateway-request-id');
        await c.waitForCount(
          'select count(*) n from requests where id = $1 and provider = $2 and model = $3 and status = $4',
          [id, last.provider, last.model, 'error'],
          1,
        );
      } finally {
        // Every provider failed twice here: leave no circuit counting that against later tests.
        resetAll();
      }
    },
  );
});

describe('circuit breaker and Retry-After', () => {
  it('stops sending to a provider that answered 429 with Retry-After until it is due', async () => {
    c.sim.setFaults([{ format: 'gemini', status: 429, retryAfterSeconds: 30, times: 1 }]);
    const first: any = await c
      .openai()
      .chat.completions.create({ model: 'gemini/gemini-2.5-flash', messages: user('rate limited') });
    expect(first._gateway.routing.usedFallback).toBe(true);
    const providers = await c.env.http('GET', '/v1/providers', { token: c.tenant.token });
    expect(providers.body.items.find((p: any) => p.name === 'gemini').circuit.state).toBe('open');

    c.sim.resetRequests();
    const second: any = await c
      .openai()
      .chat.completions.create({ model: 'gemini/gemini-2.5-flash', messages: user('still cooling down') });
    expect(second._gateway.provider).not.toBe('gemini');
    expect(c.sim.requests.some((r) => r.format === 'gemini')).toBe(false);
  });

  it('opens after repeated failures and probes the provider back', async () => {
    const { breakers } = c.env.services.dataPlane;
    c.sim.setFaults([{ format: 'anthropic', model: 'claude-opus-4-1', status: 503 }]);
    for (let i = 0; i < 5; i++) {
      await c
        .openai()
        .chat.completions.create({ model: 'anthropic/claude-opus-4-1', messages: user(`fail ${i}`) })
        .catch(() => undefined);
    }
    expect(breakers.state('anthropic')).toBe('open');
    // Pretend the cool-down passed: the next call is a probe, and success closes the circuit.
    (breakers as any).circuits.get('anthropic').openUntil = Date.now() - 1;
    c.sim.clearFaults();
    expect(breakers.state('anthropic')).toBe('half-open');
    const res: any = await c
      .openai()
      .chat.completions.create({ model: 'anthropic/claude-opus-4-1', messages: user('probe') });
    expect(res._gateway.provider).toBe('anthropic');
    expect(breakers.state('anthropic')).toBe('closed');
  });
});

describe('a half-open circuit', () => {
  const closeCircuits = () => {
    for (const p of ['openai', 'groq', 'anthropic', 'gemini']) c.env.services.dataPlane.breakers.success(p);
  };
  beforeEach(closeCircuits);
  afterEach(closeCircuits);

  /** An OpenAI model whose fallback candidates include Gemini (the catalog decides which). */
  async function openaiModelFallingBackToGemini(): Promise<string> {
    const { pipeline, registry } = c.env.services.dataPlane;
    const models = registry.get('openai')!.models;
    for (const model of models) {
      const messages = user('which candidates');
      const plan = await pipeline.plan({
        tenantId: c.tenant.tenantId,
        body: { model: `openai/${model}`, messages },
        messages,
        headerHints: {},
      } as any);
      if (plan.candidates.some((t) => t.provider === 'gemini')) return `openai/${model}`;
    }
    throw new Error('no OpenAI model lists Gemini among its fallbacks');
  }

  it('is probed again after a request that only listed it as a fallback', async () => {
    const { breakers } = c.env.services.dataPlane;
    const model = await openaiModelFallingBackToGemini();
    c.sim.setFaults([{ format: 'gemini', status: 503, retryAfterSeconds: 1, times: 1 }]);
    const opened: any = await c
      .openai()
      .chat.completions.create({ model: 'gemini/gemini-2.5-flash', messages: user('open the circuit') });
    expect(opened._gateway.provider).not.toBe('gemini');
    expect(breakers.state('gemini')).toBe('open');
    await new Promise((r) => setTimeout(r, 1_100));
    expect(breakers.state('gemini')).toBe('half-open');

    // Gemini is only a fallback here: openai serves, and gemini's probe is not taken.
    const listed: any = await c.openai().chat.completions.create({ model, messages: user('served by openai') });
    expect(listed._gateway.provider).toBe('openai');

    c.sim.resetRequests();
    const probe: any = await c
      .openai()
      .chat.completions.create({ model: 'gemini/gemini-2.5-flash', messages: user('probe gemini') });
    expect(probe._gateway.provider).toBe('gemini');
    expect(breakers.state('gemini')).toBe('closed');
  });

  it('is probed again after a probe whose client went away', async () => {
    const { breakers } = c.env.services.dataPlane;
    c.sim.setFaults([
      { format: 'gemini', status: 503, retryAfterSeconds: 1, times: 1 },
      { format: 'gemini', hang: true, times: 1 },
    ]);
    await c.openai().chat.completions.create({ model: 'gemini/gemini-2.5-flash', messages: user('open it') });
    expect(breakers.state('gemini')).toBe('open');
    await new Promise((r) => setTimeout(r, 1_100));

    // The probe hangs and its client leaves: no verdict on gemini.
    const closedRows = 'select count(*) n from requests where tenant_id = $1 and status = $2';
    const [closedBefore] = await c.query(closedRows, [c.tenant.tenantId, 'client_closed']);
    c.sim.resetRequests();
    const controller = new AbortController();
    const abandoned = c
      .openai()
      .chat.completions.create(
        { model: 'gemini/gemini-2.5-flash', messages: user('walk away') },
        { signal: controller.signal },
      );
    while (!c.sim.requests.some((r) => r.format === 'gemini')) await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    await expect(abandoned).rejects.toThrow();
    // The gateway has seen the client leave once the call is logged.
    await c.waitForCount(closedRows, [c.tenant.tenantId, 'client_closed'], Number(closedBefore.n) + 1);

    const next: any = await c
      .openai()
      .chat.completions.create({ model: 'gemini/gemini-2.5-flash', messages: user('probe again') });
    expect(next._gateway.provider).toBe('gemini');
    expect(breakers.state('gemini')).toBe('closed');
  });
});

describe('streams under faults', () => {
  it('falls back when a stream fails before its first byte', async () => {
    c.sim.setFaults([{ format: 'openai', model: 'gpt-4.1', endpoint: 'stream', status: 502, times: 1 }]);
    const stream = await c
      .openai()
      .chat.completions.create({ model: 'gpt-4.1', messages: user('stream fallback'), stream: true });
    let last: any;
    let text = '';
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      last = chunk;
    }
    expect(text).toContain('stream fallback');
    expect(last._gateway.routing.usedFallback).toBe(true);
    expect(last._gateway.provider).toBe('groq');
  });

  it('ends a stream that breaks after its first byte with an error event, never [DONE]', async () => {
    c.env.services.dataPlane.breakers.success('openai');
    c.sim.setFaults([{ format: 'openai', model: 'gpt-4o-mini', cutStreamAfterChunks: 3 }]);
    const res = await fetch(`${c.env.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${c.tenant.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: user('cut me'), stream: true }),
    });
    const body = await res.text();
    expect(res.status).toBe(200);
    expect(body).toContain('event: error');
    expect(body).toContain('provider_error');
    expect(body).not.toContain('[DONE]');
    const id = res.headers.get('x-gateway-request-id');
    await c.waitForCount('select count(*) n from requests where id = $1 and status = $2', [id, 'error'], 1);
    // What was streamed before the cut is still costed.
    const [cost] = await c.query('select output_tokens from cost_logs where request_id = $1', [id]);
    expect(cost.output_tokens).toBeGreaterThan(0);

    // The OpenAI client surfaces it as an error.
    const stream = await c
      .openai()
      .chat.completions.create({ model: 'openai/gpt-4o-mini', messages: user('cut me again'), stream: true });
    await expect(async () => {
      for await (const _ of stream) void _;
    }).rejects.toThrow();
    // Both breaks count against the provider, in a row: its first chunks do not clear the count.
    expect(c.env.services.dataPlane.breakers.snapshot().openai?.consecutiveFailures).toBe(2);
    c.env.services.dataPlane.breakers.success('openai');
  });

  it('aborts the upstream call when the client goes away', async () => {
    c.sim.configure({ chunkDelayMs: 200 });
    const controller = new AbortController();
    const res = await fetch(`${c.env.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      signal: controller.signal,
      headers: { authorization: `Bearer ${c.tenant.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-4o', messages: user('walk away'), stream: true }),
    });
    const id = res.headers.get('x-gateway-request-id');
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    await c.waitForCount('select count(*) n from requests where id = $1 and status = $2', [id, 'client_closed'], 1);
    // The gateway is unharmed.
    c.sim.configure({ chunkDelayMs: 0 });
    const ok: any = await c.openai().chat.completions.create({ model: 'openai/gpt-4o', messages: user('still here') });
    expect(ok.choices[0].message.content).toBeTruthy();
  });

  it.each([
    [
      'after the provider took the request (its head in, no content yet): the prompt is costed',
      { firstContentDelayMs: 3_000 },
      true,
    ],
    ['before the provider answered at all: nothing is costed', { latencyMs: 3_000 }, false],
  ])('costs a stream the client leaves %s', async (_what, fault, costed) => {
    c.sim.setFaults([{ format: 'openai', model: 'gpt-4o', ...fault, times: 1 }]);
    const t = await c.env.createTenant();
    const controller = new AbortController();
    const sent = fetch(`${c.env.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      signal: controller.signal,
      headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'openai/gpt-4o',
        messages: user('a long prompt to be billed for '.repeat(20)),
        stream: true,
      }),
    });
    // The gateway sends nothing before the first content: the client gives up waiting.
    await new Promise((r) => setTimeout(r, 500));
    controller.abort();
    await sent.catch(() => undefined);
    await c.waitForCount(
      'select count(*) n from requests where tenant_id = $1 and status = $2',
      [t.tenantId, 'client_closed'],
      1,
    );
    const [row] = await c.query('select input_tokens, output_tokens from requests where tenant_id = $1', [t.tenantId]);
    const costs = await c.query(
      'select input_tokens, output_tokens, cost::float8 as cost from cost_logs where tenant_id = $1',
      [t.tenantId],
    );
    if (costed) {
      expect(Number(row.input_tokens)).toBeGreaterThan(100);
      expect(costs).toEqual([{ input_tokens: Number(row.input_tokens), output_tokens: 0, cost: expect.any(Number) }]);
      expect(costs[0].cost).toBeGreaterThan(0);
    } else {
      expect(Number(row.input_tokens)).toBe(0);
      expect(costs).toHaveLength(0);
    }
  });
});
