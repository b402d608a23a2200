import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../server/simulator/index.js';
import { createTestDatabase } from '../support/database.js';
import { startServerProcess } from '../support/process.js';

// SIGTERM: stop accepting, finish in-flight streams, drain the log writer, exit 0. No row lost.

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

describe('graceful shutdown', () => {
  it('finishes in-flight streams and writes every row before exiting', async () => {
    const token = 'gw_shutdown-test-admin-token';
    const server = startServerProcess({
      DATABASE_URL: db.url,
      PORT: '0',
      HOST: '127.0.0.1',
      GATEWAY_MODE: 'single',
      GATEWAY_ADMIN_TOKEN: token,
      GATEWAY_SIMULATOR: 'off',
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: sim.baseUrls.openai,
      OLLAMA_BASE_URL: 'http://127.0.0.1:9/v1',
      GATEWAY_LOG_FLUSH_MS: '2000',
      LOG_LEVEL: 'warn',
    });
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
});
