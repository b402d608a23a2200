import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { lines, runCli, runCliProcess, type CliResult } from '../../support/cli.js';
import { startTestEnv, type TestEnv, type TestTenant } from '../../support/harness.js';

// gatewayctl against a real gateway, in-process; the health and failure tests run the real binary
// as a child process (its exit codes and streams), which costs about half a second each.

let env: TestEnv;
let tenant: TestTenant;

/** Runs gatewayctl; the gateway URL and token come from the environment unless flags override them. */
function cli(args: string[], vars: { url?: string; token?: string } = {}): Promise<CliResult> {
  return runCli(args, { url: vars.url ?? env.baseUrl, token: vars.token ?? tenant.token });
}

/** The same through the gatewayctl binary, as a child process. */
function binary(args: string[], vars: { url?: string; token?: string } = {}): Promise<CliResult> {
  return runCliProcess(args, { url: vars.url ?? env.baseUrl, token: vars.token ?? tenant.token });
}

/** A local port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

beforeAll(async () => {
  env = await startTestEnv();
  tenant = await env.createTenant('team');
});
afterAll(() => env?.close());

describe('gatewayctl', () => {
  it('health prints a table, and the raw result with --json (no token needed)', async () => {
    const table = await binary(['health'], { token: '' });
    expect(table).toMatchObject({ code: 0, stderr: '' });
    expect(table.stdout).toMatch(/STATUS\s*│\s*ok\s*│/);
    expect(table.stdout).toMatch(/DATABASE\s*│\s*reachable/);
    expect(table.stdout).toMatch(/LOG WRITER\s*│\s*committing/);
    expect(table.stdout).toMatch(/RATE LIMITS\s*│\s*per process/);

    const json = await binary(['--json', 'health', '--url', env.baseUrl], { url: 'http://127.0.0.1:1', token: '' });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ status: 'ok', mode: 'multi', database: { reachable: true } });
  });

  it('manages a token from create to delete, showing its secret only once', async () => {
    const sdk = env.sdk(tenant.token);

    const created = await cli(['tokens', 'create', 'ci-bot', '--spend-limit', '12.5', '--rate-limit', '60']);
    expect(created).toMatchObject({ code: 0, stderr: '' });
    const secret = /Secret: (\S+)/.exec(created.stdout)?.[1] ?? '';
    expect(secret).toMatch(/^gw_/);
    expect(created.stdout.split(secret).length - 1).toBe(1);
    expect(created.stdout).toMatch(/store it now/i);
    const listedBySdk = (await sdk.tokens.list.query()).items.find((t) => t.name === 'ci-bot');
    expect(listedBySdk).toMatchObject({
      enabled: true,
      admin: false,
      spendLimitUsd: 12.5,
      spentUsd: 0,
      rateLimitPerMinute: 60,
    });
    const id = listedBySdk!.id;

    const list = await cli(['tokens', 'list', '--token', tenant.token], { token: 'gw_wrong' });
    expect(list.code).toBe(0);
    const row = lines(list.stdout).find((l) => l.includes(id)) ?? '';
    for (const cell of ['ci-bot', listedBySdk!.prefix, '│ $0.00 │', '$12.50', '60/min']) expect(row).toContain(cell);
    expect(list.stdout).toMatch(/ID\s*│\s*NAME\s*│\s*PREFIX\s*│\s*ENABLED/);
    expect(list.stdout).not.toContain(secret);
    // The smallest limit is a hundredth of a cent: shown as such, not rounded to $0.00.
    const tiny = await cli(['tokens', 'create', 'tiny', '--spend-limit', '0.0001', '--json']);
    const tinyId = JSON.parse(tiny.stdout).id as string;
    expect(lines((await cli(['tokens', 'list'])).stdout).find((l) => l.includes(tinyId))).toContain('$0.0001');
    expect((await cli(['tokens', 'delete', tinyId])).code).toBe(0);

    const disabled = await cli(['tokens', 'disable', id, '--json']);
    expect(disabled.code).toBe(0);
    expect(JSON.parse(disabled.stdout)).toMatchObject({ id, enabled: false });
    await expect(env.sdk(secret).system.health.query()).resolves.toBeDefined();
    await expect(env.sdk(secret).tokens.list.query()).rejects.toThrow(/Invalid or disabled/);

    const enabled = await cli(['tokens', 'enable', id]);
    expect(enabled).toMatchObject({ code: 0, stdout: `Token ${id} (ci-bot) enabled.\n` });
    expect((await sdk.tokens.list.query()).items.find((t) => t.id === id)?.enabled).toBe(true);

    const deleted = await cli(['tokens', 'delete', id, '--json']);
    expect(deleted.code).toBe(0);
    expect(JSON.parse(deleted.stdout)).toEqual({ id, deleted: true });
    expect((await sdk.tokens.list.query()).items.some((t) => t.id === id)).toBe(false);

    // --json returns the whole created object, secret included, for scripts that store it.
    const createdJson = await cli(['--json', 'tokens', 'create', 'deployer', '--admin']);
    expect(createdJson.code).toBe(0);
    const body = JSON.parse(createdJson.stdout);
    expect(body).toMatchObject({
      name: 'deployer',
      admin: true,
      enabled: true,
      spendLimitUsd: null,
      rateLimitPerMinute: null,
    });
    expect(body.token).toMatch(/^gw_/);
    expect(body.token.startsWith(body.prefix)).toBe(true);
  });

  it('audit list shows the changes, filtered, and walks every page with --all', async () => {
    const filtered = await cli(['audit', 'list', '--json', '--action', 'token.update', '--target-type', 'token']);
    expect(filtered.code).toBe(0);
    const page = JSON.parse(filtered.stdout);
    expect(page.items).toHaveLength(2);
    expect(page.items.every((e: { action: string }) => e.action === 'token.update')).toBe(true);

    const all = await cli(['audit', 'list', '--all', '--limit', '2']);
    expect(all.code).toBe(0);
    const rows = lines(all.stdout).filter((l) => /token\.(create|update|delete)/.test(l));
    const total = (await env.sdk(tenant.token).audit.list.query({ limit: 500 })).items.length;
    expect(total).toBeGreaterThanOrEqual(5);
    expect(rows).toHaveLength(total);
    expect(all.stdout).toContain('enabled: true → false');
    expect(all.stdout).not.toContain('More entries exist');
  });

  it('reports failures as one line on stderr with a non-zero exit code', async () => {
    const port = await closedPort();
    const [wrongToken, unreachable, badNumber] = await Promise.all([
      binary(['tokens', 'list'], { token: 'gw_not_a_real_token' }),
      binary(['health'], { url: `http://127.0.0.1:${port}` }),
      binary(['audit', 'list', '--limit', 'ten']),
    ]);

    expect(wrongToken).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'error: auth_error: Invalid or disabled API token\n',
    });

    expect(unreachable).toMatchObject({ code: 1, stdout: '' });
    expect(lines(unreachable.stderr)).toHaveLength(1);
    expect(unreachable.stderr).toContain(`error: cannot reach gateway at http://127.0.0.1:${port}: `);
    expect(unreachable.stderr).toContain('ECONNREFUSED');

    expect(badNumber.code).toBe(2);
    expect(lines(badNumber.stderr)).toEqual([expect.stringMatching(/^error: .*--limit.*'ten'.*positive integer/)]);
  });

  it('tokens update renames a token and sets or removes its limits', async () => {
    const sdk = env.sdk(tenant.token);
    const { id } = await sdk.tokens.create.mutate({ name: 'capped', spendLimitUsd: 1 });

    const updated = await cli([
      'tokens',
      'update',
      id,
      '--name',
      'uncapped',
      '--spend-limit',
      'none',
      '--rate-limit',
      '120',
    ]);
    expect(updated).toMatchObject({ code: 0, stderr: '' });
    const row = lines(updated.stdout).find((l) => l.includes(id)) ?? '';
    for (const cell of ['uncapped', '120/min']) expect(row).toContain(cell);
    expect((await sdk.tokens.list.query()).items.find((t) => t.id === id)).toMatchObject({
      name: 'uncapped',
      spendLimitUsd: null,
      rateLimitPerMinute: 120,
    });

    const json = await cli(['--json', 'tokens', 'update', id, '--spend-limit', '2.5', '--rate-limit', 'NONE']);
    expect(JSON.parse(json.stdout)).toMatchObject({ id, spendLimitUsd: 2.5, rateLimitPerMinute: null });

    const [nothing, badLimit, missing] = await Promise.all([
      cli(['tokens', 'update', id]),
      cli(['tokens', 'update', id, '--rate-limit', '1.5']),
      cli(['tokens', 'update', 'tok_missing', '--name', 'x']),
    ]);
    expect(nothing).toMatchObject({
      code: 2,
      stderr: 'error: nothing to change: pass --name, --spend-limit or --rate-limit\n',
    });
    expect(badLimit.code).toBe(2);
    expect(badLimit.stderr).toContain('Expected a positive integer, or none to remove the limit.');
    expect(missing).toMatchObject({ code: 1, stderr: "error: not_found_error: Token 'tok_missing' not found\n" });
    await sdk.tokens.remove.mutate({ id });
  });

  it('shows control characters in names as escapes: no terminal sequences, one line per row', async () => {
    // The gateway refuses such names now, but one stored before that rule (or written to the
    // database by hand) must still not drive the reader's terminal.
    const name = 'evil\u001b]0;owned\u0007\u001b[2J\nsecond line\u009b31m\u202eright-to-left';
    const { id } = await env.sdk(tenant.token).tokens.create.mutate({ name: 'renamed below' });
    await env.database.pool.query('update api_tokens set name = $1 where id = $2', [name, id]);
    const [table, json] = await Promise.all([cli(['tokens', 'list']), cli(['--json', 'tokens', 'list'])]);
    expect(table.code).toBe(0);
    expect(table.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
    const row = lines(table.stdout).find((l) => l.includes(id)) ?? '';
    expect(row).toContain('evil\\u001b]0;owned\\u0007\\u001b[2J\\nsecond line\\u009b31m\\u202eright-to-left');
    // --json stays the API's value: the escapes are JSON's own, so it parses back to the same name.
    expect(json.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(JSON.parse(json.stdout).items.find((t: { id: string }) => t.id === id).name).toBe(name);
    await env.sdk(tenant.token).tokens.remove.mutate({ id });
  });
});

describe('gatewayctl health on a degraded gateway', () => {
  let degraded: TestEnv;

  beforeAll(async () => {
    // Shared rate limits through a Redis that is not there (nothing listens on port 1): the gateway serves, degraded.
    degraded = await startTestEnv({ env: { REDIS_URL: 'redis://127.0.0.1:1', GATEWAY_RATE_SYNC_MS: '100' } });
    // Health reports what the store answered last time: wait for the first failed sync.
    await vi.waitFor(
      async () => expect((await degraded.http('GET', '/health')).body).toMatchObject({ status: 'degraded' }),
      { timeout: 10_000, interval: 100 },
    );
  });
  afterAll(() => degraded?.close());

  it('prints the state and exits 3, in a table and with --json', async () => {
    const [table, json] = await Promise.all([
      runCli(['health'], { url: degraded.baseUrl, token: '' }),
      runCli(['--json', 'health'], { url: degraded.baseUrl, token: '' }),
    ]);
    expect(table).toMatchObject({ code: 3, stderr: '' });
    // The status names its cause; the other parts read as fine.
    expect(table.stdout).toMatch(/STATUS\s*│\s*degraded: rate-limit Redis unreachable\s*│/);
    expect(table.stdout).toMatch(/DATABASE\s*│\s*reachable/);
    expect(table.stdout).toMatch(/LOG WRITER\s*│\s*committing\s*│/);
    expect(table.stdout).toMatch(/RATE LIMITS\s*│\s*shared through Redis \(unreachable\)/);
    expect(json).toMatchObject({ code: 3, stderr: '' });
    expect(JSON.parse(json.stdout)).toMatchObject({
      status: 'degraded',
      rateLimits: { shared: true, reachable: false },
    });
  });
});
