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
