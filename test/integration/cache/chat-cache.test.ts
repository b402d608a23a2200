import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';

// The exact-match cache: SPEC.md Limits and cache eligibility, and its effect on the log rows.

let c: ChatEnv;
beforeAll(async () => {
  c = await startChatEnv();
});
afterAll(() => c.close());

let n = 0;
const fresh = () => `cache question ${++n} ${Math.random()}`;

async function ask(
  content: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
  token?: string,
) {
  const { data, response } = await c
    .openai(token)
    .chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content }], ...extra } as any, {
      headers,
    })
    .withResponse();
  return {
    data: data as any,
    cacheHeader: response.headers.get('x-gateway-cache'),
    id: response.headers.get('x-gateway-request-id')!,
  };
}

describe('exact cache', () => {
  it('serves a repeated request from the cache: latency 0, tokens saved, no cost row, header exact', async () => {
    const q = fresh();
    const first = await ask(q);
    expect(first.cacheHeader).toBeNull();
    const upstreamCalls = c.sim.requests.length;
    const second = await ask(q);
    expect(c.sim.requests.length).toBe(upstreamCalls);
    expect(second.cacheHeader).toBe('exact');
    expect(second.data.choices).toEqual(first.data.choices);
    expect(second.data._gateway).toMatchObject({ cached: true, latencyMs: 0, cost: 0, cacheType: 'exact' });
    // A replay is an answer of its own: its own id (clients store answers by id), created now.
    expect(second.data.id).toMatch(/^chatcmpl-/);
    expect(second.data.id).not.toBe(first.data.id);
    expect(second.data.created).toBeGreaterThanOrEqual(first.data.created);
    const third = await ask(q);
    expect(third.data.id).not.toBe(second.data.id);

    await c.waitForCount('select count(*) n from requests where id = $1', [second.id], 1);
    const [row] = await c.query('select * from requests where id = $1', [second.id]);
    expect(row).toMatchObject({
      cached: true,
      cache_type: 'exact',
      latency_ms: 0,
      tokens_saved_input: first.data.usage.prompt_tokens,
      tokens_saved_output: first.data.usage.completion_tokens,
    });
    const costs = await c.query('select count(*)::int n from cost_logs where request_id = $1', [second.id]);
    expect(costs[0].n).toBe(0);
  });

  it('serves a cached answer to a streaming request', async () => {
    const q = fresh();
    const first = await ask(q);
    const stream = await c
      .openai()
      .chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: q }], stream: true });
    let text = '';
    let last: any;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      last = chunk;
    }
    expect(text).toBe(first.data.choices[0].message.content);
    expect(last._gateway).toMatchObject({ cached: true, cost: 0 });
    expect(last.id).not.toBe(first.data.id);
  });

  it('fills the cache from a completed stream', async () => {
    const q = fresh();
    const stream = await c
      .openai()
      .chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: q }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    const again = await ask(q);
    expect(again.cacheHeader).toBe('exact');
    expect(again.data.choices[0].message.content).toBe(text);
  });

  it.each([
    ['temperature above 0', { temperature: 0.7 }, {}],
    ['cache: false in the body', { cache: false }, {}],
    ['x-gateway-no-cache: true', {}, { 'x-gateway-no-cache': 'true' }],
  ])('does not cache with %s', async (_name, extra, headers) => {
    const q = fresh();
    await ask(q, extra, headers);
    const second = await ask(q, extra, headers);
    expect(second.cacheHeader).toBeNull();
    expect(second.data._gateway.cached).toBe(false);
  });

  it('caches with temperature 0', async () => {
    const q = fresh();
    await ask(q, { temperature: 0 });
    expect((await ask(q, { temperature: 0 })).cacheHeader).toBe('exact');
  });

  it('skips requests with images', async () => {
    const png =
      'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
    const content = [
      { type: 'text', text: fresh() },
      { type: 'image_url', image_url: { url: png } },
    ];
    const send = () =>
      c
        .openai()
        .chat.completions.create({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: content as any }] })
        .withResponse();
    await send();
    const second = await send();
    expect(second.response.headers.get('x-gateway-cache')).toBeNull();
  });

  it('skips an image sent as a file part too, and a file that is not an image is cached', async () => {
    const png =
      'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
    const pdf = 'data:application/pdf;base64,JVBERi0xLjQK';
    const send = (fileData: string, text: string) =>
      c
        .openai()
        .chat.completions.create({
          model: 'anthropic/claude-sonnet-4-5',
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text },
                { type: 'file', file: { filename: 'x', file_data: fileData } },
              ] as any,
            },
          ],
        })
        .withResponse();
    const image = fresh();
    await send(png, image);
    expect((await send(png, image)).response.headers.get('x-gateway-cache')).toBeNull();
    const document = fresh();
    await send(pdf, document);
    expect((await send(pdf, document)).response.headers.get('x-gateway-cache')).toBe('exact');
  });

  it('keys on the fields that change the answer and on the model', async () => {
    const q = fresh();
    await ask(q);
    expect((await ask(q, { max_tokens: 5 })).cacheHeader).toBeNull();
    const other = await c
      .openai()
      .chat.completions.create({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: q }] })
      .withResponse();
    expect(other.response.headers.get('x-gateway-cache')).toBeNull();
  });

  it('never shares an entry between tenants', async () => {
    const q = fresh();
    await ask(q);
    const other = await c.env.createTenant();
    const theirs = await ask(q, {}, {}, other.token);
    expect(theirs.cacheHeader).toBeNull();
    expect(theirs.data._gateway.cached).toBe(false);
  });
});

describe("exact cache while the requested provider's circuit is open", () => {
  const PINNED = 'anthropic/claude-3-5-haiku-latest';
  const pinned = async (content: string) => {
    const { data, response } = await c
      .openai()
      .chat.completions.create({ model: PINNED, messages: [{ role: 'user', content }] })
      .withResponse();
    return { gw: (data as any)._gateway, cacheHeader: response.headers.get('x-gateway-cache') };
  };
  const streamedPinned = async (content: string) => {
    const stream = await c
      .openai()
      .chat.completions.create({ model: PINNED, messages: [{ role: 'user', content }], stream: true });
    let last: any;
    for await (const chunk of stream) last = chunk;
    return last._gateway;
  };

  /** Anthropic answers 429 with a long Retry-After once: its circuit opens and it is skipped. */
  async function openAnthropicCircuit() {
    c.sim.setFaults([{ format: 'anthropic', status: 429, retryAfterSeconds: 120, times: 1 }]);
    await pinned(fresh());
    c.sim.clearFaults();
    expect(c.env.services.dataPlane.breakers.state('anthropic')).toBe('open');
  }

  it("says usedFallback and never caches a fallback's answer under the skipped primary", async () => {
    await openAnthropicCircuit();
    try {
      const q = fresh();
      const first = await pinned(q);
      expect(first.gw.provider).not.toBe('anthropic');
      expect(first.gw.routing.usedFallback).toBe(true);
      const second = await pinned(q);
      expect(second.cacheHeader).toBeNull();
      expect(second.gw).toMatchObject({ cached: false, routing: { usedFallback: true } });
      expect(second.gw.provider).not.toBe('anthropic');

      await c.waitForCount('select count(*) n from requests where id = $1', [first.gw.requestId], 1);
      const [row] = await c.query('select used_fallback, provider from requests where id = $1', [first.gw.requestId]);
      expect(row).toEqual({ used_fallback: true, provider: first.gw.provider });

      // The streaming path: the same.
      const s = fresh();
      const streamedFirst = await streamedPinned(s);
      expect(streamedFirst.provider).not.toBe('anthropic');
      expect(streamedFirst.routing.usedFallback).toBe(true);
      const streamedSecond = await pinned(s);
      expect(streamedSecond.cacheHeader).toBeNull();
      expect(streamedSecond.gw.provider).not.toBe('anthropic');
    } finally {
      c.env.services.dataPlane.breakers.success('anthropic');
    }
  });
});
