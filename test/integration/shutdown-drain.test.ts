import { createServer as createTcpServer, connect, type Server as TcpServer, type Socket } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../server/simulator/index.js';
import { createTestDatabase } from '../support/database.js';
import { gatewayProcessEnv, startServerProcess } from '../support/process.js';

// SIGTERM: stop accepting, finish in-flight streams, drain the log writer, exit 0. No row lost.
// Streams still running at the shutdown timeout are cut, and their rows are written all the same;
// a database that cannot be reached holds the exit up for the log drain's bound, no longer.

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

function gatewayEnv(databaseUrl: string, simulator: Simulator, extra: Record<string, string> = {}): Record<string, string> {
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

/** A TCP relay in front of PostgreSQL that can be cut, as a database gone unreachable. */
async function startDatabaseRelay(databaseUrl: string): Promise<{ url: string; cut(): Promise<void> }> {
  const target = new URL(databaseUrl);
  const sockets = new Set<Socket>();
  const relay: TcpServer = createTcpServer((inbound) => {
    const outbound = connect(Number(target.port || 5432), target.hostname);
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on('error', () => s.destroy());
      s.on('close', () => sockets.delete(s));
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const relayed = new URL(databaseUrl);
  relayed.hostname = '127.0.0.1';
  relayed.port = String((relay.address() as { port: number }).port);
  return {
    url: relayed.toString(),
    async cut() {
      const closed = new Promise((r) => relay.close(r));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
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
        body: JSON.stringify({ model: 'openai/gpt-4o-mini', stream: true, messages: [{ role: 'user', content: `drain ${i}` }] }),
      }).then((r) => r.text());

    const inFlight = Array.from({ length: 12 }, (_, i) => send(i));
    await new Promise((r) => setTimeout(r, 300));
    server.child.kill('SIGTERM');
    const bodies = await Promise.all(inFlight).catch((e) => { throw new Error(String(e) + server.output()); });
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
    const relay = await startDatabaseRelay(db.url);
    const server = startServerProcess(gatewayEnv(relay.url, sim, { GATEWAY_LOG_DRAIN_TIMEOUT_MS: '1500', GATEWAY_LOG_FLUSH_MS: '60000' }));
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
});
