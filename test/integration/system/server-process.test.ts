import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestDatabase } from '../../support/database.js';
import { gatewayProcessEnv, startServerProcess } from '../../support/process.js';
import { startSimulator } from '../../../server/simulator/index.js';

// `npm start` on a bare machine: embedded PostgreSQL, migrations, a generated admin token printed
// once, data kept across restarts, clean exit on SIGTERM.

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'gateway-start-'));
});
afterAll(() => rm(dataDir, { recursive: true, force: true }));

const env = () => ({
  DATABASE_URL: undefined,
  GATEWAY_DATA_DIR: dataDir,
  PORT: '0',
  HOST: '127.0.0.1',
  GATEWAY_ADMIN_TOKEN: undefined,
  LOG_LEVEL: 'warn',
});

describe('the server process', () => {
  it('starts on an embedded database, keeps data across restarts and stops cleanly', async () => {
    const first = startServerProcess(env());
    const [, port] = await first.waitFor(/listening on http:\/\/[\d.]+:(\d+)/, 60_000);
    const [, token] = await first.waitFor(/Admin token \(shown once.*\): (gw_\S+)/);
    const base = `http://127.0.0.1:${port}`;

    const health: any = await (await fetch(`${base}/health`)).json();
    expect(health).toMatchObject({ status: 'ok', mode: 'single', database: { reachable: true } });
    const created: any = await (
      await fetch(`${base}/v1/admin/tokens`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{"name":"kept"}',
      })
    ).json();
    expect(created.name).toBe('kept');

    // No provider credential: the built-in simulator answers, and its failures read as its own
    // (the error messages have the provider's key blanked out, and that key is no word in them).
    const [, simulatorUrl] = await first.waitFor(/built-in simulator at (http:\/\/[\d.:]+)/);
    const chat = (model: string) =>
      fetch(`${base}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
      });
    expect(first.output()).toContain('stands in for openai, anthropic and gemini');
    const answered: any = await (await chat('')).json();
    expect(['openai', 'anthropic', 'gemini']).toContain(answered._gateway.provider);
    expect(answered._gateway.simulated).toBe(true);
    await fetch(`${simulatorUrl}/_simulator/config`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ faults: [{ status: 500 }] }),
    });
    const failed = await chat('openai/gpt-4o-mini');
    expect(failed.status).toBe(502);
    const { error }: any = await failed.json();
    expect(error.attempts[0].message).toContain('openai returned HTTP 500');
    expect(error.message).not.toContain('***');
    expect(await first.stop('SIGTERM')).toBe(0);

    const second = startServerProcess(env());
    const [, port2] = await second.waitFor(/listening on http:\/\/[\d.]+:(\d+)/, 60_000);
    // The generated token is printed only on first start and still works after the restart.
    expect(second.output()).not.toContain('Admin token');
    const list: any = await (
      await fetch(`http://127.0.0.1:${port2}/v1/admin/tokens`, { headers: { authorization: `Bearer ${token}` } })
    ).json();
    expect(list.items.map((t: { name: string }) => t.name)).toContain('kept');
    expect(await second.stop('SIGINT')).toBe(0);
  }, 120_000);

  it("keeps the embedded database out of the terminal's Ctrl-C: the gateway drains its log rows, then stops it; a crash leaves nothing that blocks the next start", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'gateway-signals-'));
    const childEnv = (): Record<string, string> => {
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries({
        ...process.env,
        ...env(),
        GATEWAY_DATA_DIR: dir,
        GATEWAY_LOG_FLUSH_MS: '60000',
        GATEWAY_JOBS: 'off',
      }))
        if (v !== undefined) out[k] = v;
      return out;
    };
    try {
      // A process group of its own, as a terminal's foreground job: Ctrl-C signals the whole group.
      const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
        env: childEnv(),
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      let out = '';
      child.stdout!.on('data', (d) => (out += d));
      child.stderr!.on('data', (d) => (out += d));
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      const waitFor = async (pattern: RegExp) => {
        for (let i = 0; i < 600 && !pattern.test(out); i++) await new Promise((r) => setTimeout(r, 100));
        return out.match(pattern)!;
      };
      const [, port] = await waitFor(/listening on http:\/\/[\d.]+:(\d+)/);
      const [, token] = await waitFor(/Admin token \(shown once.*\): (gw_\S+)/);
      // The superuser's password is random and readable by this user only.
      expect(statSync(path.join(dir, 'pg-password')).mode & 0o077).toBe(0);
      const called = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: '', messages: [{ role: 'user', content: 'queued until shutdown' }] }),
      });
      const id = called.headers.get('x-gateway-request-id');
      process.kill(-child.pid!, 'SIGINT');
      expect(await exited, out).toBe(0);

      // Its row was written before the database stopped. Then a crash: kill -9 leaves the database
      // running, and the next start stops it and goes on.
      const second = startServerProcess({ ...env(), GATEWAY_DATA_DIR: dir });
      const [, port2] = await second.waitFor(/listening on http:\/\/[\d.]+:(\d+)/, 60_000);
      const rows: any = await (
        await fetch(`http://127.0.0.1:${port2}/v1/analytics/requests`, {
          headers: { authorization: `Bearer ${token}` },
        })
      ).json();
      expect(rows.items.map((r: { id: string }) => r.id)).toContain(id);
      second.child.kill('SIGKILL');
      await new Promise((resolve) => second.child.on('exit', resolve));
      const third = startServerProcess({ ...env(), GATEWAY_DATA_DIR: dir });
      const [, port3] = await third.waitFor(/listening on http:\/\/[\d.]+:(\d+)/, 60_000);
      expect((await fetch(`http://127.0.0.1:${port3}/health`)).status).toBe(200);
      expect(await third.stop('SIGTERM')).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it('refuses to start with invalid configuration, naming the variable', async () => {
    const bad = startServerProcess({ ...env(), GATEWAY_MODE: 'both' });
    const code = await new Promise<number | null>((resolve) => bad.child.on('exit', resolve));
    expect(code).toBe(1);
    expect(bad.output()).toContain('GATEWAY_MODE');
  });

  it('generates the admin token only once it can print it: a first start that cannot listen leaves none behind', async () => {
    const db = await createTestDatabase();
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const port = String((taken.address() as { port: number }).port);
      const base = {
        DATABASE_URL: db.url,
        GATEWAY_ADMIN_TOKEN: undefined,
        GATEWAY_SIMULATOR: 'off',
        GATEWAY_JOBS: 'off',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        OLLAMA_BASE_URL: 'http://127.0.0.1:9/v1',
      };
      const failed = startServerProcess({ ...base, PORT: port });
      expect(await new Promise<number | null>((resolve) => failed.child.on('exit', resolve))).toBe(1);
      expect(failed.output()).toContain('EADDRINUSE');
      expect(failed.output()).not.toContain('Admin token');

      const next = startServerProcess({ ...base, PORT: '0' });
      const [, listening] = await next.waitFor(/listening on http:\/\/[\d.]+:(\d+)/, 60_000);
      const [, token] = await next.waitFor(/Admin token \(shown once.*\): (gw_\S+)/);
      expect(
        (
          await fetch(`http://127.0.0.1:${listening}/v1/admin/tokens`, {
            headers: { authorization: `Bearer ${token}` },
          })
        ).status,
      ).toBe(200);
      expect(await next.stop('SIGTERM')).toBe(0);
    } finally {
      taken.close();
      await db.drop();
    }
  }, 90_000);

  it("reloads the deployment's providers on SIGHUP: the env file's new key is used without a restart", async () => {
    const db = await createTestDatabase();
    const upstream = await startSimulator({ seed: 5 });
    const envFile = path.join(dataDir, 'sighup.env');
    writeFileSync(envFile, '');
    const token = 'gw_sighup_admin_token_0123456789';
    // No Mistral key at start: a call to a Mistral model cannot be served.
    const server = startServerProcess(
      gatewayProcessEnv(db.url, upstream.baseUrls.openai, token, { GATEWAY_ENV_FILE: envFile }),
    );
    try {
      const [, port] = await server.waitFor(/listening on http:\/\/[\d.]+:(\d+)/, 60_000);
      const providers = async () =>
        (
          (await (
            await fetch(`http://127.0.0.1:${port}/v1/providers`, { headers: { authorization: `Bearer ${token}` } })
          ).json()) as { items: Array<{ name: string }> }
        ).items.map((p) => p.name);
      expect(await providers()).not.toContain('mistral');
      // Mistral speaks the OpenAI format: the simulator's OpenAI endpoint serves it.
      writeFileSync(envFile, `MISTRAL_API_KEY=sk-new\nMISTRAL_BASE_URL=${upstream.baseUrls.openai}\n`);
      server.child.kill('SIGHUP');
      await vi.waitFor(async () => expect(await providers()).toContain('mistral'), { timeout: 30_000, interval: 200 });
      expect(await server.stop('SIGTERM')).toBe(0);
    } finally {
      await server.stop('SIGKILL');
      await upstream.close();
      await db.drop();
    }
  }, 90_000);
});
