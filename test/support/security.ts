import { expect, it } from 'vitest';
import type { TestEnv, TestTenant } from './harness.js';

// The shared security matrix every module reuses: no token, malformed token, unknown token,
// disabled token, and (for endpoints addressing an object) another tenant's id answering 404.

export interface SecuredEndpoint {
  method: string;
  /** Path with the object id filled in where the endpoint addresses one. */
  path: string | ((ctx: SecurityContext) => string);
  body?: unknown;
}

export interface SecurityContext {
  owner: TestTenant;
  other: TestTenant;
  /** Objects owned by `owner`, made by the module's setup. */
  ids: Record<string, string>;
}

export function expectTypedError(res: { status: number; body: any }, status: number, type: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body?.error?.type).toBe(type);
  expect(typeof res.body?.error?.message).toBe('string');
}

export function securityMatrix(
  getEnv: () => TestEnv,
  getCtx: () => SecurityContext,
  endpoints: SecuredEndpoint[],
): void {
  const pathOf = (e: SecuredEndpoint) => (typeof e.path === 'function' ? e.path(getCtx()) : e.path);

  it.each(endpoints.map((e) => [e.method, e] as const))(
    '%s rejects missing, malformed, unknown and disabled tokens',
    async (_m, e) => {
      const env = getEnv();
      const path = pathOf(e);
      expectTypedError(await env.http(e.method, path, { body: e.body }), 401, 'auth_error');
      expectTypedError(
        await env.http(e.method, path, { body: e.body, headers: { authorization: 'Token abc' } }),
        401,
        'auth_error',
      );
      expectTypedError(
        await env.http(e.method, path, { body: e.body, token: 'gw_not-a-real-token' }),
        401,
        'auth_error',
      );

      const { owner } = getCtx();
      const created = await env.http('POST', '/v1/admin/tokens', {
        token: owner.token,
        body: { name: 'to-disable', admin: true },
      });
      await env.http('PATCH', `/v1/admin/tokens/${created.body.id}`, { token: owner.token, body: { enabled: false } });
      expectTypedError(await env.http(e.method, path, { body: e.body, token: created.body.token }), 401, 'auth_error');
    },
  );
}

/** Another tenant's ids answer 404, exactly as ids that do not exist. */
export function crossTenantMatrix(
  getEnv: () => TestEnv,
  getCtx: () => SecurityContext,
  endpoints: SecuredEndpoint[],
): void {
  it.each(endpoints.map((e) => [e.method, e] as const))("%s with another tenant's id answers 404", async (_m, e) => {
    const env = getEnv();
    const ctx = getCtx();
    const path = typeof e.path === 'function' ? e.path(ctx) : e.path;
    const res = await env.http(e.method, path, { token: ctx.other.token, body: e.body });
    expectTypedError(res, 404, 'not_found_error');
  });
}
