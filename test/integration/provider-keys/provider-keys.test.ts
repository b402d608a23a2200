import { randomBytes } from 'node:crypto';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../../server/config.js';
import { rotateKeys } from '../../../server/rotate-keys.js';
import { startTestEnv, type TestEnv, type TestNode, type TestTenant } from '../../support/harness.js';
import { keyedStandIn, type KeyedStandIn } from '../../support/keyed-stand-in.js';
import { crossTenantMatrix, expectTypedError, securityMatrix, type SecurityContext } from '../../support/security.js';
import { StandIns } from '../../support/stand-in.js';

// Workspace provider keys (GET, POST, DELETE /v1/api-keys): sealed at rest, shown masked, checked
// with the provider on create, used for the workspace's calls instead of the deployment's key (and
// the deployment's key withheld when the operator says so), refreshed on every node, re-sealed by
// the rotation command. The provider is a stand-in that checks keys as OpenAI does.

const DEPLOYMENT_KEY = 'sk-deployment-key-0000';
const WORKSPACE_KEY = 'sk-workspace-secret-key-a1b2';
const OTHER_KEY = 'sk-workspace-second-key-c3d4';
const KEY_1 = randomBytes(32).toString('base64');

const standIns = new StandIns();
let provider: KeyedStandIn;
let env: TestEnv;
let owner: TestTenant;
let other: TestTenant;
const ids: Record<string, string> = {};

beforeAll(async () => {
  provider = await keyedStandIn(standIns, ['gpt-4o-mini'], [DEPLOYMENT_KEY, WORKSPACE_KEY, OTHER_KEY]);
  env = await startTestEnv({
    env: {
      OPENAI_API_KEY: DEPLOYMENT_KEY,
      OPENAI_BASE_URL: `${provider.base}/v1`,
      GATEWAY_ENCRYPTION_KEY: KEY_1,
      GATEWAY_CACHE_ENABLED: 'false',
    },
  });
  owner = await env.createTenant();
  other = await env.createTenant();
});
afterAll(async () => {
  await env.close();
  await standIns.closeAll();
});

const chat = async (baseUrl: string, token: string) => {
  const client = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: token, maxRetries: 0 });
  return client.chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
};

/** The key the stand-in saw on the next chat call from `token` at `baseUrl`. */
async function keyUsedBy(baseUrl: string, token: string): Promise<string | undefined> {
  const before = provider.chatKeys.length;
  await chat(baseUrl, token);
  return provider.chatKeys[before];
}

describe('provider keys', () => {
  it("stores a workspace's key sealed, shows it masked, and its calls use it", async () => {
    expect(await keyUsedBy(env.baseUrl, owner.token)).toBe(DEPLOYMENT_KEY);
    const created = await env.http('POST', '/v1/api-keys', {
      token: owner.token,
      body: { provider: 'openai', key: WORKSPACE_KEY },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toMatchObject({ provider: 'openai', maskedKey: '…a1b2', verified: true, keyId: 'k1' });
    expect(JSON.stringify(created.body)).not.toContain(WORKSPACE_KEY);
    ids.key = created.body.id;

    const listed = await env.http('GET', '/v1/api-keys', { token: owner.token });
    expect(listed.body.items).toEqual([expect.objectContaining({ id: ids.key, maskedKey: '…a1b2' })]);
    expect(JSON.stringify(listed.body)).not.toContain(WORKSPACE_KEY);

    // At rest: a ciphertext, not the key.
    const rows = await env.database.pool.query('select ciphertext, last4 from provider_keys where id = $1', [ids.key]);
    expect(rows.rows[0].last4).toBe('a1b2');
    expect(rows.rows[0].ciphertext).not.toContain(WORKSPACE_KEY);
    expect(Buffer.from(rows.rows[0].ciphertext.split('.')[3], 'base64url').toString()).not.toContain('secret');

    expect(await keyUsedBy(env.baseUrl, owner.token)).toBe(WORKSPACE_KEY);
    // Another workspace keeps the deployment's key.
    expect(await keyUsedBy(env.baseUrl, other.token)).toBe(DEPLOYMENT_KEY);

    const providers = await env.http('GET', '/v1/providers', { token: owner.token });
    expect(providers.body.items.find((p: { name: string }) => p.name === 'openai').source).toBe('workspace');
    const others = await env.http('GET', '/v1/providers', { token: other.token });
    expect(others.body.items.find((p: { name: string }) => p.name === 'openai').source).toBe('env');
  });

  it('refuses with a typed 400 a key the provider refuses, and stores nothing', async () => {
    const t = await env.createTenant();
    const res = await env.http('POST', '/v1/api-keys', {
      token: t.token,
      body: { provider: 'openai', key: 'sk-refused-by-provider-9999' },
    });
    expectTypedError(res, 400, 'invalid_request_error');
    expect(res.body.error.code).toBe('provider_key_rejected');
    expect(res.body.error.message).not.toContain('sk-refused-by-provider');
    expect((await env.http('GET', '/v1/api-keys', { token: t.token })).body.items).toEqual([]);
  });

  it('refuses unknown providers, local ones and bad bodies with a 400', async () => {
    for (const body of [
      { provider: 'nope', key: 'sk-aaaaaaaaaaaa' },
      { provider: 'ollama', key: 'sk-aaaaaaaaaaaa' },
      { provider: 'openai' },
      { provider: 'openai', key: 'sk-aaaaaaaaaaaa', extra: 1 },
    ])
      expectTypedError(
        await env.http('POST', '/v1/api-keys', { token: owner.token, body }),
        400,
        'invalid_request_error',
      );
  });

  it('refuses a base URL at a private address unless the operator allows them', async () => {
    for (const baseUrl of ['http://127.0.0.1:9/v1', 'http://169.254.169.254/', 'http://localhost:9/v1']) {
      const res = await env.http('POST', '/v1/api-keys', {
        token: owner.token,
        body: { provider: 'groq', key: 'gsk-aaaaaaaaaaaaaaaa', baseUrl },
      });
      expectTypedError(res, 400, 'invalid_request_error');
      expect(res.body.error.message).toContain('private');
    }
  });

  it('keeps the key out of the audit log and /metrics', async () => {
    const audit = await env.http('GET', '/v1/audit-logs?limit=200', { token: owner.token });
    const rows = audit.body.items.filter((r: { action: string }) => r.action.startsWith('provider_key.'));
    expect(rows.map((r: { action: string }) => r.action)).toContain('provider_key.create');
    expect(JSON.stringify(audit.body)).not.toContain(WORKSPACE_KEY);
    const metrics = await env.http('GET', '/metrics');
    expect(String(metrics.body)).not.toContain(WORKSPACE_KEY);
  });

  it('is heard by every node; without shared deployment keys a workspace has only its own', async () => {
    const node: TestNode = await env.addNode({ GATEWAY_SHARE_DEPLOYMENT_KEYS: 'false' });
    const t = await env.createTenant();
    // No key of its own: the deployment's openai is not this workspace's on that node.
    await expect(chat(node.baseUrl, t.token)).rejects.toMatchObject({ status: 404 });
    expect(await keyUsedBy(node.baseUrl, owner.token)).toBe(WORKSPACE_KEY);
    // A key stored through the first node reaches the second through NOTIFY.
    const made = await env.http('POST', '/v1/api-keys', {
      token: t.token,
      body: { provider: 'openai', key: OTHER_KEY },
    });
    expect(made.status).toBe(200);
    await vi.waitFor(async () => expect(await keyUsedBy(node.baseUrl, t.token)).toBe(OTHER_KEY), { timeout: 5000 });
    // Deleted: gone on that node too.
    await env.http('DELETE', `/v1/api-keys/${made.body.id}`, { token: t.token });
    await vi.waitFor(async () => expect(chat(node.baseUrl, t.token)).rejects.toMatchObject({ status: 404 }), {
      timeout: 5000,
    });
  });

  it('replaces the key on a second POST for the same provider, keeping its id', async () => {
    const t = await env.createTenant();
    const first = await env.http('POST', '/v1/api-keys', {
      token: t.token,
      body: { provider: 'openai', key: OTHER_KEY },
    });
    const second = await env.http('POST', '/v1/api-keys', {
      token: t.token,
      body: { provider: 'openai', key: WORKSPACE_KEY },
    });
    expect(second.body.id).toBe(first.body.id);
    expect(second.body.maskedKey).toBe('…a1b2');
    expect(await keyUsedBy(env.baseUrl, t.token)).toBe(WORKSPACE_KEY);
  });

  it('re-seals every row under a new key with the rotation command; a node with only the new key opens them', async () => {
    const key2 = randomBytes(32).toString('base64');
    const rotated = loadConfig({
      DATABASE_URL: env.databaseUrl,
      GATEWAY_ENCRYPTION_KEY: key2,
      GATEWAY_ENCRYPTION_KEY_ID: 'k2',
      GATEWAY_ENCRYPTION_PREVIOUS_KEYS: `k1:${KEY_1}`,
    });
    const report = await rotateKeys(rotated, env.database.db);
    expect(report.providerKeys.resealed).toBeGreaterThan(0);
    expect(report.providerKeys.failed).toBe(0);
    const again = await rotateKeys(rotated, env.database.db);
    expect(again.providerKeys.resealed).toBe(0);
    const listed = await env.http('GET', '/v1/api-keys', { token: owner.token });
    expect(listed.body.items[0].keyId).toBe('k2');

    const node = await env.addNode({ GATEWAY_ENCRYPTION_KEY: key2, GATEWAY_ENCRYPTION_KEY_ID: 'k2' });
    expect(await keyUsedBy(node.baseUrl, owner.token)).toBe(WORKSPACE_KEY);
    // The first node (old key only) can no longer open them: the deployment key answers, as the
    // workspace's key is left out with an error in the log, never a 500.
    await env.services.dataPlane.workspaceProviders?.reload(owner.tenantId);
    expect(await keyUsedBy(env.baseUrl, owner.token)).toBe(DEPLOYMENT_KEY);
  });

  it('deletes a key: the workspace falls back to the deployment key', async () => {
    const t = await env.createTenant();
    const made = await env.http('POST', '/v1/api-keys', {
      token: t.token,
      body: { provider: 'openai', key: OTHER_KEY },
    });
    expect(await keyUsedBy(env.baseUrl, t.token)).toBe(OTHER_KEY);
    const gone = await env.http('DELETE', `/v1/api-keys/${made.body.id}`, { token: t.token });
    expect(gone.body).toEqual({ id: made.body.id, deleted: true });
    expect(await keyUsedBy(env.baseUrl, t.token)).toBe(DEPLOYMENT_KEY);
    expectTypedError(
      await env.http('DELETE', `/v1/api-keys/${made.body.id}`, { token: t.token }),
      404,
      'not_found_error',
    );
  });

  it('works through the SDK', async () => {
    const t = await env.createTenant();
    const sdk = env.sdk(t.token);
    const made = await sdk.providerKeys.create.mutate({ provider: 'openai', key: OTHER_KEY });
    expect((await sdk.providerKeys.list.query()).items.map((k) => k.id)).toEqual([made.id]);
    await sdk.providerKeys.remove.mutate({ id: made.id });
    expect((await sdk.providerKeys.list.query()).items).toEqual([]);
  });

  it('lists its paths in /openapi.json', async () => {
    const { paths } = (await env.http('GET', '/openapi.json')).body;
    expect(Object.keys(paths['/v1/api-keys'])).toEqual(expect.arrayContaining(['get', 'post']));
    expect(Object.keys(paths['/v1/api-keys/{id}'])).toEqual(['delete']);
  });
});

describe('security', () => {
  const ctx = (): SecurityContext => ({ owner, other, ids });
  securityMatrix(() => env, ctx, [
    { method: 'GET', path: '/v1/api-keys' },
    { method: 'POST', path: '/v1/api-keys', body: { provider: 'openai', key: OTHER_KEY } },
    { method: 'DELETE', path: (x) => `/v1/api-keys/${x.ids.key}` },
  ]);
  crossTenantMatrix(() => env, ctx, [{ method: 'DELETE', path: (x) => `/v1/api-keys/${x.ids.key}` }]);
});
