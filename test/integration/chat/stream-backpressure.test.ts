import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';

// A stream client that stops reading must not make the gateway buffer the answer: the gateway
// stops pulling upstream chunks until the socket drains, so its own buffered bytes stay bounded
// whatever the answer's length, and a client that then leaves is logged client_closed.

/** Long enough that the whole answer (about 130 bytes a frame) dwarfs any socket buffer. */
const OUTPUT_TOKENS = 150_000;
/** What the gateway may hold in its own memory for one stalled response: its write buffer and a frame. */
const MAX_BUFFERED_BYTES = 1024 * 1024;

let c: ChatEnv;
beforeAll(async () => {
  c = await startChatEnv({ sim: { outputTokens: OUTPUT_TOKENS, chunkDelayMs: 0 } });
});
afterAll(() => c.close());

/** The gateway's response to the request sent from `client` (Node publishes every server response). */
function gatewayResponseFor(client: Socket): Promise<ServerResponse> {
  return new Promise((resolve) => {
    const onStart = (message: unknown): void => {
      const { response, socket } = message as { response: ServerResponse; socket: Socket };
      if (socket.remotePort !== client.localPort) return;
      unsubscribe('http.server.request.start', onStart);
      resolve(response);
    };
    subscribe('http.server.request.start', onStart);
  });
}

/** A client that sends a streaming request and never reads a byte of the answer. */
async function stalledClient(env: ChatEnv = c): Promise<{ client: Socket; res: ServerResponse }> {
  const url = new URL(env.env.baseUrl);
  const client = connect(Number(url.port), url.hostname);
  await new Promise<void>((resolve) => client.once('connect', resolve));
  client.pause();
  const response = gatewayResponseFor(client);
  const body = JSON.stringify({
    model: 'openai/gpt-4o-mini',
    messages: [{ role: 'user', content: 'a very long answer, please' }],
    stream: true,
  });
  client.write(
    `POST /v1/chat/completions HTTP/1.1\r\nhost: ${url.host}\r\nauthorization: Bearer ${env.tenant.token}\r\n` +
      `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  return { client, res: await response };
}

describe('a stream client that stops reading', () => {
  it('holds the gateway to a bounded buffer, and is logged client_closed when it leaves', async () => {
    const { client, res } = await stalledClient();
    // Watch the response until it settles: stalled (its socket full and nothing more written for
    // a while), or ended (the whole answer queued in memory, the defect). Whichever it is, the
    // bytes the gateway buffered are what the assertions look at, not how long anything took.
    let maxBuffered = 0;
    let lastWritten = -1;
    let unchanged = 0;
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline && !res.writableEnded) {
      maxBuffered = Math.max(maxBuffered, res.writableLength);
      const written = res.socket?.bytesWritten ?? 0;
      unchanged = res.writableNeedDrain && written === lastWritten ? unchanged + 1 : 0;
      lastWritten = written;
      if (unchanged >= 10) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    maxBuffered = Math.max(maxBuffered, res.writableLength);
    expect(res.writableEnded).toBe(false);
    expect(maxBuffered).toBeLessThan(MAX_BUFFERED_BYTES);
    // The upstream is paused, not read to its end: the call is still under way, so no row yet.
    const [before] = await c.query('select count(*) n from requests where tenant_id = $1', [c.tenant.tenantId]);
    expect(Number(before.n)).toBe(0);

    client.destroy();
    await c.waitForCount('select count(*) n from requests where tenant_id = $1', [c.tenant.tenantId], 1);
    const [row] = await c.query('select status, output_tokens from requests where tenant_id = $1', [c.tenant.tenantId]);
    expect(row.status).toBe('client_closed');
    expect(Number(row.output_tokens)).toBeLessThan(OUTPUT_TOKENS);

    // The gateway is unharmed.
    c.sim.configure({ outputTokens: 24 });
    const ok: any = await c
      .openai()
      .chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'still here' }] });
    expect(ok.choices[0].message.content).toBeTruthy();
  });
});

describe('a stream client that stops reading and keeps its connection', () => {
  it('is given up after the upstream timeout: connection closed, logged client_closed, no fault of the provider', async () => {
    const short = await startChatEnv({
      sim: { outputTokens: OUTPUT_TOKENS, chunkDelayMs: 0 },
      env: { GATEWAY_UPSTREAM_TIMEOUT_MS: '1500' },
    });
    try {
      const { client, res } = await stalledClient(short);
      // The client never reads and never closes: the gateway ends the connection itself.
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('the gateway kept the stalled connection open')), 15_000);
        res.once('close', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      client.destroy();
      await short.waitForCount('select count(*) n from requests where tenant_id = $1', [short.tenant.tenantId], 1);
      const [row] = await short.query('select status from requests where tenant_id = $1', [short.tenant.tenantId]);
      expect(row.status).toBe('client_closed');
      expect(short.env.services.dataPlane.breakers.snapshot().openai?.consecutiveFailures ?? 0).toBe(0);
    } finally {
      await short.close();
    }
  }, 30_000);
});

describe('a stream client that reads, slowly', () => {
  it("gets the whole answer however long reading takes: the upstream timeout bounds the provider's silences, not the client's pace", async () => {
    // A timeout short enough for the reading below to outlast it twice over, long enough that a
    // provider slowed by a busy machine still answers within it (a first event later than the
    // timeout is a real provider failure, counted and fallen back from).
    const timeoutMs = 2_500;
    const short = await startChatEnv({
      sim: { outputTokens: OUTPUT_TOKENS, chunkDelayMs: 0 },
      env: { GATEWAY_UPSTREAM_TIMEOUT_MS: String(timeoutMs) },
    });
    try {
      const { client } = await stalledClient(short);
      // Reads a moment, then stops a while, over and over, for more than two upstream timeouts in
      // all; then reads the rest at once (the answer has outlasted the timeout by then).
      let text = '';
      client.setEncoding('utf8');
      client.on('data', (d: string) => (text += d));
      const started = Date.now();
      const slowUntil = started + 2 * timeoutMs + timeoutMs / 2;
      const ended = () => text.includes('data: [DONE]') || text.includes('event: error');
      let paused = true;
      while (!ended() && Date.now() < slowUntil) {
        if (paused) client.resume();
        else client.pause();
        paused = !paused;
        await new Promise((r) => setTimeout(r, paused ? timeoutMs / 2 : 40));
      }
      client.resume();
      while (!ended() && Date.now() - started < 60_000) await new Promise((r) => setTimeout(r, 20));
      client.destroy();
      expect(Date.now() - started).toBeGreaterThan(2 * timeoutMs);
      expect(text).not.toContain('event: error');
      expect(text).toContain('data: [DONE]');
      await short.waitForCount(
        'select count(*) n from requests where tenant_id = $1 and status = $2',
        [short.tenant.tenantId, 'ok'],
        1,
      );
      expect(short.env.services.dataPlane.breakers.snapshot().openai?.consecutiveFailures ?? 0).toBe(0);
    } finally {
      await short.close();
    }
  }, 90_000);
});
