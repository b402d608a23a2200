import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEnv, type TestEnv, type TestTenant } from '../../support/harness.js';
import { expectTypedError } from '../../support/security.js';

// /auth exists in multi-tenant mode only; single-tenant mode stays as it was (bearer tokens, no
// cookies looked at). The OpenAPI document lists every /auth path.

const AUTH_PATHS = {
  '/auth/login/{provider}': ['get'],
  '/auth/callback/{provider}': ['get'],
  '/auth/magic-link/request': ['post'],
  '/auth/magic-link/verify': ['get', 'post'],
  '/auth/saml/discover': ['get'],
  '/auth/saml/{tenantId}/start': ['get'],
  '/auth/saml/{tenantId}/acs': ['post'],
  '/auth/logout': ['post'],
  '/auth/me': ['get'],
};

describe('single-tenant mode', () => {
  let env: TestEnv;
  let tenant: TestTenant;
  beforeAll(async () => {
    env = await startTestEnv({ env: { GATEWAY_MODE: 'single' } });
    tenant = await env.createTenant();
  });
  afterAll(() => env?.close());

  it('has no /auth routes', async () => {
    expectTypedError(await env.http('GET', '/auth/me', { token: tenant.token }), 404, 'not_found_error');
    expectTypedError(
      await env.http('POST', '/auth/magic-link/request', { body: { email: 'a@b.test' } }),
      404,
      'not_found_error',
    );
    expectTypedError(await env.http('GET', '/auth/login/google'), 404, 'not_found_error');
  });

  it('looks at bearer tokens only', async () => {
    expect((await env.http('GET', '/v1/admin/tokens', { token: tenant.token })).status).toBe(200);
    expectTypedError(
      await env.http('GET', '/v1/admin/tokens', { headers: { cookie: 'gw_session=gws_anything' } }),
      401,
      'auth_error',
    );
  });
});

describe('OpenAPI document', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await startTestEnv();
  });
  afterAll(() => env?.close());

  it('lists every /auth path and the team and SAML administration', async () => {
    const doc = (await env.http('GET', '/openapi.json')).body;
    for (const [path, methods] of Object.entries(AUTH_PATHS))
      expect(Object.keys(doc.paths[path] ?? {}), path).toEqual(methods);
    expect(Object.keys(doc.paths['/v1/admin/team'])).toEqual(['get', 'patch', 'delete']);
    expect(Object.keys(doc.paths['/v1/admin/team/invites'])).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/v1/admin/team/invites/{token}'])).toEqual(['delete']);
    expect(Object.keys(doc.paths['/v1/admin/saml'])).toEqual(['get', 'put', 'delete']);
  });
});

describe('hostile input on /auth', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await startTestEnv({ env: { GATEWAY_PUBLIC_URL: 'http://gateway.test' } });
  });
  afterAll(() => env?.close());

  it('answers a typed 4xx, never a 500', async () => {
    const cases: Array<[string, string, { body?: unknown; rawBody?: string; headers?: Record<string, string> }]> = [
      ['POST', '/auth/magic-link/request', { rawBody: '{"email":', headers: { 'content-type': 'application/json' } }],
      ['POST', '/auth/magic-link/request', { body: { email: ['a@b.test'] } }],
      ['POST', '/auth/magic-link/request', { body: { email: 'a@b.test', extra: 1 } }],
      ['POST', '/auth/magic-link/verify', { rawBody: 'token', headers: { 'content-type': 'text/plain' } }],
      ['POST', '/auth/magic-link/verify', { body: { token: 'x'.repeat(5000) } }],
      ['GET', '/auth/login/google?return=a&return=b', {}],
      ['GET', '/auth/callback/google', {}],
      ['GET', '/auth/callback/google?state=x&code=y', { headers: { cookie: 'gw_auth_state=x' } }],
      ['GET', '/auth/saml/discover', {}],
      ['GET', '/auth/saml/ten_nothing/start', {}],
      [
        'POST',
        '/auth/saml/ten_nothing/acs',
        { rawBody: 'SAMLResponse=PHg%2B', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
      ],
      ['POST', '/auth/saml/ten_nothing/acs', { body: {} }],
      ['GET', '/auth/me', { headers: { cookie: 'gw_session=%E0%A4%A' } }],
      ['POST', '/auth/logout', { headers: { cookie: 'gw_session=gws_unknown', 'x-csrf-token': 'x' } }],
    ];
    for (const [method, path, opts] of cases) {
      const res = await env.http(method, path, opts);
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(500);
      expect(typeof res.body?.error?.type, `${method} ${path}`).toBe('string');
    }
  });
});
