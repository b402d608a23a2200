import { randomBytes } from 'node:crypto';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { httpClient, startTestEnv, type TestEnv, type TestNode, type TestTenant } from '../../support/harness.js';
import { keyedStandIn, type KeyedStandIn } from '../../support/keyed-stand-in.js';
import { crossTenantMatrix, expectTypedError, securityMatrix, type SecurityContext } from '../../support/security.js';
import { StandIns } from '../../support/stand-in.js';

// Custom providers (GET, POST, PATCH, DELETE /v1/admin/providers): a workspace's own OpenAI-format
// endpoint, routed to with its own prices, cached and logged like a built-in one, and kept away
// from private addresses both when the URL is given and when each connection is made. The first
// node lets the loopback stand-in through (GATEWAY_ALLOW_PRIVATE_PROVIDER_URLS, as a test needs);
// a second node on the same database does not.

const KEY = 'sk-custom-provider-key-9f8e';

const standIns = new StandIns();
let upstream: KeyedStandIn;
let env: TestEnv;
let strict: TestNode;
let owner: TestTenant;
let other: TestTenant;
const ids: Record<string, string> = {};

beforeAll(async () => {
  upstream = await keyedStandIn(standIns, ['corp-large', 'corp-small'], [KEY]);
  env = await startTestEnv({
    env: {
      GATEWAY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      GATEWAY_ALLOW_PRIVATE_PROVIDER_URLS: 'true',
    },
  });
  strict = await env.addNode({ GATEWAY_ALLOW_PRIVATE_PROVIDER_URLS: 'false' });
  owner = await env.createTenant();
  other = await env.createTenant();
});
afterAll(async () => {
  await env.close();
  await standIns.closeAll();
});

const chat = (baseUrl: string, token: string, model: string, extra: Record<string, unknown> = {}) =>
  new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: token, maxRetries: 0 }).chat.completions.create({
    model,
    messages: [{ role: 'user', content: 'hello there' }],
    ...extra,
  });

const create = (token: string, body: Record<string, unknown>, baseUrl = env.baseUrl) =>
  httpClient(baseUrl)('POST', '/v1/admin/providers', { token, body });

describe('custom providers', () => {
  it('adds an OpenAI-format endpoint that calls route to, costed at its own prices', async () => {
    const res = await create(owner.token, {
      name: 'corp',
      baseUrl: `${upstream.base}/v1`,
      key: KEY,
      models: [{ id: 'corp-large', inputPerMillionUsd: 3, outputPerMillionUsd: 15, tools: true }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      name: 'corp',
      family: 'openai-compatible',
      maskedKey: '…9f8e',
      active: true,
      servedModels: ['corp-large'],
    });
    expect(JSON.stringify(res.body)).not.toContain(KEY);
    ids.provider = res.body.id;

    const answer = await chat(env.baseUrl, owner.token, 'corp/corp-large', { temperature: 0 });
    const meta = (answer as unknown as { _gateway: { provider: string; model: string; cost: number } })._gateway;
    expect(meta).toMatchObject({ provider: 'corp', model: 'corp-large' });
    // 10 prompt and 2 completion tokens at $3 and $15 per million.
    expect(meta.cost).toBeCloseTo((10 * 3 + 2 * 15) / 1e6, 12);
    expect(upstream.chatKeys.at(-1)).toBe(KEY);

    // Cached like any other: the same call again is answered by the gateway.
    const calls = upstream.chatKeys.length;
    const again = await chat(env.baseUrl, owner.token, 'corp/corp-large', { temperature: 0 });
    expect((again as unknown as { _gateway: { cached: boolean } })._gateway.cached).toBe(true);
    expect(upstream.chatKeys.length).toBe(calls);

    const providers = await env.http('GET', '/v1/providers', { token: owner.token });
    expect(providers.body.items.find((p: { name: string }) => p.name === 'corp')).toMatchObject({
      source: 'custom',
      models: ['corp-large'],
    });
    const models = await env.http('GET', '/v1/models', { token: owner.token });
    expect(models.body.data.map((m: { id: string }) => m.id)).toContain('corp/corp-large');
    const stats = await vi.waitFor(
      async () => {
        const s = await env.http('GET', '/v1/models/stats', { token: owner.token });
        const row = s.body.items.find((r: { provider: string }) => r.provider === 'corp');
        // The request rows and the cost row may commit in different batches of the log writer.
        expect(row?.requests).toBe(2);
        expect(row?.upstreamCalls).toBe(1);
        return row;
      },
      { timeout: 5000 },
    );
    expect(stats.totalCostUsd).toBeGreaterThan(0);
  });

  it("is the workspace's alone: another workspace cannot route to it", async () => {
    await expect(chat(env.baseUrl, other.token, 'corp/corp-large')).rejects.toMatchObject({ status: 404 });
    const providers = await env.http('GET', '/v1/providers', { token: other.token });
    expect(providers.body.items.map((p: { name: string }) => p.name)).not.toContain('corp');
  });

  it('discovers models when asked, and changes and deletes', async () => {
    const t = await env.createTenant();
    const res = await create(t.token, { name: 'disc', baseUrl: `${upstream.base}/v1`, key: KEY, discover: true });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.servedModels.sort(), JSON.stringify(res.body)).toEqual(['corp-large', 'corp-small']);

    const refused = await create(t.token, {
      name: 'badkey',
      baseUrl: `${upstream.base}/v1`,
      key: 'sk-wrong-key-0000',
      discover: true,
    });
    expectTypedError(refused, 400, 'invalid_request_error');
    expect(refused.body.error.code).toBe('provider_key_rejected');

    const patched = await env.http('PATCH', `/v1/admin/providers/${res.body.id}`, {
      token: t.token,
      body: { discover: false, models: [{ id: 'corp-small' }] },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.servedModels).toEqual(['corp-small']);
    await expect(chat(env.baseUrl, t.token, 'disc/corp-large')).rejects.toMatchObject({ status: 404 });
    await chat(env.baseUrl, t.token, 'disc/corp-small');

    const gone = await env.http('DELETE', `/v1/admin/providers/${res.body.id}`, { token: t.token });
    expect(gone.body).toEqual({ id: res.body.id, deleted: true });
    await expect(chat(env.baseUrl, t.token, 'disc/corp-small')).rejects.toMatchObject({ status: 404 });
    const audit = await env.http('GET', '/v1/audit-logs?limit=100', { token: t.token });
    const actions = audit.body.items.map((r: { action: string }) => r.action);
    expect(actions).toEqual(
      expect.arrayContaining(['custom_provider.create', 'custom_provider.update', 'custom_provider.delete']),
    );
    expect(JSON.stringify(audit.body)).not.toContain(KEY);
  });

  it('refuses a built-in name, a name taken, and a provider with no model', async () => {
    const base = { baseUrl: `${upstream.base}/v1`, models: [{ id: 'm' }] };
    expectTypedError(await create(owner.token, { ...base, name: 'openai' }), 400, 'invalid_request_error');
    expectTypedError(await create(owner.token, { ...base, name: 'corp' }), 409, 'conflict_error');
    expectTypedError(
      await create(owner.token, { name: 'empty', baseUrl: `${upstream.base}/v1` }),
      400,
      'invalid_request_error',
    );
    expectTypedError(
      await create(owner.token, { ...base, name: 'ftp', baseUrl: 'ftp://example.com/' }),
      400,
      'invalid_request_error',
    );
  });

  it('refuses loopback, private, link-local and metadata addresses with a clear 400 without the operator setting', async () => {
    const port = new URL(upstream.base).port;
    for (const baseUrl of [
      `http://127.0.0.1:${port}/v1`,
      'http://169.254.169.254/',
      'http://[::1]/',
      'http://10.0.0.1/',
      `http://localhost:${port}/v1`,
      'http://[::ffff:127.0.0.1]/',
      'http://192.168.1.1/',
    ]) {
      const res = await create(owner.token, { name: 'ssrf', baseUrl, models: [{ id: 'm' }] }, strict.baseUrl);
      expectTypedError(res, 400, 'invalid_request_error');
      expect(res.body.error.message).toMatch(/loopback, private, link-local or metadata/);
    }
    const patch = await httpClient(strict.baseUrl)('PATCH', `/v1/admin/providers/${ids.provider}`, {
      token: owner.token,
      body: { baseUrl: 'http://169.254.169.254/latest' },
    });
    expectTypedError(patch, 400, 'invalid_request_error');
  });

  it('checks the address again at connect time: a stored URL that now points inside is not called', async () => {
    // The row (made on the node that allows loopback) stands for a name that resolved to a public
    // address when it was checked and to a private one now: the strict node refuses the connection.
    await vi.waitFor(
      async () => {
        const p = await httpClient(strict.baseUrl)('GET', '/v1/providers', { token: owner.token });
        expect(p.body.items.map((x: { name: string }) => x.name)).toContain('corp');
      },
      { timeout: 5000 },
    );
    const calls = upstream.chatKeys.length;
    await expect(chat(strict.baseUrl, owner.token, 'corp/corp-large', { temperature: 1 })).rejects.toMatchObject({
      status: 502,
    });
    expect(upstream.chatKeys.length).toBe(calls);
  });

  it('takes part in A/B tests and routing hints like a built-in provider', async () => {
    const t = await env.createTenant();
    const made = await create(t.token, {
      name: 'abc',
      baseUrl: `${upstream.base}/v1`,
      key: KEY,
      models: [{ id: 'corp-large' }, { id: 'corp-small' }],
    });
    expect(made.status).toBe(200);
    const variant = (model: string) => ({
      provider: 'abc',
      model,
      weight: 1,
      taskType: 'creative',
      complexity: 'complex',
    });
    const test = await env.http('POST', '/v1/ab-tests', {
      token: t.token,
      body: { name: 'custom models', variants: [variant('corp-large'), variant('corp-small')] },
    });
    expect(test.status, JSON.stringify(test.body)).toBe(200);
    const routed = await chat(env.baseUrl, t.token, '', { routing_hint: 'creative', complexity_hint: 'complex' });
    const meta = (routed as unknown as { _gateway: { provider: string; routing: { routedBy: string } } })._gateway;
    expect(meta.provider).toBe('abc');
    expect(meta.routing.routedBy).toBe('ab-test');
    // Another workspace cannot name it in a test of its own.
    const refused = await env.http('POST', '/v1/ab-tests', {
      token: other.token,
      body: { name: 'not mine', variants: [variant('corp-large'), variant('corp-small')] },
    });
    expectTypedError(refused, 400, 'invalid_request_error');
  });

  it('works through the SDK', async () => {
    const t = await env.createTenant();
    const sdk = env.sdk(t.token);
    const made = await sdk.customProviders.create.mutate({
      name: 'viasdk',
      baseUrl: `${upstream.base}/v1`,
      models: [{ id: 'corp-small' }],
    });
    expect((await sdk.customProviders.get.query({ id: made.id })).name).toBe('viasdk');
    expect((await sdk.customProviders.list.query()).items).toHaveLength(1);
    await sdk.customProviders.remove.mutate({ id: made.id });
  });

  it('lists its paths in /openapi.json', async () => {
    const { paths } = (await env.http('GET', '/openapi.json')).body;
    expect(Object.keys(paths['/v1/admin/providers'])).toEqual(expect.arrayContaining(['get', 'post']));
    expect(Object.keys(paths['/v1/admin/providers/{id}'])).toEqual(expect.arrayContaining(['get', 'patch', 'delete']));
  });
});

describe('security', () => {
  const ctx = (): SecurityContext => ({ owner, other, ids });
  securityMatrix(() => env, ctx, [
    { method: 'GET', path: '/v1/admin/providers' },
    {
      method: 'POST',
      path: '/v1/admin/providers',
      body: { name: 'x', baseUrl: 'https://example.com', discover: true },
    },
    { method: 'GET', path: (x) => `/v1/admin/providers/${x.ids.provider}` },
    { method: 'PATCH', path: (x) => `/v1/admin/providers/${x.ids.provider}`, body: { discover: false } },
    { method: 'DELETE', path: (x) => `/v1/admin/providers/${x.ids.provider}` },
  ]);
  crossTenantMatrix(() => env, ctx, [
    { method: 'GET', path: (x) => `/v1/admin/providers/${x.ids.provider}` },
    { method: 'PATCH', path: (x) => `/v1/admin/providers/${x.ids.provider}`, body: { discover: false } },
    { method: 'DELETE', path: (x) => `/v1/admin/providers/${x.ids.provider}` },
  ]);
});
