import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../support/cli.js';
import { startTestEnv, type TestEnv, type TestTenant } from '../../support/harness.js';

// `gatewayctl health` on a gateway whose log writer cannot commit: the gateway still serves and
// reports itself degraded, and the table must say that the log writer is why (the database
// itself answers). The commits are refused by a trigger on the requests table, raising an error
// that is not about the rows' data, so the writer keeps the rows and retries, as in an outage.

let env: TestEnv;
let tenant: TestTenant;

beforeAll(async () => {
  env = await startTestEnv({ env: { GATEWAY_LOG_FLUSH_MS: '5' } });
  tenant = await env.createTenant('team');
});
afterAll(() => env?.close());

async function refuseLogCommits(): Promise<void> {
  await env.database.pool.query(`
    create function refuse_log_rows() returns trigger language plpgsql as $$
      begin raise exception 'log rows refused for this test'; end
    $$;
    create trigger refuse_log_rows before insert on requests for each row execute function refuse_log_rows();
  `);
}

async function acceptLogCommits(): Promise<void> {
  await env.database.pool.query('drop trigger refuse_log_rows on requests; drop function refuse_log_rows();');
}

describe('gatewayctl health when the log writer cannot commit', () => {
  it('names the log writer as the reason for degraded, with its queue, and exits 3', async () => {
    await refuseLogCommits();
    try {
      // No provider is configured: the call is a 404, which is still logged.
      const call = await env.http('POST', '/v1/chat/completions', {
        token: tenant.token,
        body: { model: 'openai/nope', messages: [{ role: 'user', content: 'hi' }] },
      });
      expect(call.status).toBe(404);
      await vi.waitFor(
        async () =>
          expect((await env.http('GET', '/health')).body).toMatchObject({
            status: 'degraded',
            logs: { queuedRows: 1 },
          }),
        { timeout: 10_000, interval: 50 },
      );

      const [table, json] = await Promise.all([
        runCli(['health'], { url: env.baseUrl }),
        runCli(['--json', 'health'], { url: env.baseUrl }),
      ]);
      expect(table).toMatchObject({ code: 3, stderr: '' });
      expect(table.stdout).toMatch(/STATUS\s*│\s*degraded: log writer cannot commit\s*│/);
      expect(table.stdout).toMatch(/DATABASE\s*│\s*reachable/);
      expect(table.stdout).toMatch(/LOG WRITER\s*│\s*failing for (\d+m )?\d+s \(1 row queued\)\s*│/);
      expect(json).toMatchObject({ code: 3, stderr: '' });
      expect(JSON.parse(json.stdout)).toMatchObject({
        status: 'degraded',
        database: { reachable: true },
        logs: { queuedRows: 1, failingForSeconds: expect.any(Number) },
      });
    } finally {
      await acceptLogCommits();
    }

    // Once the rows commit, the gateway is healthy again and the table says so.
    await vi.waitFor(
      async () =>
        expect((await env.http('GET', '/health')).body).toMatchObject({ status: 'ok', logs: { queuedRows: 0 } }),
      { timeout: 15_000, interval: 100 },
    );
    const healthy = await runCli(['health'], { url: env.baseUrl });
    expect(healthy).toMatchObject({ code: 0, stderr: '' });
    expect(healthy.stdout).toMatch(/STATUS\s*│\s*ok\s*│/);
    expect(healthy.stdout).toMatch(/LOG WRITER\s*│\s*committing\s*│/);
  });
});
