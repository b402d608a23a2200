import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../support/database.js';
import { startTestEnv, type TestEnv, type TestTenant } from '../../support/harness.js';
import { expectTypedError } from '../../support/security.js';
import { startTcpRelay } from '../../support/tcp-relay.js';

let env: TestEnv;
let tenant: TestTenant;

beforeAll(async () => {
  env = await startTestEnv();
  tenant = await env.createTenant();
});
afterAll(() => env.close());

describe('health', () => {
  it('answers without auth with status, mode, version and database reachability', async () => {
    const res = await env.http('GET', '/health');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'ok',
      mode: 'multi',
      database: { reachable: true },
      logs: { queuedRows: 0, failingForSeconds: null },
      rateLimits: { shared: false, reachable: null },
    });
    expect(res.body.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(res.headers.get('x-gateway-request-id')).toMatch(/^req_/);
    expect(res.headers.get('x-request-id')).toBe(res.headers.get('x-gateway-request-id'));
  });
});

describe('health while the log writer cannot commit', () => {
  it('is degraded, saying for how long and how many rows wait', async () => {
    const db = await createTestDatabase();
    const relay = await startTcpRelay(db.url);
    const cut = await startTestEnv({
      env: { DATABASE_URL: relay.url, GATEWAY_LOG_FLUSH_MS: '20', GATEWAY_LOG_DRAIN_TIMEOUT_MS: '500' },
    });
    try {
      const t = await cut.createTenant();
      const call = () =>
        cut.http('POST', '/v1/chat/completions', {
          token: t.token,
          body: { model: 'nowhere/none', messages: [{ role: 'user', content: 'hi' }] },
        });
      // The token is read once, then served from the cache; the unknown model's call is logged.
      expect((await call()).status).toBe(404);
      let logs = (await cut.http('GET', '/health')).body.logs;
      for (let i = 0; i < 100 && logs.queuedRows > 0; i++) {
        await new Promise((r) => setTimeout(r, 20));
        logs = (await cut.http('GET', '/health')).body.logs;
      }
      expect(logs).toEqual({ queuedRows: 0, failingForSeconds: null });
      await relay.cut();
      expect((await call()).status).toBe(404);
      let health = (await cut.http('GET', '/health')).body;
      for (let i = 0; i < 100 && health.logs.failingForSeconds === null; i++) {
        await new Promise((r) => setTimeout(r, 50));
        health = (await cut.http('GET', '/health')).body;
      }
      expect(health).toMatchObject({
        status: 'degraded',
        logs: { queuedRows: 1, failingForSeconds: expect.any(Number) },
      });
    } finally {
      await cut.close();
      relay.close();
      await db.drop();
    }
  });
});

describe('OpenAPI document', () => {
  it('is an OpenAPI 3 document describing every REST path with our error body', async () => {
    const res = await env.http('GET', '/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.info.title).toBeTruthy();
    for (const path of [
      '/health',
      '/v1/admin/tokens',
      '/v1/admin/tokens/{id}',
      '/v1/audit-logs',
      '/v1/chat/completions',
      '/v1/embeddings',
      '/v1/providers',
      '/v1/ab-tests/{id}',
      '/v1/feedback',
      '/v1/models/pricing/overrides',
    ])
      expect(doc.paths[path], path).toBeDefined();
    expect(Object.keys(doc.paths['/v1/admin/tokens/{id}'])).toEqual(expect.arrayContaining(['patch', 'delete']));
    expect(doc.components.schemas.Error.properties.error.required).toEqual(['type', 'message']);
    const errorRef =
      doc.paths['/v1/admin/tokens'].post.responses['401'] ?? doc.paths['/v1/admin/tokens'].post.responses['400'];
    expect(errorRef.content['application/json'].schema.$ref).toBe('#/components/schemas/Error');
    // Every operation has an id and at least one success response (a redirect, for the browser sign-in routes).
    for (const item of Object.values<Record<string, { operationId: string; responses: Record<string, unknown> }>>(
      doc.paths,
    )) {
      for (const op of Object.values(item)) {
        expect(op.operationId).toBeTruthy();
        expect(Object.keys(op.responses).some((s) => s.startsWith('2') || s.startsWith('3'))).toBe(true);
      }
    }
  });

  it('lists the error statuses each operation can give', async () => {
    const { paths } = (await env.http('GET', '/openapi.json')).body;
    const statuses = (path: string, method: string) => Object.keys(paths[path][method].responses);
    expect(statuses('/v1/audit-logs', 'get')).toEqual(expect.arrayContaining(['400', '401', '402', '403']));
    expect(statuses('/v1/ab-tests', 'post')).toContain('409');
    expect(statuses('/v1/ab-tests/{id}', 'patch')).toContain('409');
    expect(statuses('/v1/admin/scheduler/jobs/{name}/run', 'post')).toEqual(
      expect.arrayContaining(['403', '404', '409']),
    );
    expect(statuses('/v1/feedback', 'post')).toEqual(expect.arrayContaining(['400', '404']));
    expect(statuses('/v1/admin/tokens/{id}', 'patch')).toEqual(expect.arrayContaining(['400', '401', '403', '404']));
    expect(statuses('/health', 'get')).not.toContain('401');
    const conflict = paths['/v1/admin/scheduler/jobs/{name}/run'].post.responses['409'];
    expect(conflict.content['application/json'].schema.$ref).toBe('#/components/schemas/Error');
  });
});

describe('typed errors on every path', () => {
  it('unknown routes answer 404 not_found_error', async () => {
    for (const [method, path] of [
      ['GET', '/v1/does-not-exist'],
      ['POST', '/nope'],
      ['DELETE', '/v1/admin'],
    ]) {
      const res = await env.http(method!, path!, { token: tenant.token });
      expectTypedError(res, 404, 'not_found_error');
      expect(res.headers.get('x-gateway-request-id')).toMatch(/^req_/);
    }
  });

  it.each([
    ['PUT', '/v1/admin/tokens', 'GET, POST'],
    ['PATCH', '/v1/ab-tests', 'GET, POST'],
    ['POST', '/health', 'GET'],
    ['PUT', '/v1/admin/tokens/tok_x', 'PATCH, DELETE'],
    ['GET', '/v1/chat/completions', 'POST'],
    ['GET', '/v1/embeddings', 'POST'],
    ['POST', '/openapi.json', 'GET'],
  ])('%s %s (a known path, another method) answers 405 with Allow', async (method, path, allow) => {
    const res = await env.http(method, path, { token: tenant.token });
    expectTypedError(res, 405, 'invalid_request_error');
    expect(res.headers.get('allow')).toBe(allow);
    expect(res.body.error.message).toContain(`Method ${method}`);
    expect(res.headers.get('x-gateway-request-id')).toMatch(/^req_/);
  });

  it('malformed JSON answers 400 invalid_request_error', async () => {
    const res = await env.http('POST', '/v1/admin/tokens', {
      token: tenant.token,
      rawBody: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    expectTypedError(res, 400, 'invalid_request_error');
  });

  it('a wrong content type answers 415 with a typed body', async () => {
    const res = await env.http('POST', '/v1/admin/tokens', {
      token: tenant.token,
      rawBody: 'name=x',
      headers: { 'content-type': 'text/plain' },
    });
    expectTypedError(res, 415, 'invalid_request_error');
  });

  it('a POST without a body or a Content-Type is an empty JSON body (curl -X POST), not a 415', async () => {
    // Read as `{}`: the procedure itself answers (in multi mode, reloading is the operator's).
    const reload = await env.http('POST', '/v1/providers/reload', { token: tenant.token });
    expectTypedError(reload, 403, 'permission_error');
    // A procedure that needs input says what is missing.
    const create = await env.http('POST', '/v1/admin/tokens', { token: tenant.token });
    expectTypedError(create, 400, 'invalid_request_error');
    expect(create.body.error.message).toContain('name');
  });

  it('an oversized body answers 413 with a typed body', async () => {
    const small = await startTestEnv({ env: { GATEWAY_MAX_BODY_BYTES: '1024' } });
    try {
      const t = await small.createTenant();
      const res = await small.http('POST', '/v1/admin/tokens', { token: t.token, body: { name: 'x'.repeat(5000) } });
      expectTypedError(res, 413, 'invalid_request_error');
    } finally {
      await small.close();
    }
  });

  it('every response carries a distinct request id', async () => {
    const a = await env.http('GET', '/health');
    const b = await env.http('GET', '/v1/admin/tokens', { token: tenant.token });
    const c = await env.http('GET', '/v1/admin/tokens');
    // The chat path writes the header with its response head, and with its errors.
    const d = await env.http('POST', '/v1/chat/completions', { body: { messages: [{ role: 'user', content: 'hi' }] } });
    const e = await env.http('POST', '/v1/chat/completions', { token: tenant.token, body: { messages: [] } });
    expectTypedError(d, 401, 'auth_error');
    expectTypedError(e, 400, 'invalid_request_error');
    const ids = [a, b, c, d, e].map((r) => r.headers.get('x-gateway-request-id'));
    expect(new Set(ids).size).toBe(5);
    for (const id of ids) expect(id).toMatch(/^req_/);
  });

  it('tRPC transport carries the same typed error', async () => {
    const res = await env.http('GET', '/trpc/tokens.list', { token: 'gw_nope' });
    expect(res.status).toBe(401);
    expect(res.body.error.json.data.gatewayError).toMatchObject({ type: 'auth_error' });
  });
});
