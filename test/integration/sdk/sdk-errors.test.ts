import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayClient, GatewayApiError, gatewayErrorOf } from '../../../sdk/index.js';
import { startTestEnv, type TestEnv, type TestTenant } from '../../support/harness.js';
import { StandIns } from '../../support/stand-in.js';

// What the SDK throws when the answer is not a success: the gateway's typed error with its
// request id, a typed `http_error` for answers that are not the gateway's (a proxy's error
// page, a wrong base URL), and a TimeoutError for a gateway that never answers. The stand-ins
// below play what sits between a client and a gateway (a proxy, a hung process); they are
// plain HTTP servers, not the project's code.

let env: TestEnv;
let tenant: TestTenant;
const standIns = new StandIns();
const standIn = standIns.start.bind(standIns);

const MESSAGES = [{ role: 'user' as const, content: 'hi' }];

/** Settles `promise`, failing the test (instead of hanging it) if that takes longer than `ms`. */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`still pending after ${ms} ms`)), ms)),
  ]);
}

beforeAll(async () => {
  env = await startTestEnv();
  tenant = await env.createTenant('team');
});
afterAll(async () => {
  await standIns.closeAll();
  await env?.close();
});

describe('SDK errors', () => {
  it('gives the request id of a failed control-plane call with its typed error', async () => {
    const err = await env
      .sdk(tenant.token)
      .tokens.remove.mutate({ id: 'tok_missing' })
      .catch((e: unknown) => e);
    expect(gatewayErrorOf(err)).toMatchObject({
      type: 'not_found_error',
      status: 404,
      requestId: expect.stringMatching(/^req_/),
    });
  });

  it("turns a proxy's error page into a typed http_error with its status, on both planes", async () => {
    const proxy = await standIn((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html><body><h1>502 Bad Gateway</h1></body></html>');
    });
    const gw = createGatewayClient({ baseUrl: proxy, token: tenant.token });

    const control = await gw.tokens.list.query().catch((e: unknown) => e);
    expect(gatewayErrorOf(control)).toMatchObject({
      type: 'http_error',
      status: 502,
      message: expect.stringContaining('502 Bad Gateway'),
    });

    const chat = await gw.chat.completions.create({ model: '', messages: MESSAGES }).catch((e: unknown) => e);
    expect(chat).toBeInstanceOf(GatewayApiError);
    expect(gatewayErrorOf(chat)).toMatchObject({ type: 'http_error', status: 502 });
  });

  it('says so when a success is not a gateway answer (a web page at the configured URL)', async () => {
    const page = await standIn((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>welcome</html>');
    });
    const gw = createGatewayClient({ baseUrl: page, token: tenant.token });

    const control = await gw.system.health.query().catch((e: unknown) => e);
    expect(gatewayErrorOf(control)).toMatchObject({
      type: 'http_error',
      status: 200,
      message: expect.stringContaining('not a gateway answer'),
    });

    const chat = await gw.chat.completions.create({ model: '', messages: MESSAGES }).catch((e: unknown) => e);
    expect(gatewayErrorOf(chat)).toMatchObject({ type: 'http_error', status: 200 });
    const stream = await gw.chat.completions
      .create({ model: '', messages: MESSAGES, stream: true })
      .catch((e: unknown) => e);
    expect(gatewayErrorOf(stream)).toMatchObject({ type: 'http_error', status: 200 });
  });

  it("reads the gateway's own error when the base URL is wrong (…/v1 added)", async () => {
    const err = await createGatewayClient({ baseUrl: `${env.baseUrl}/v1`, token: tenant.token })
      .tokens.list.query()
      .catch((e: unknown) => e);
    expect(gatewayErrorOf(err)).toMatchObject({ type: 'not_found_error', status: 404 });
  });

  it('gives up after timeoutMs on a gateway that never answers, on both planes', async () => {
    const hung = await standIn(() => undefined);
    const gw = createGatewayClient({ baseUrl: hung, token: tenant.token, timeoutMs: 200 });

    const control = await within(
      gw.system.health.query().catch((e: unknown) => e),
      5_000,
    );
    expect((control as Error).cause).toMatchObject({ name: 'TimeoutError' });
    expect(gatewayErrorOf(control)).toBeUndefined();

    const chat = await within(
      gw.chat.completions.create({ model: '', messages: MESSAGES }).catch((e: unknown) => e),
      5_000,
    );
    expect(chat).toMatchObject({ name: 'TimeoutError' });
  });

  it('does not cut a slow stream once it has started', async () => {
    const slow = await standIn((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = {
        id: 'c',
        object: 'chat.completion.chunk',
        created: 0,
        model: 'm',
        choices: [{ index: 0, delta: { content: 'x' }, finish_reason: null }],
      };
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);
      setTimeout(() => res.end(`data: ${JSON.stringify(chunk)}\n\ndata: [DONE]\n\n`), 400);
    });
    const stream = await createGatewayClient({ baseUrl: slow, timeoutMs: 200 }).chat.completions.create({
      model: '',
      messages: MESSAGES,
      stream: true,
    });
    let n = 0;
    for await (const _chunk of stream) n++;
    expect(n).toBe(2);
  });

  it('ends a stream whose frame is not JSON with a typed error, after the chunks before it', async () => {
    const garbled = await standIn((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = {
        id: 'c',
        object: 'chat.completion.chunk',
        created: 0,
        model: 'm',
        choices: [{ index: 0, delta: { content: 'x' }, finish_reason: null }],
      };
      res.end(`data: ${JSON.stringify(chunk)}\n\ndata: {not json\n\ndata: [DONE]\n\n`);
    });
    const stream = await createGatewayClient({ baseUrl: garbled }).chat.completions.create({
      model: '',
      messages: MESSAGES,
      stream: true,
    });
    let n = 0;
    const err = await (async () => {
      for await (const _chunk of stream) n++;
    })().catch((e: unknown) => e);
    expect(n).toBe(1);
    expect(err).toBeInstanceOf(GatewayApiError);
    expect(err).toMatchObject({ type: 'http_error', status: 0 });
  });

  it('yields nothing more from a live tap once close() is called, even messages that came in the same read', async () => {
    const burst = await standIn((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // Five events in one write: the SDK parses them all before yielding the first.
      res.write(
        [1, 2, 3, 4, 5].map((i) => `data: ${JSON.stringify({ id: `req_${i}`, preview: String(i) })}\n\n`).join(''),
      );
    });
    const live = await createGatewayClient({ baseUrl: burst, token: tenant.token }).live.subscribe();
    const seen: string[] = [];
    await within(
      (async () => {
        for await (const message of live) {
          if (message.type === 'event') seen.push(message.event.id);
          live.close();
        }
      })(),
      5_000,
    );
    expect(seen).toEqual(['req_1']);
  });

  it('gives up on a live tap that goes silent without closing, and not on one that keeps alive', async () => {
    const eventStream = (keepAliveMs: number | null) =>
      standIn((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(': keep-alive\n\n');
        if (keepAliveMs === null) return;
        const timer = setInterval(() => res.write(': keep-alive\n\n'), keepAliveMs);
        res.on('close', () => clearInterval(timer));
      });

    const silent = await createGatewayClient({ baseUrl: await eventStream(null), token: tenant.token }).live.subscribe({
      idleTimeoutMs: 300,
    });
    const started = Date.now();
    const err = await within(
      (async () => {
        for await (const _ of silent) {
          // nothing arrives
        }
      })().catch((e: unknown) => e),
      5_000,
    );
    expect(err).toMatchObject({ name: 'TimeoutError' });
    expect(Date.now() - started).toBeLessThan(3_000);

    const alive = await createGatewayClient({ baseUrl: await eventStream(100), token: tenant.token }).live.subscribe({
      idleTimeoutMs: 300,
    });
    const iteration = (async () => {
      for await (const _ of alive) {
        // keep-alive comments are not messages
      }
    })();
    await new Promise((r) => setTimeout(r, 1_000));
    alive.close();
    await expect(within(iteration, 2_000)).resolves.toBeUndefined();
  });
});
