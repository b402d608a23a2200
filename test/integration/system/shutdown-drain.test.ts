import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../server/simulator/index.js';
import { createTestDatabase } from '../../support/database.js';
import { gatewayProcessEnv, startServerProcess } from '../../support/process.js';
import { startTcpRelay } from '../../support/tcp-relay.js';

// SIGTERM: stop accepting, finish in-flight streams, drain the log writer, exit 0. No row lost.
// Streams still running at the shutdown timeout are cut, and their rows are written all the same;
// a database that cannot be reached holds the exit up for the log drain's bound, no longer.
// Kept-alive connections: a request arriving after SIGTERM gets 503 with Connection: close, each
// busy connection closes once its response is over, and the exit follows the last response at once.

let sim: Simulator;
let db: { url: string; drop(): Promise<void> };
beforeAll(async () => {
  sim = await startSimulator({ chunkDelayMs: 40 });
  db = await createTestDatabase();
});
afterAll(async () => {
  await sim.close();
  await db.drop();
});

const token = 'gw_shutdown-test-admin-token';

function gatewayEnv(
  databaseUrl: string,
  simulator: Simulator,
  extra: Record<string, string> = {},
): Record<string, string> {
  return gatewayProcessEnv(databaseUrl, simulator.baseUrls.openai, token, { GATEWAY_LOG_FLUSH_MS: '2000', ...extra });
}

async function countRows(databaseUrl: string, requestsWhere: string): Promise<{ requests: number; costs: number }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const reqs = await client.query(`select count(*)::int n from requests where ${requestsWhere}`);
  const costs = await client.query('select count(*)::int n from cost_logs');
  await client.end();
  return { requests: reqs.rows[0].n, costs: costs.rows[0].n };
}

const streamRequest = (url: string, content: string) =>
  fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'openai/gpt-4o-mini', stream: true, messages: [{ role: 'user', content }] }),
  });

describe('graceful shutdown', () => {
  it('finishes in-flight streams and writes every row before exiting', async () => {
    // Jobs on: they wind down beside the request drain.
    const server = startServerProcess(gatewayEnv(db.url, sim, { GATEWAY_JOBS: 'true' }));
    const [, port] = await server.waitFor(/listening on http:\/\/[\d.]+:(\d+)/, 60_000);
    const url = `http://127.0.0.1:${port}/v1/chat/completions`;
    const send = (i: number) =>
      fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'openai/gpt-4o-mini',
          stream: true,
          messages: [{ role: 'user', content: `drain ${i}` }],
        }),
      }).then((r) => r.text());

    const inFlight = Array.from({ length: 12 }, (_, i) => send(i));
    await new Promise((r) => setTimeout(r, 300));
    server.child.kill('SIGTERM');
    const bodies = await Promise.all(inFlight).catch((e) => {
      throw new Error(String(e) + server.output());
    });
    for (const body of bodies) expect(body.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(await server.stop()).toBe(0);

    // The flush interval (2 s) was longer than the run: only the drain on SIGTERM wrote these.
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const reqs = await client.query(`select count(*)::int n from requests where status = 'ok'`);
    const costs = await client.query('select count(*)::int n from cost_logs');
    await client.end();
    expect(reqs.rows[0].n).toBe(12);
    expect(costs.rows[0].n).toBe(12);
  }, 90_000);

  it('writes the rows of streams cut at the shutdown timeout', async () => {
    // One chunk a second: the streams are still running when the 1 s shutdown timeout is up.
    const slow = await startSimulator({ chunkDelayMs: 1_000 });
    const cutDb = await createTestDatabase();
    try {
      const server = startServerProcess(gatewayEnv(cutDb.url, slow, { GATEWAY_SHUTDOWN_TIMEOUT_MS: '1000' }));
      const [, port] = await server.waitFor(/listening on http:\/\/[\d.]+:(\d+)/, 60_000);
      const url = `http://127.0.0.1:${port}/v1/chat/completions`;
      // The response heads are in: each stream has its upstream call under way.
      const responses = await Promise.all([0, 1, 2].map((i) => streamRequest(url, `cut ${i}`)));
      const bodies = responses.map((r) => r.text().catch((err: unknown) => `cut: ${String(err)}`));
      server.child.kill('SIGTERM');
      await Promise.all(bodies);
      expect(await server.stop()).toBe(0);
      expect(server.output()).not.toContain('rows lost');

      const rows = await countRows(cutDb.url, `status in ('client_closed', 'error')`);
      expect(rows).toEqual({ requests: 3, costs: 3 });
    } finally {
      await slow.close();
      await cutDb.drop();
    }
  }, 90_000);

  it('gives up the log drain at its bound when the database is unreachable', async () => {
    const relay = await startTcpRelay(db.url);
    const server = startServerProcess(
      gatewayEnv(relay.url, sim, { GATEWAY_LOG_DRAIN_TIMEOUT_MS: '1500', GATEWAY_LOG_FLUSH_MS: '60000' }),
    );
    const [, port] = await server.waitFor(/listening on http:\/\/[\d.]+:(\d+)/, 60_000);
    const answered = await (await streamRequest(`http://127.0.0.1:${port}/v1/chat/completions`, 'unlogged')).text();
    expect(answered.trimEnd().endsWith('data: [DONE]')).toBe(true);

    // Cut at once, while the pool may have queries under way: a connection dropping under a
    // checked-out client must not crash the process either.
    await relay.cut();
    const started = Date.now();
    const code = await server.stop();
    expect(code, server.output()).toBe(0);
    // Well inside a 30 s grace period: 1.5 s of drain plus the rest of the shutdown.
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(server.output()).toContain('rows lost');
  }, 90_000);

  it('exits within its bounds when the database stops answering without refusing (a partition)', async () => {
    const relay = await startTcpRelay(db.url);
    try {
      const server = startServerProcess(
        gatewayEnv(relay.url, sim, {
          GATEWAY_SHUTDOWN_TIMEOUT_MS: '1000',
          GATEWAY_LOG_DRAIN_TIMEOUT_MS: '1000',
          GATEWAY_LOG_FLUSH_MS: '60000',
        }),
      );
      const [, port] = await server.waitFor(/listening on http:\/\/[\d.]+:(\d+)/, 60_000);
      const answered = await (
        await streamRequest(`http://127.0.0.1:${port}/v1/chat/completions`, 'partitioned')
      ).text();
      expect(answered.trimEnd().endsWith('data: [DONE]')).toBe(true);
      // Every open connection to the database goes silent, new ones too.
      relay.silence();
      const started = Date.now();
      await server.stop();
      // The two timeouts (1 s each) and the closing grace (5 s), not the database's silence.
      expect(Date.now() - started).toBeLessThan(12_000);
      expect(server.output()).toContain('rows lost');
    } finally {
      relay.close();
    }
  }, 90_000);
});

/** One HTTP/1.1 response read off a raw socket. */
interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Splits what a raw socket received into its responses (chunked or content-length bodies). */
function parseResponses(raw: string): RawResponse[] {
  const responses: RawResponse[] = [];
  let at = 0;
  while (at < raw.length) {
    const headEnd = raw.indexOf('\r\n\r\n', at);
    if (headEnd < 0) throw new Error(`incomplete response head: ${raw.slice(at)}`);
    const [statusLine, ...lines] = raw.slice(at, headEnd).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    let body = '';
    at = headEnd + 4;
    if (headers['transfer-encoding'] === 'chunked') {
      for (;;) {
        const sizeEnd = raw.indexOf('\r\n', at);
        const size = parseInt(raw.slice(at, sizeEnd), 16);
        at = sizeEnd + 2;
        if (size === 0) {
          at += 2;
          break;
        }
        body += raw.slice(at, at + size);
        at += size + 2;
      }
    } else {
      const length = Number(headers['content-length'] ?? 0);
      body = raw.slice(at, at + length);
      at += length;
    }
    responses.push({ status: Number(statusLine!.split(' ')[1]), headers, body });
  }
  return responses;
}

function rawChatRequest(port: number, content: string, stream: boolean): string {
  const body = JSON.stringify({ model: 'openai/gpt-4o-mini', stream, messages: [{ role: 'user', content }] });
  return [
    'POST /v1/chat/completions HTTP/1.1',
    `Host: 127.0.0.1:${port}`,
    `Authorization: Bearer ${token}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: keep-alive',
    '',
    body,
  ].join('\r\n');
}

const shuttingDown = { error: { type: 'service_unavailable', message: 'The gateway is shutting down' } };

describe('graceful shutdown of kept-alive connections', () => {
  // About 24 chunks 100 ms apart: each stream runs for a couple of seconds.
  let slowSim: Simulator;
  beforeAll(async () => {
    slowSim = await startSimulator({ chunkDelayMs: 100 });
  });
  afterAll(async () => {
    await slowSim.close();
  });

  it('answers a request sent on a busy connection after SIGTERM with 503, finishes the stream, closes the connection and exits', async () => {
    const drainDb = await createTestDatabase();
    try {
      const server = startServerProcess(
        gatewayEnv(drainDb.url, slowSim, { GATEWAY_SHUTDOWN_TIMEOUT_MS: '20000', LOG_LEVEL: 'info' }),
      );
      const [, port] = await server.waitFor(/listening on http:\/\/[\d.]+:(\d+)/, 60_000);
      const socket = connect(Number(port), '127.0.0.1');
      let received = '';
      socket.setEncoding('utf8');
      socket.on('data', (d: string) => (received += d));
      let closedAt = 0;
      const closed = new Promise<void>((resolve) =>
        socket.on('close', () => {
          closedAt = Date.now();
          resolve();
        }),
      );
      socket.on('error', () => {});
      socket.write(rawChatRequest(Number(port), 'first on the connection', true));
      // The stream is under way: its head (Connection: keep-alive) is already out.
      for (let waited = 0; !received.includes('data: {') && waited < 10_000; waited += 20)
        await new Promise((r) => setTimeout(r, 20));
      expect(received).toContain('data: {');
      server.child.kill('SIGTERM');
      await server.waitFor(/shutting down/, 10_000);
      // A second request on the same connection while the first response is still streaming.
      socket.write(rawChatRequest(Number(port), 'second on the connection', false));
      // The server closes the connection once both are answered; the client never has to.
      const cut = setTimeout(() => socket.destroy(), 30_000);
      await closed;
      clearTimeout(cut);

      const [first, second, ...rest] = parseResponses(received);
      expect(rest).toEqual([]);
      expect(first!.status).toBe(200);
      expect(first!.body.trimEnd().endsWith('data: [DONE]'), first!.body).toBe(true);
      expect(first!.body).not.toContain('event: error');
      expect(second!.status).toBe(503);
      expect(second!.headers.connection).toBe('close');
      expect(second!.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(second!.body)).toEqual(shuttingDown);

      expect(await server.stop()).toBe(0);
      // Well before the 20 s shutdown timeout: the exit waited for the stream, not for the timeout.
      expect(Date.now() - closedAt).toBeLessThan(10_000);
      // Only the stream is a call: the refused request is not logged.
      expect(await countRows(drainDb.url, 'true')).toEqual({ requests: 1, costs: 1 });
      expect(await countRows(drainDb.url, `status = 'ok'`)).toEqual({ requests: 1, costs: 1 });
    } finally {
      await drainDb.drop();
    }
  }, 90_000);

  it('sends Connection: close on a response whose head is not out yet at SIGTERM, and exits once it is done', async () => {
    const server = startServerProcess(
      gatewayEnv(db.url, slowSim, { GATEWAY_SHUTDOWN_TIMEOUT_MS: '20000', LOG_LEVEL: 'info' }),
    );
    const [, port] = await server.waitFor(/listening on http:\/\/[\d.]+:(\d+)/, 60_000);
    // The upstream holds its response head back: the gateway's head is not sent when SIGTERM comes.
    slowSim.setFaults([{ latencyMs: 1_500, times: 1 }]);
    slowSim.resetRequests();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const body = JSON.stringify({
        model: 'openai/gpt-4o-mini',
        stream: true,
        messages: [{ role: 'user', content: 'head held back' }],
      });
      const answered = new Promise<{ status: number; connection: string | undefined; body: string; endedAt: number }>(
        (resolve, reject) => {
          const req = request(
            {
              host: '127.0.0.1',
              port: Number(port),
              path: '/v1/chat/completions',
              method: 'POST',
              agent,
              headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            },
            (res) => {
              let text = '';
              res.setEncoding('utf8');
              res.on('data', (d: string) => (text += d));
              res.on('end', () =>
                resolve({
                  status: res.statusCode ?? 0,
                  connection: res.headers.connection,
                  body: text,
                  endedAt: Date.now(),
                }),
              );
              res.on('error', reject);
            },
          );
          req.on('error', reject);
          req.end(body);
        },
      );
      for (let waited = 0; !slowSim.requests.some((r) => r.endpoint === 'stream') && waited < 10_000; waited += 20)
        await new Promise((r) => setTimeout(r, 20));
      server.child.kill('SIGTERM');
      const first = await answered;
      expect(first.status).toBe(200);
      expect(first.connection).toBe('close');
      expect(first.body.trimEnd().endsWith('data: [DONE]'), first.body).toBe(true);
      expect(await server.stop()).toBe(0);
      expect(Date.now() - first.endedAt).toBeLessThan(10_000);
    } finally {
      agent.destroy();
      slowSim.clearFaults();
      slowSim.resetRequests();
    }
  }, 90_000);

  it('answers /health with 503 during the drain', async () => {
    const server = startServerProcess(
      gatewayEnv(db.url, slowSim, { GATEWAY_SHUTDOWN_TIMEOUT_MS: '20000', LOG_LEVEL: 'info' }),
    );
    const [, port] = await server.waitFor(/listening on http:\/\/[\d.]+:(\d+)/, 60_000);
    const socket = connect(Number(port), '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (received += d));
    socket.on('error', () => {});
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write(rawChatRequest(Number(port), 'health during drain', true));
    for (let waited = 0; !received.includes('data: {') && waited < 10_000; waited += 20)
      await new Promise((r) => setTimeout(r, 20));
    server.child.kill('SIGTERM');
    await server.waitFor(/shutting down/, 10_000);
    socket.write(`GET /health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    const cut = setTimeout(() => socket.destroy(), 30_000);
    await closed;
    clearTimeout(cut);
    const [, health] = parseResponses(received);
    expect(health!.status).toBe(503);
    expect(health!.headers.connection).toBe('close');
    expect(JSON.parse(health!.body)).toEqual(shuttingDown);
    expect(await server.stop()).toBe(0);
  }, 90_000);
});
