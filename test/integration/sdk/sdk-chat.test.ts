import { getEventListeners } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createGatewayClient,
  GatewayApiError,
  gatewayErrorOf,
  type GatewayChatChunk,
  type LiveMessage,
} from '../../../sdk/index.js';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';

// The SDK's chat helper against a real gateway in front of the simulator: answers, streams, the
// gateway's typed errors, and the control-plane client beside it on the same object.

let c: ChatEnv;
beforeAll(async () => {
  c = await startChatEnv();
  c.sim.configure({ chunkDelayMs: 0 });
});
afterAll(() => c.close());

const client = (token = c.tenant.token) => createGatewayClient({ baseUrl: c.env.baseUrl, token });
const MESSAGES = [{ role: 'user' as const, content: 'Hello from the SDK' }];

describe('gw.chat.completions.create', () => {
  it('answers with the completion and _gateway, and the control plane still works on the same client', async () => {
    const gw = client();
    const answer = await gw.chat.completions.create({
      model: 'openai/gpt-4o-mini',
      messages: MESSAGES,
      temperature: 0.5,
    });
    expect(answer.choices[0]!.message.content).toContain('Hello from the SDK');
    expect(answer._gateway).toMatchObject({
      provider: 'openai',
      model: 'gpt-4o-mini',
      cached: false,
      routing: { routedBy: 'user-override' },
    });
    expect(answer._gateway.cost).toBeGreaterThan(0);
    expect(answer._gateway.requestId).toMatch(/^req_/);

    const { items } = await gw.tokens.list.query();
    expect(items.map((t) => t.name)).toEqual(['admin']);
  });

  it('streams chunks in order; the last one carries usage and _gateway', async () => {
    const stream = await client().chat.completions.create({
      model: 'anthropic/claude-3-5-haiku-latest',
      messages: MESSAGES,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(stream.requestId).toMatch(/^req_/);
    const chunks: GatewayChatChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const text = chunks.map((ch) => ch.choices[0]?.delta.content ?? '').join('');
    expect(text).toContain('Hello from the SDK');
    const last = chunks.at(-1)!;
    expect(last._gateway).toMatchObject({ provider: 'anthropic', requestId: stream.requestId });
    expect(last.usage!.completion_tokens).toBeGreaterThan(0);
    expect(chunks.slice(0, -1).every((ch) => ch._gateway === undefined)).toBe(true);
  });

  it('throws the gateway typed error with status and request id', async () => {
    const err = await client()
      .chat.completions.create({ model: 'openai/no-such-model', messages: MESSAGES })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayApiError);
    expect(err).toMatchObject({ type: 'not_found_error', status: 404 });
    expect((err as GatewayApiError).requestId).toMatch(/^req_/);
    expect(gatewayErrorOf(err)).toMatchObject({ type: 'not_found_error', status: 404 });

    const bad = await client('gw_not_a_token')
      .chat.completions.create({ model: '', messages: MESSAGES })
      .catch((e: unknown) => e);
    expect(bad).toMatchObject({ type: 'auth_error', status: 401 });
  });

  it('says how long to wait when the token is rate limited', async () => {
    const { token } = await c.env
      .sdk(c.tenant.token)
      .tokens.create.mutate({ name: 'one a minute', rateLimitPerMinute: 1 });
    // Its own prompt: an answer cached here would serve the later tests' calls without the simulator.
    const messages = [{ role: 'user' as const, content: 'rate limited' }];
    await client(token).chat.completions.create({ model: 'openai/gpt-4o-mini', messages });
    const err = await client(token)
      .chat.completions.create({ model: 'openai/gpt-4o-mini', messages })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ type: 'rate_limit_error', status: 429, retryAfterSeconds: expect.any(Number) });
    expect((err as GatewayApiError).retryAfterSeconds).toBeGreaterThan(0);
    expect(gatewayErrorOf(err)).toMatchObject({
      type: 'rate_limit_error',
      retryAfterSeconds: (err as GatewayApiError).retryAfterSeconds,
    });
  });

  it('rejects before the stream starts when the request is refused', async () => {
    const err = await client()
      .chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [], stream: true })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ type: 'invalid_request_error', status: 400 });
  });

  it('throws a stream that breaks after its first chunk as a typed error, after the chunks it got', async () => {
    c.sim.setFaults([{ format: 'openai', model: 'gpt-4o-mini', cutStreamAfterChunks: 2, times: 1 }]);
    try {
      const stream = await client().chat.completions.create({
        model: 'openai/gpt-4o-mini',
        messages: MESSAGES,
        stream: true,
      });
      const got: GatewayChatChunk[] = [];
      const err = await (async () => {
        for await (const chunk of stream) got.push(chunk);
      })().catch((e: unknown) => e);
      expect(got.length).toBeGreaterThan(0);
      expect(err).toBeInstanceOf(GatewayApiError);
      expect(err).toMatchObject({ type: 'provider_error', status: 0 });
    } finally {
      c.sim.clearFaults();
    }
  });

  it('stops the call when the caller aborts', async () => {
    c.sim.configure({ chunkDelayMs: 50 });
    try {
      const controller = new AbortController();
      const stream = await client().chat.completions.create(
        { model: 'openai/gpt-4o-mini', messages: MESSAGES, stream: true },
        { signal: controller.signal },
      );
      const err = await (async () => {
        for await (const _chunk of stream) controller.abort();
      })().catch((e: unknown) => e);
      expect((err as Error).name).toBe('AbortError');
      await c.waitForCount(
        `select count(*) as n from requests where tenant_id = $1 and status = 'client_closed'`,
        [c.tenant.tenantId],
        1,
      );
    } finally {
      c.sim.configure({ chunkDelayMs: 0 });
    }
  });

  it('lets go of a signal shared by many calls once each call is over', async () => {
    // An app-wide shutdown signal passed to every call must not gather one listener per call.
    const shared = new AbortController().signal;
    const gw = client();
    for (let i = 0; i < 3; i++)
      await gw.chat.completions.create({ model: 'openai/gpt-4o-mini', messages: MESSAGES }, { signal: shared });
    const read = await gw.chat.completions.create(
      { model: 'openai/gpt-4o-mini', messages: MESSAGES, stream: true },
      { signal: shared },
    );
    for await (const _chunk of read) void _chunk;
    const left = await gw.chat.completions.create(
      { model: 'openai/gpt-4o-mini', messages: MESSAGES, stream: true },
      { signal: shared },
    );
    for await (const _chunk of left) break;
    const refused = await gw.chat.completions
      .create({ model: 'openai/no-such-model', messages: MESSAGES }, { signal: shared })
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ type: 'not_found_error' });
    expect(getEventListeners(shared, 'abort')).toHaveLength(0);
  });
});

describe('gw.embeddings.create', () => {
  it('answers with the vectors and _gateway, and throws the typed error of a refusal', async () => {
    const gw = client();
    const answer = await gw.embeddings.create({ model: 'openai/text-embedding-3-small', input: ['first', 'second'] });
    expect(answer.data).toHaveLength(2);
    expect(answer.data[0]!.embedding).toEqual(expect.arrayContaining([expect.any(Number)]));
    expect(answer._gateway).toMatchObject({
      provider: 'openai',
      model: 'text-embedding-3-small',
      requestId: expect.stringMatching(/^req_/),
    });

    const refused = await gw.embeddings
      .create({ model: 'anthropic/claude-3-5-haiku-latest', input: 'x' })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(GatewayApiError);
    expect(refused).toMatchObject({
      type: 'invalid_request_error',
      status: 400,
      requestId: expect.stringMatching(/^req_/),
    });
  });
});

describe('gw.live.subscribe', () => {
  it('yields the completed requests of the workspace, ends on close(), and rejects a bad token typed', async () => {
    const bus = c.env.services.liveBus;
    const live = await client().live.subscribe();
    // Earlier tests' rows may still be committing: read on until this test's own request shows up.
    const seen: LiveMessage[] = [];
    const reading = (async () => {
      for await (const message of live) seen.push(message);
    })();
    const mine = () => seen.find((m) => m.type === 'event' && m.event.preview === 'live one');
    // The first subscriber of a quiet cluster is connected within about 1.25 s: ask until the event arrives.
    for (let i = 0; i < 30 && !mine(); i++) {
      await client().chat.completions.create({
        model: 'openai/gpt-4o-mini',
        messages: [{ role: 'user', content: 'live one' }],
        cache: false,
      });
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(mine()).toMatchObject({
      type: 'event',
      event: { provider: 'openai', model: 'gpt-4o-mini', id: expect.stringMatching(/^req_/) },
    });
    live.close();
    await reading; // the iteration ends, without an error

    for (let i = 0; i < 100 && bus.subscriberCount(c.tenant.tenantId) > 0; i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(bus.subscriberCount(c.tenant.tenantId)).toBe(0);

    const refused = await client('gw_not_a_token')
      .live.subscribe()
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(GatewayApiError);
    expect(refused).toMatchObject({ type: 'auth_error', status: 401 });
  });
});
