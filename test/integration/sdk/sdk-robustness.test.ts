import type { AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { createGatewayClient, GatewayApiError, gatewayErrorOf } from '../../../sdk/index.js';
import { StandIns } from '../../support/stand-in.js';

// The SDK against servers that misbehave after they started to answer: a whole answer whose body
// never finishes, a stream whose connection is cut, a live tap that sends a garbled frame; and a
// `timeoutMs` too large for Node's timers. The stand-ins are plain HTTP servers, not the project's code.

const standIns = new StandIns();
const standIn = standIns.start.bind(standIns);
afterAll(() => standIns.closeAll());

const MESSAGES = [{ role: 'user' as const, content: 'hi' }];
const CHUNK = {
  id: 'c',
  object: 'chat.completion.chunk',
  created: 0,
  model: 'm',
  choices: [{ index: 0, delta: { content: 'x' }, finish_reason: null }],
};
const COMPLETION = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 0,
  model: 'm',
  choices: [{ index: 0, message: { role: 'assistant', content: 'hello' }, finish_reason: 'stop' }],
  _gateway: { requestId: 'req_standin' },
};

/** Settles `promise`, failing the test (instead of hanging it) if that takes longer than `ms`. */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`still pending after ${ms} ms`)), ms)),
  ]);
}

/** Everything `iterable` yields until it ends or throws, and what it threw. */
async function drain<T>(iterable: AsyncIterable<T>): Promise<{ got: T[]; err: unknown }> {
  const got: T[] = [];
  try {
    for await (const item of iterable) got.push(item);
    return { got, err: undefined };
  } catch (err) {
    return { got, err };
  }
}

describe('timeoutMs covers the body of a whole answer', () => {
  it('gives up on a 200 JSON answer whose body never finishes: chat, embeddings and a tRPC call', async () => {
    const stalled = await standIn((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":');
    });
    const gw = createGatewayClient({ baseUrl: stalled, timeoutMs: 300 });

    const chat = await within(
      gw.chat.completions.create({ model: '', messages: MESSAGES }).catch((e: unknown) => e),
      5_000,
    );
    expect(chat).toBeInstanceOf(DOMException);
    expect(chat).toMatchObject({ name: 'TimeoutError' });
    expect(gatewayErrorOf(chat)).toBeUndefined();

    const embeddings = await within(
      gw.embeddings.create({ model: 'openai/text-embedding-3-small', input: 'x' }).catch((e: unknown) => e),
      5_000,
    );
    expect(embeddings).toMatchObject({ name: 'TimeoutError' });

    // A control-plane call rejects as tRPC does for any failure: a TRPCClientError, the timeout its cause.
    const control = await within(
      gw.tokens.list.query().catch((e: unknown) => e),
      5_000,
    );
    expect(control).toMatchObject({ name: 'TRPCClientError' });
    expect((control as Error).cause).toMatchObject({ name: 'TimeoutError' });
    expect(gatewayErrorOf(control)).toBeUndefined();
  });

  it('still reads a whole answer that arrives slowly within the limit', async () => {
    const slow = await standIn((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-gateway-request-id': 'req_slow' });
      const body = JSON.stringify(COMPLETION);
      res.write(body.slice(0, 10));
      setTimeout(() => res.end(body.slice(10)), 100);
    });
    const answer = await createGatewayClient({ baseUrl: slow, timeoutMs: 5_000 }).chat.completions.create({
      model: '',
      messages: MESSAGES,
    });
    expect(answer.choices[0]!.message.content).toBe('hello');
  });
});

describe('a timeoutMs larger than Node timers take', () => {
  it('answers normally, without a TimeoutOverflowWarning', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      // Answers after a moment: a timer that fires at once would abort the call first.
      const gateway = await standIn((req, res) => {
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'application/json' });
          if (req.url?.startsWith('/trpc/')) res.end(JSON.stringify({ result: { data: { json: { status: 'ok' } } } }));
          else res.end(JSON.stringify(COMPLETION));
        }, 100);
      });
      const gw = createGatewayClient({ baseUrl: gateway, timeoutMs: 3_000_000_000 });
      const answer = await gw.chat.completions.create({ model: '', messages: MESSAGES });
      expect(answer.choices[0]!.message.content).toBe('hello');
      await expect(gw.system.health.query()).resolves.toMatchObject({ status: 'ok' });
      await new Promise((r) => setImmediate(r));
      expect(warnings.filter((w) => w.name === 'TimeoutOverflowWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});

describe('a timeoutMs that is not a time', () => {
  it('is refused when the client is made, where it would have failed every call', () => {
    for (const timeoutMs of [-1, Number.NaN]) {
      expect(() => createGatewayClient({ baseUrl: 'http://127.0.0.1:9', token: 't', timeoutMs })).toThrow(RangeError);
    }
    expect(() => createGatewayClient({ baseUrl: 'http://127.0.0.1:9', token: 't', timeoutMs: 0 })).not.toThrow();
  });
});

describe('a stream that breaks after it started', () => {
  it('rejects with a GatewayApiError of status 0 when the connection is cut after the first chunk', async () => {
    const cut = await standIn((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'x-gateway-request-id': 'req_cut' });
      res.write(`data: ${JSON.stringify(CHUNK)}\n\n`);
      setTimeout(() => res.socket?.destroy(), 100);
    });
    const stream = await createGatewayClient({ baseUrl: cut }).chat.completions.create({
      model: '',
      messages: MESSAGES,
      stream: true,
    });
    const { got, err } = await within(drain(stream), 5_000);
    expect(got).toHaveLength(1);
    expect(err).toBeInstanceOf(GatewayApiError);
    expect(err).toMatchObject({ status: 0, requestId: 'req_cut' });
    expect(gatewayErrorOf(err)).toMatchObject({ status: 0, requestId: 'req_cut' });
  });

  it("keeps the caller's own abort an AbortError", async () => {
    const open = await standIn((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify(CHUNK)}\n\n`);
    });
    const controller = new AbortController();
    const stream = await createGatewayClient({ baseUrl: open }).chat.completions.create(
      { model: '', messages: MESSAGES, stream: true },
      { signal: controller.signal },
    );
    const err = await within(
      (async () => {
        for await (const _chunk of stream) controller.abort();
      })().catch((e: unknown) => e),
      5_000,
    );
    expect(err).toMatchObject({ name: 'AbortError' });
    expect(err).not.toBeInstanceOf(GatewayApiError);
  });
});

describe('the live tap', () => {
  it('ends on a frame that is not JSON with a typed http_error, after the messages before it', async () => {
    const garbled = await standIn((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'x-gateway-request-id': 'req_live' });
      res.write(`data: ${JSON.stringify({ id: 'req_1', provider: 'openai', model: 'gpt-4o-mini' })}\n\n`);
      res.write('data: {not json\n\n');
    });
    const live = await createGatewayClient({ baseUrl: garbled }).live.subscribe();
    const { got, err } = await within(drain(live), 5_000);
    expect(got).toEqual([{ type: 'event', event: { id: 'req_1', provider: 'openai', model: 'gpt-4o-mini' } }]);
    expect(err).toBeInstanceOf(GatewayApiError);
    expect(err).toMatchObject({
      type: 'http_error',
      status: 0,
      requestId: 'req_live',
      message: expect.stringContaining('{not json'),
    });
    expect(gatewayErrorOf(err)).toMatchObject({ type: 'http_error', status: 0 });
  });
});

describe('control-plane errors without an answer', () => {
  it('reject with a TRPCClientError whose cause is the platform error, as the README says', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const unreachable = createGatewayClient({ baseUrl: `http://127.0.0.1:${port}` });

    const control = await within(
      unreachable.system.health.query().catch((e: unknown) => e),
      5_000,
    );
    expect(control).toMatchObject({ name: 'TRPCClientError' });
    expect((control as Error).cause).toBeInstanceOf(TypeError);
    expect((control as Error).cause).toMatchObject({ message: 'fetch failed' });
    expect(gatewayErrorOf(control)).toBeUndefined();
    // The data plane rejects with the platform's error itself.
    const chat = await within(
      unreachable.chat.completions.create({ model: '', messages: MESSAGES }).catch((e: unknown) => e),
      5_000,
    );
    expect(chat).toBeInstanceOf(TypeError);
    expect(chat).toMatchObject({ message: 'fetch failed' });

    const hung = await standIn(() => undefined);
    const timedOut = await within(
      createGatewayClient({ baseUrl: hung, timeoutMs: 200 })
        .tokens.list.query()
        .catch((e: unknown) => e),
      5_000,
    );
    expect(timedOut).toMatchObject({ name: 'TRPCClientError' });
    expect((timedOut as Error).cause).toMatchObject({ name: 'TimeoutError' });
    expect(gatewayErrorOf(timedOut)).toBeUndefined();

    const controller = new AbortController();
    controller.abort();
    const aborted = await unreachable.system.health
      .query(undefined, { signal: controller.signal })
      .catch((e: unknown) => e);
    expect(aborted).toMatchObject({ name: 'TRPCClientError' });
    expect((aborted as Error).cause).toMatchObject({ name: 'AbortError' });
  });
});
