import { connect, type Socket } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../server/simulator/index.js';
import { createTestDatabase } from '../../support/database.js';
import { gatewayProcessEnv, startServerProcess, type ServerProcess } from '../../support/process.js';

// Clients that send their request slowly or not at all, against the real entry point (its HTTP
// server settings are under test): a client gone mid-body is no internal error, a dripping client
// is cut at the configured bound, and that bound never cuts a long streamed answer.

const token = 'gw_slow-clients-admin-token';
const HEADERS_TIMEOUT_MS = 800;
const REQUEST_TIMEOUT_MS = 1_500;

let sim: Simulator;
let db: { url: string; drop(): Promise<void> };
let server: ServerProcess;
let base: string;
let port: number;

beforeAll(async () => {
  // 24 tokens 150 ms apart: a stream of about 3.6 s, longer than the request timeout.
  sim = await startSimulator({ chunkDelayMs: 150 });
  db = await createTestDatabase();
  server = startServerProcess(
    gatewayProcessEnv(db.url, sim.baseUrls.openai, token, {
      GATEWAY_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      GATEWAY_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    }),
  );
  const [, listening] = await server.waitFor(/listening on http:\/\/[\d.]+:(\d+)/, 60_000);
  port = Number(listening);
  base = `http://127.0.0.1:${port}`;
}, 90_000);

afterAll(async () => {
  await server?.stop();
  await sim?.close();
  await db?.drop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function openSocket(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Resolves with the milliseconds from now until the server closes `socket`, or null after `withinMs`. */
function closedWithin(socket: Socket, withinMs: number): Promise<number | null> {
  const started = Date.now();
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), withinMs);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(Date.now() - started);
    });
  });
}

/** Writes one byte every `everyMs` until the socket closes. */
function drip(socket: Socket, everyMs: number): void {
  const timer = setInterval(() => {
    if (socket.destroyed) clearInterval(timer);
    else socket.write('x');
  }, everyMs);
  socket.once('close', () => clearInterval(timer));
  socket.on('error', () => {});
}

const chatHead = (contentLength: number) =>
  `POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${contentLength}\r\n\r\n`;

async function internalErrors(): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const m = /^gateway_error_responses_total\{type="internal_error"\} (\d+)/m.exec(text);
  return m ? Number(m[1]) : 0;
}

const client = () => new OpenAI({ apiKey: token, baseURL: `${base}/v1`, maxRetries: 0 });

describe('slow and vanishing clients', () => {
  it('takes a client gone in the middle of its body as gone, not as an internal error', async () => {
    const before = await internalErrors();
    const socket = await openSocket();
    socket.write(chatHead(1_000) + '{"model":"openai/gpt-4o-mini","messages":[');
    // The handler is reading the body by now.
    await sleep(300);
    socket.destroy();
    await sleep(300);

    expect(await internalErrors()).toBe(before);
    expect(server.output()).not.toMatch(/ECONNRESET|aborted|internal/i);
    const answer = await client().chat.completions.create({
      model: 'openai/gpt-4o-mini',
      messages: [{ role: 'user', content: 'still there?' }],
    });
    expect(answer.choices[0]!.message.content).toBeTruthy();
  }, 20_000);

  it('closes a client that drips its body within the request timeout', async () => {
    const socket = await openSocket();
    socket.write(chatHead(1_000));
    drip(socket, 200);
    const closedAfter = await closedWithin(socket, 10_000);
    expect(closedAfter).not.toBeNull();
    // Node checks the bound on a sweep; the gateway makes that sweep a quarter of the bound apart.
    expect(closedAfter!).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
    expect(closedAfter!).toBeLessThan(REQUEST_TIMEOUT_MS + 1_500);
  }, 20_000);

  it('closes a client that drips its headers within the headers timeout', async () => {
    const socket = await openSocket();
    socket.write('POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    drip(socket, 200);
    const closedAfter = await closedWithin(socket, 10_000);
    expect(closedAfter).not.toBeNull();
    expect(closedAfter!).toBeLessThan(HEADERS_TIMEOUT_MS + 1_500);
  }, 20_000);

  it('never cuts a streamed answer that lasts longer than the request timeout', async () => {
    const started = Date.now();
    const stream = await client().chat.completions.create({
      model: 'openai/gpt-4o-mini',
      stream: true,
      messages: [{ role: 'user', content: 'a long answer' }],
    });
    let text = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(Date.now() - started).toBeGreaterThan(REQUEST_TIMEOUT_MS + 500);
    expect(finish).toBe('stop');
    expect(text.length).toBeGreaterThan(0);
  }, 30_000);
});
