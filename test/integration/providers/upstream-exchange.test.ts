// The upstream HTTP layer against a plain Node server over real HTTP: what the adapters' tests do
// not reach. A stream that outruns its consumer is paused and resumed without losing an event,
// a consumer that stops early closes the connection, and an error answer's headers and body
// still make the typed error.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeHttp, postJson, postSse, type SseEvent } from '../../../server/providers/http.js';
import { ProviderError } from '../../../server/providers/types.js';
import { Cancellation } from '../../../server/lib/cancel-signal.js';

let server: Server;
let base: string;
/** Resolves when the server sees the current /slow response close. */
let slowClosed: Promise<boolean> = Promise.resolve(false);
const EVENTS = 2_000;

function route(req: IncomingMessage, res: ServerResponse): void {
  req.resume();
  if (req.url === '/many') {
    // Every event in one write: the client has them all at once, far more than it queues.
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let all = '';
    for (let i = 0; i < EVENTS; i++) all += `id: ${i}\ndata: {"n":${i}}\n\n`;
    res.end(all);
  } else if (req.url === '/slow') {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: first\n\n');
    const timer = setInterval(() => res.write('data: more\n\n'), 20);
    slowClosed = new Promise((resolve) =>
      res.on('close', () => {
        clearInterval(timer);
        resolve(!res.writableFinished);
      }),
    );
  } else if (req.url === '/limited') {
    res.writeHead(429, { 'content-type': 'application/json', 'Retry-After': '7' });
    res.end(JSON.stringify({ error: { message: 'slow down', type: 'rate_limit' } }));
  } else {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok": true, "text": "héllo"}');
  }
}

beforeAll(async () => {
  server = createServer(route);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await closeHttp();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const opts = () => ({ provider: 'test', signal: new Cancellation(), timeoutMs: 5_000 });
const headers = { 'content-type': 'application/json' };

describe('upstream exchanges', () => {
  it('delivers every event of a stream that outruns its consumer, in order', async () => {
    const seen: number[] = [];
    for await (const ev of postSse(`${base}/many`, headers, {}, opts())) {
      seen.push((JSON.parse(ev.data) as { n: number }).n);
      // A slow consumer: the upstream socket is paused while events wait unread.
      if (seen.length % 100 === 0) await new Promise((r) => setTimeout(r, 1));
    }
    expect(seen).toEqual(Array.from({ length: EVENTS }, (_, i) => i));
  });

  it('closes the connection when the consumer stops early', async () => {
    const got: SseEvent[] = [];
    for await (const ev of postSse(`${base}/slow`, headers, {}, opts())) {
      got.push(ev);
      break;
    }
    expect(got.map((e) => e.data)).toEqual(['first']);
    // true: the server saw the connection go before its response ended.
    expect(await slowClosed).toBe(true);
    // The pool still works afterwards.
    await expect(postJson(`${base}/json`, headers, {}, opts())).resolves.toEqual({ ok: true, text: 'héllo' });
  });

  it('turns an error answer into the typed error, with its Retry-After and message', async () => {
    for (const call of [
      () => postJson(`${base}/limited`, headers, {}, opts()),
      async () => {
        for await (const _ of postSse(`${base}/limited`, headers, {}, opts())) {
          // not reached
        }
      },
    ]) {
      const err = await call().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ProviderError);
      expect(err).toMatchObject({ status: 429, retryable: true, kind: 'http', retryAfterMs: 7_000 });
      expect((err as ProviderError).message).toContain('slow down');
    }
  });
});
