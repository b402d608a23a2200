import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayErrorOf } from '../../../sdk/index.js';
import { startTestEnv, type TestEnv, type TestTenant } from '../../support/harness.js';
import { crossTenantMatrix, expectTypedError, securityMatrix, type SecurityContext } from '../../support/security.js';

let env: TestEnv;
let owner: TestTenant;
let other: TestTenant;
const ids: Record<string, string> = {};

beforeAll(async () => {
  env = await startTestEnv();
  owner = await env.createTenant('team');
  other = await env.createTenant('team');
  const created = await env.http('POST', '/v1/admin/tokens', { token: owner.token, body: { name: 'fixture' } });
  ids.token = created.body.id;
});
afterAll(() => env.close());

const ctx = (): SecurityContext => ({ owner, other, ids });

describe('API tokens over REST', () => {
  it('creates a token whose secret is shown once and works at once', async () => {
    const res = await env.http('POST', '/v1/admin/tokens', {
      token: owner.token,
      body: { name: 'ci', spendLimitUsd: 12.5, rateLimitPerMinute: 60 },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'ci',
      enabled: true,
      admin: false,
      spendLimitUsd: 12.5,
      rateLimitPerMinute: 60,
      lastUsedAt: null,
    });
    expect(res.body.id).toMatch(/^tok_/);
    expect(res.body.token).toMatch(/^gw_/);
    expect(res.body.token.startsWith(res.body.prefix)).toBe(true);

    const list = await env.http('GET', '/v1/admin/tokens', { token: owner.token });
    const listed = list.body.items.find((t: { id: string }) => t.id === res.body.id);
    expect(listed).toBeDefined();
    expect(listed.token).toBeUndefined();
    expect(JSON.stringify(list.body)).not.toContain(res.body.token);

    // The new (non-admin) token authenticates, but may not manage tokens.
    const asMember = await env.http('GET', '/v1/admin/tokens', { token: res.body.token });
    expectTypedError(asMember, 403, 'permission_error');
  });

  it('refuses a disabled token at once and accepts it again when re-enabled', async () => {
    const created = await env.http('POST', '/v1/admin/tokens', {
      token: owner.token,
      body: { name: 'flip', admin: true },
    });
    const secret = created.body.token;
    expect((await env.http('GET', '/v1/admin/tokens', { token: secret })).status).toBe(200);

    const disabled = await env.http('PATCH', `/v1/admin/tokens/${created.body.id}`, {
      token: owner.token,
      body: { enabled: false },
    });
    expect(disabled.body.enabled).toBe(false);
    expectTypedError(await env.http('GET', '/v1/admin/tokens', { token: secret }), 401, 'auth_error');

    await env.http('PATCH', `/v1/admin/tokens/${created.body.id}`, { token: owner.token, body: { enabled: true } });
    expect((await env.http('GET', '/v1/admin/tokens', { token: secret })).status).toBe(200);
  });

  it('refuses a deleted token at once', async () => {
    const created = await env.http('POST', '/v1/admin/tokens', {
      token: owner.token,
      body: { name: 'gone', admin: true },
    });
    expect((await env.http('GET', '/v1/admin/tokens', { token: created.body.token })).status).toBe(200);
    const del = await env.http('DELETE', `/v1/admin/tokens/${created.body.id}`, { token: owner.token });
    expect(del.body).toEqual({ id: created.body.id, deleted: true });
    expectTypedError(await env.http('GET', '/v1/admin/tokens', { token: created.body.token }), 401, 'auth_error');
    expectTypedError(
      await env.http('DELETE', `/v1/admin/tokens/${created.body.id}`, { token: owner.token }),
      404,
      'not_found_error',
    );
  });

  it('updates limits and clears them with null', async () => {
    const res = await env.http('PATCH', `/v1/admin/tokens/${ids.token}`, {
      token: owner.token,
      body: { name: 'renamed', spendLimitUsd: 3 },
    });
    expect(res.body).toMatchObject({ name: 'renamed', spendLimitUsd: 3 });
    const cleared = await env.http('PATCH', `/v1/admin/tokens/${ids.token}`, {
      token: owner.token,
      body: { spendLimitUsd: null },
    });
    expect(cleared.body.spendLimitUsd).toBeNull();
  });

  it('an empty PATCH changes nothing and writes no audit row; a PATCH racing a delete is a 404, not a 500', async () => {
    const created = await env.http('POST', '/v1/admin/tokens', { token: owner.token, body: { name: 'untouched' } });
    const audits = async () =>
      (await env.http('GET', `/v1/audit-logs?action=token.update`, { token: owner.token })).body.items.filter(
        (a: { targetId: string }) => a.targetId === created.body.id,
      ).length;
    const same = await env.http('PATCH', `/v1/admin/tokens/${created.body.id}`, { token: owner.token, body: {} });
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ id: created.body.id, name: 'untouched' });
    expect(await audits()).toBe(0);
    for (let i = 0; i < 5; i++) {
      const raced = await env.http('POST', '/v1/admin/tokens', { token: owner.token, body: { name: `raced ${i}` } });
      const [renamed, deleted] = await Promise.all([
        env.http('PATCH', `/v1/admin/tokens/${raced.body.id}`, { token: owner.token, body: { name: 'renamed' } }),
        env.http('DELETE', `/v1/admin/tokens/${raced.body.id}`, { token: owner.token }),
      ]);
      expect(deleted.status).toBe(200);
      expect([200, 404]).toContain(renamed.status);
    }
  });

  it('writes an audit row for every change, with who, what, target and a before/after summary', async () => {
    const created = await env.http('POST', '/v1/admin/tokens', { token: owner.token, body: { name: 'audited' } });
    await env.http('PATCH', `/v1/admin/tokens/${created.body.id}`, { token: owner.token, body: { enabled: false } });
    await env.http('DELETE', `/v1/admin/tokens/${created.body.id}`, { token: owner.token });

    const audit = await env.http('GET', `/v1/audit-logs?targetType=token&limit=500`, { token: owner.token });
    expect(audit.status).toBe(200);
    const mine = audit.body.items.filter((e: { targetId: string }) => e.targetId === created.body.id);
    expect(mine.map((e: { action: string }) => e.action)).toEqual(['token.delete', 'token.update', 'token.create']);
    for (const e of mine) expect(e.actor).toEqual({ type: 'token', id: owner.tokenId });
    expect(mine[1].before.enabled).toBe(true);
    expect(mine[1].after.enabled).toBe(false);
    expect(JSON.stringify(audit.body)).not.toContain(created.body.token);

    // Another tenant sees none of it.
    const theirs = await env.http('GET', '/v1/audit-logs?limit=500', { token: other.token });
    expect(theirs.body.items.some((e: { targetId: string }) => e.targetId === created.body.id)).toBe(false);
  });

  it('pages through the audit log with a cursor', async () => {
    for (let i = 0; i < 3; i++)
      await env.http('POST', '/v1/admin/tokens', { token: owner.token, body: { name: `page-${i}` } });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const q: string = cursor ? `&cursor=${cursor}` : '';
      const page = await env.http('GET', `/v1/audit-logs?limit=2${q}`, { token: owner.token });
      expect(page.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.items.map((e: { id: string }) => e.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    const all = await env.http('GET', `/v1/audit-logs?limit=500`, { token: owner.token });
    expect(seen).toEqual(all.body.items.map((e: { id: string }) => e.id));
    expectTypedError(
      await env.http('GET', `/v1/audit-logs?cursor=garbage`, { token: owner.token }),
      400,
      'invalid_request_error',
    );
  });

  it('gates the audit log behind the team tier with 402 insufficient_tier', async () => {
    const free = await env.createTenant('free');
    const res = await env.http('GET', '/v1/audit-logs', { token: free.token });
    expectTypedError(res, 402, 'insufficient_tier');
    expect(res.body.error.upgrade).toMatchObject({ requiredTier: 'team', currentTier: 'free' });
  });

  it.each([
    [{}, 'name'],
    [{ name: '' }, 'name'],
    [{ name: 42 }, 'name'],
    [{ name: 'x', spendLimitUsd: -1 }, 'spendLimitUsd'],
    [{ name: 'x', rateLimitPerMinute: 1.5 }, 'rateLimitPerMinute'],
    [{ name: 'ci\nbot' }, 'name'],
    [{ name: 'ci\u001b[2Jbot' }, 'name'],
    [{ name: 'ci\u202ebot' }, 'name'],
  ])('rejects bad create body %j with 400 naming %s', async (body, field) => {
    const res = await env.http('POST', '/v1/admin/tokens', { token: owner.token, body });
    expectTypedError(res, 400, 'invalid_request_error');
    expect(res.body.error.message).toContain(field);
  });

  it('rejects a bad patch body with 400', async () => {
    const res = await env.http('PATCH', `/v1/admin/tokens/${ids.token}`, {
      token: owner.token,
      body: { enabled: 'yes' },
    });
    expectTypedError(res, 400, 'invalid_request_error');
    const renamed = await env.http('PATCH', `/v1/admin/tokens/${ids.token}`, {
      token: owner.token,
      body: { name: 'two\rlines' },
    });
    expectTypedError(renamed, 400, 'invalid_request_error');
    expect(renamed.body.error.message).toContain('name');
  });
});

describe('the last enabled admin token', () => {
  it('cannot be disabled or deleted (409), so the workspace is never locked out', async () => {
    const t = await env.createTenant('team');
    expectTypedError(
      await env.http('PATCH', `/v1/admin/tokens/${t.tokenId}`, { token: t.token, body: { enabled: false } }),
      409,
      'conflict_error',
    );
    const del = await env.http('DELETE', `/v1/admin/tokens/${t.tokenId}`, { token: t.token });
    expectTypedError(del, 409, 'conflict_error');
    expect(del.body.error.message).toContain(t.tokenId);
    // Still there, still enabled, still works; other changes to it are allowed.
    const renamed = await env.http('PATCH', `/v1/admin/tokens/${t.tokenId}`, {
      token: t.token,
      body: { name: 'owner' },
    });
    expect(renamed.body).toMatchObject({ name: 'owner', enabled: true });

    // With a second enabled admin token, the first may go; then the second is the last one.
    const second = await env.http('POST', '/v1/admin/tokens', {
      token: t.token,
      body: { name: 'second', admin: true },
    });
    expect(
      (await env.http('PATCH', `/v1/admin/tokens/${t.tokenId}`, { token: second.body.token, body: { enabled: false } }))
        .status,
    ).toBe(200);
    expectTypedError(
      await env.http('DELETE', `/v1/admin/tokens/${second.body.id}`, { token: second.body.token }),
      409,
      'conflict_error',
    );
    expectTypedError(
      await env.http('PATCH', `/v1/admin/tokens/${second.body.id}`, {
        token: second.body.token,
        body: { enabled: false },
      }),
      409,
      'conflict_error',
    );
    // A disabled admin token and a member token may always be deleted.
    expect((await env.http('DELETE', `/v1/admin/tokens/${t.tokenId}`, { token: second.body.token })).status).toBe(200);
    const member = await env.http('POST', '/v1/admin/tokens', { token: second.body.token, body: { name: 'member' } });
    expect((await env.http('DELETE', `/v1/admin/tokens/${member.body.id}`, { token: second.body.token })).status).toBe(
      200,
    );
  });

  // The races go through the service: over HTTP the loser's request might instead be refused at
  // authentication, by the token the winner just disabled.
  const settle = (p: Promise<unknown>) =>
    p.then(
      () => 'ok',
      (e: { type?: string }) => e.type,
    );

  it('two admin tokens disabled at once: one is disabled, the other gets 409', async () => {
    const t = await env.createTenant('team');
    const second = await env.http('POST', '/v1/admin/tokens', {
      token: t.token,
      body: { name: 'second', admin: true },
    });
    const tokens = env.services.tokens;
    const results = await Promise.all([
      settle(tokens.update(t.tenantId, { type: 'token', id: t.tokenId }, { id: second.body.id, enabled: false })),
      settle(tokens.update(t.tenantId, { type: 'token', id: second.body.id }, { id: t.tokenId, enabled: false })),
    ]);
    expect(results.sort()).toEqual(['conflict_error', 'ok']);
    const items = await tokens.list(t.tenantId);
    expect(items.filter((x) => x.admin && x.enabled)).toHaveLength(1);
  });

  it('two admin tokens deleted at once: one is deleted, the other stays', async () => {
    const t = await env.createTenant('team');
    const second = await env.http('POST', '/v1/admin/tokens', {
      token: t.token,
      body: { name: 'second', admin: true },
    });
    const tokens = env.services.tokens;
    const results = await Promise.all([
      settle(tokens.remove(t.tenantId, { type: 'token', id: t.tokenId }, second.body.id)),
      settle(tokens.remove(t.tenantId, { type: 'token', id: second.body.id }, t.tokenId)),
    ]);
    expect(results.sort()).toEqual(['conflict_error', 'ok']);
    expect((await tokens.list(t.tenantId)).filter((x) => x.admin && x.enabled)).toHaveLength(1);
  });
});

describe('API tokens through the SDK', () => {
  it('lists, creates, updates and deletes with typed results', async () => {
    const sdk = env.sdk(owner.token);
    const created = await sdk.tokens.create.mutate({ name: 'sdk' });
    expect(created.token).toMatch(/^gw_/);
    const updated = await sdk.tokens.update.mutate({ id: created.id, enabled: false });
    expect(updated.enabled).toBe(false);
    const { items } = await sdk.tokens.list.query();
    expect(items.find((t) => t.id === created.id)?.enabled).toBe(false);
    await sdk.tokens.remove.mutate({ id: created.id });
    const err = await sdk.tokens.remove.mutate({ id: created.id }).catch((e: unknown) => e);
    expect(gatewayErrorOf(err)).toMatchObject({ type: 'not_found_error', status: 404 });
  });

  it('reports auth errors as typed errors', async () => {
    const err = await env
      .sdk('gw_wrong')
      .tokens.list.query()
      .catch((e: unknown) => e);
    expect(gatewayErrorOf(err)).toMatchObject({ type: 'auth_error', status: 401 });
  });
});

describe('security', () => {
  securityMatrix(() => env, ctx, [
    { method: 'GET', path: '/v1/admin/tokens' },
    { method: 'POST', path: '/v1/admin/tokens', body: { name: 'x' } },
    { method: 'PATCH', path: (c) => `/v1/admin/tokens/${c.ids.token}`, body: { enabled: false } },
    { method: 'DELETE', path: (c) => `/v1/admin/tokens/${c.ids.token}` },
    { method: 'GET', path: '/v1/audit-logs' },
  ]);
  crossTenantMatrix(() => env, ctx, [
    { method: 'PATCH', path: (c) => `/v1/admin/tokens/${c.ids.token}`, body: { enabled: false } },
    { method: 'DELETE', path: (c) => `/v1/admin/tokens/${c.ids.token}` },
  ]);

  it("never lists another tenant's tokens", async () => {
    const res = await env.http('GET', '/v1/admin/tokens', { token: other.token });
    expect(res.body.items.some((t: { id: string }) => t.id === ids.token)).toBe(false);
  });
});

describe('revocation across gateway processes', () => {
  it('a token disabled through one node is refused by another at once (the change is announced)', async () => {
    const { createServer } = await import('node:http');
    const { createRequestListener } = await import('../../../server/app.js');
    const { connectDatabase } = await import('../../../server/db/client.js');
    const { createServices } = await import('../../../server/services.js');
    const { createLogger } = await import('../../../server/lib/logger.js');
    // A second node on the same database, with its own token cache.
    const database = connectDatabase(env.databaseUrl, 2);
    const services = createServices(env.config, database, createLogger('silent'));
    await services.start();
    const server = createServer(createRequestListener(services));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const other = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      const created = await env.http('POST', '/v1/admin/tokens', {
        token: owner.token,
        body: { name: 'two-nodes', admin: true },
      });
      const onOther = () =>
        fetch(`${other}/v1/admin/tokens`, { headers: { authorization: `Bearer ${created.body.token}` } }).then(
          (r) => r.status,
        );
      expect(await onOther()).toBe(200);
      await env.http('PATCH', `/v1/admin/tokens/${created.body.id}`, { token: owner.token, body: { enabled: false } });
      const started = Date.now();
      let status = await onOther();
      while (status === 200 && Date.now() - started < 5_000) {
        await new Promise((r) => setTimeout(r, 100));
        status = await onOther();
      }
      expect(status).toBe(401);
      // Without the announcement, a token without a spend limit is re-read only every 30 s.
      expect(Date.now() - started).toBeLessThan(1_000);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await services.close();
      await database.close();
    }
  });
});
