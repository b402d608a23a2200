import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { VERSION } from '../../contracts/version.js';
import { appRouter } from '../../server/trpc/router.js';
import type { TestEnv } from '../support/harness.js';
import { REST_ROUTES, routeRequest } from '../support/rest-routes.js';

// The three packages (the server, the SDK, the CLI) ship under one version, and the harness's
// table of REST routes says what the router's OpenAPI meta says.

const version = (file: string) =>
  (JSON.parse(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8')) as { version: string }).version;

describe('packages', () => {
  it('the server, the SDK and the CLI carry the version of contracts/version.ts; the CLI needs that SDK', () => {
    expect([version('package.json'), version('sdk/package.json'), version('cli/package.json')]).toEqual([
      VERSION,
      VERSION,
      VERSION,
    ]);
    const cli = JSON.parse(readFileSync(new URL('../../cli/package.json', import.meta.url), 'utf8'));
    expect(cli.dependencies['@llm-gateway/sdk']).toBe(VERSION);
  });
});

describe('the harness REST routes', () => {
  const procedures = appRouter._def.procedures as unknown as Record<
    string,
    { _def: { meta?: { openapi?: { method: string; path: string } } } }
  >;

  it("name each procedure's method and path as its OpenAPI meta does", () => {
    for (const [route, name] of Object.entries(REST_ROUTES)) {
      const openapi = procedures[name]?._def.meta?.openapi;
      expect(openapi ? `${openapi.method} ${openapi.path}` : `no procedure ${name}`).toBe(route);
    }
  });

  it('fill in {params} (encoded) and append the query', () => {
    expect(routeRequest('PATCH /v1/admin/tokens/{id}', { params: { id: 'tok 1/2' } })).toEqual({
      method: 'PATCH',
      path: '/v1/admin/tokens/tok%201%2F2',
    });
    expect(
      routeRequest('GET /v1/audit-logs', { query: { limit: 5, action: 'token.update', cursor: undefined } }),
    ).toEqual({
      method: 'GET',
      path: '/v1/audit-logs?limit=5&action=token.update',
    });
    expect(() => routeRequest('GET /v1/ab-tests/{id}', {})).toThrow(/no value for \{id\}/);
  });
});

describe("the harness's http", () => {
  it("types a route's body as its procedure's output, and any other path's as any", () => {
    const env = {} as TestEnv;
    const list = () => env.http('GET /v1/admin/tokens', { token: 't' });
    type Listed = Awaited<ReturnType<typeof list>>['body'];
    expectTypeOf<Listed['items'][number]['name']>().toEqualTypeOf<string>();
    expectTypeOf<Listed['error']>().toEqualTypeOf<
      { type: string; message: string; [k: string]: unknown } | undefined
    >();
    const update = () =>
      env.http('PATCH /v1/admin/tokens/{id}', { token: 't', params: { id: 'tok_1' }, body: { enabled: false } });
    expectTypeOf<Awaited<ReturnType<typeof update>>['body']['enabled']>().toEqualTypeOf<boolean>();
    // @ts-expect-error: the route's {id} is required
    const missing = () => env.http('PATCH /v1/admin/tokens/{id}', { token: 't' });
    const plain = () => env.http('GET', '/v1/admin/tokens');
    expectTypeOf<Awaited<ReturnType<typeof plain>>['body']>().toBeAny();
    expect([list, update, missing, plain]).toHaveLength(4);
  });
});
