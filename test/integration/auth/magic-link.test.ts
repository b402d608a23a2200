import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestEnv, type TestEnv } from '../../support/harness.js';
import { expectTypedError } from '../../support/security.js';
import { PUBLIC_URL, asSession, browserFor, signInByMagicLink } from '../../support/sign-in/flows.js';
import { linkIn, startSmtpCapture } from '../../support/sign-in/smtp-capture.js';
import { startTcpRelay } from '../../support/tcp-relay.js';

// Magic-link sign-in against a real SMTP server on loopback, sessions on /v1 paths, CSRF,
// sign-out and revocation across gateway nodes.

let env: TestEnv;
let smtp: Awaited<ReturnType<typeof startSmtpCapture>>;

beforeAll(async () => {
  smtp = await startSmtpCapture();
  env = await startTestEnv({
    env: {
      GATEWAY_PUBLIC_URL: PUBLIC_URL,
      GATEWAY_SMTP_URL: smtp.url,
      GATEWAY_SMTP_FROM: 'signin@gateway.test',
      GATEWAY_MAGIC_LINK_PER_HOUR: '4',
    },
  });
});

afterAll(async () => {
  await env?.close();
  await smtp?.close();
});

describe('magic link', () => {
  it('signs a new address in as the owner of a new free workspace', async () => {
    const s = await signInByMagicLink(env, smtp, 'ada@example.com');
    expect(s.role).toBe('owner');
    const me = await s.browser.fetch(`${PUBLIC_URL}/auth/me`);
    expect(me.json()).toMatchObject({
      user: { email: 'ada@example.com' },
      workspace: { id: s.tenantId, tier: 'free' },
      tier: 'free',
      role: 'owner',
      authenticatedBy: 'session',
    });
    const mail = smtp.to('ada@example.com').at(-1)!;
    expect(mail.from?.text).toContain('signin@gateway.test');
    // A second sign-in lands in the same workspace.
    const again = await signInByMagicLink(env, smtp, 'ADA@example.com');
    expect(again.tenantId).toBe(s.tenantId);
    expect(again.userId).toBe(s.userId);
  });

  it('answers the same for known and unknown addresses, and stores only the hash of the link', async () => {
    await signInByMagicLink(env, smtp, 'known@example.com');
    const ask = (email: string) =>
      env.http('POST', '/auth/magic-link/request', { body: { email }, headers: { 'x-forwarded-for': email } });
    const known = await ask('known@example.com');
    const unknown = await ask('nobody-yet@example.com');
    expect(known.status).toBe(202);
    expect(unknown.status).toBe(202);
    expect(unknown.body).toEqual(known.body);
    await vi.waitFor(() => expect(smtp.to('nobody-yet@example.com')).toHaveLength(1));
    const token = linkIn(smtp.to('nobody-yet@example.com')[0]!).searchParams.get('token')!;
    const rows = await env.database.pool.query('select hash from magic_links');
    expect(rows.rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(rows.rows)).not.toContain(token);
  });

  it('uses a link once, and refuses an expired one', async () => {
    await env.http('POST', '/auth/magic-link/request', { body: { email: 'once@example.com' } });
    await vi.waitFor(() => expect(smtp.to('once@example.com')).toHaveLength(1));
    const token = linkIn(smtp.to('once@example.com')[0]!).searchParams.get('token')!;
    const first = await env.http('POST', '/auth/magic-link/verify', { body: { token } });
    expect(first.status).toBe(200);
    expect(first.headers.get('set-cookie')).toMatch(
      /gw_session=gws_[^;]+; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax/,
    );
    expectTypedError(await env.http('POST', '/auth/magic-link/verify', { body: { token } }), 401, 'auth_error');

    await env.http('POST', '/auth/magic-link/request', { body: { email: 'late@example.com' } });
    await vi.waitFor(() => expect(smtp.to('late@example.com')).toHaveLength(1));
    const late = linkIn(smtp.to('late@example.com')[0]!).searchParams.get('token')!;
    await env.database.pool.query(
      "update magic_links set expires_at = now() - interval '1 second' where email = 'late@example.com'",
    );
    expectTypedError(await env.http('POST', '/auth/magic-link/verify', { body: { token: late } }), 401, 'auth_error');
    expectTypedError(
      await env.http('POST', '/auth/magic-link/verify', { body: { token: 'made-up' } }),
      401,
      'auth_error',
    );
  });

  it('rate-limits requests per address, across gateway nodes', async () => {
    // Requests alternate between two nodes: the limit counts the stored links, not one process's.
    const other = await env.addNode();
    const ask = async (i: number) =>
      i % 2 === 0
        ? (await env.http('POST', '/auth/magic-link/request', { body: { email: 'flood@example.com' } })).status
        : (
            await fetch(`${other.baseUrl}/auth/magic-link/request`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ email: 'flood@example.com' }),
            })
          ).status;
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push(await ask(i));
    expect(statuses).toEqual([202, 202, 202, 202, 429, 429]);
    // Another address is not held back by it.
    expect((await env.http('POST', '/auth/magic-link/request', { body: { email: 'calm@example.com' } })).status).toBe(
      202,
    );
  });

  it("rate-limits requests per client address at ten times an address's share, across nodes", async () => {
    // Behind one trusted proxy hop the client address is the last X-Forwarded-For entry.
    const proxied = await env.addNode({ GATEWAY_TRUSTED_PROXY_HOPS: '1' });
    const ask = (n: number) =>
      fetch(`${proxied.baseUrl}/auth/magic-link/request`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.9' },
        body: JSON.stringify({ email: `office-${n}@example.com` }),
      });
    for (let n = 0; n < 40; n++) expect((await ask(n)).status).toBe(202);
    expect((await ask(40)).status).toBe(429);
    // Another client address still gets its links.
    const elsewhere = await fetch(`${proxied.baseUrl}/auth/magic-link/request`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.7' },
      body: JSON.stringify({ email: 'office-41@example.com' }),
    });
    expect(elsewhere.status).toBe(202);
  });

  it('refuses a malformed address with a typed 400', async () => {
    expectTypedError(
      await env.http('POST', '/auth/magic-link/request', { body: { email: 'not-an-address' } }),
      400,
      'invalid_request_error',
    );
    expectTypedError(await env.http('POST', '/auth/magic-link/verify', { body: {} }), 400, 'invalid_request_error');
  });
});

describe('sessions', () => {
  it('authenticate /v1 paths beside bearer tokens; changes need the CSRF token', async () => {
    const s = await signInByMagicLink(env, smtp, 'grace@example.com');
    const http = asSession(env, s);
    const listed = await http('GET', '/v1/admin/tokens');
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);

    const noCsrf = await asSession(env, s, false)('POST', '/v1/admin/tokens', { body: { name: 'x' } });
    expectTypedError(noCsrf, 403, 'permission_error');
    const wrongCsrf = await http('POST', '/v1/admin/tokens', {
      body: { name: 'x' },
      headers: { 'x-csrf-token': 'guess' },
    });
    expectTypedError(wrongCsrf, 403, 'permission_error');

    const created = await http('POST', '/v1/admin/tokens', { body: { name: 'mine', admin: true } });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.userId).toBe(s.userId);
    // The member's token works as a bearer, in the member's workspace.
    const me = await env.http('GET', '/auth/me', { token: created.body.token });
    expect(me.body).toMatchObject({ workspace: { id: s.tenantId }, user: { id: s.userId }, authenticatedBy: 'token' });
    const mine = await http('GET', `/v1/admin/tokens?userId=${s.userId}`);
    expect(mine.body.items.map((t: { id: string }) => t.id)).toEqual([created.body.id]);

    // A bad bearer beside a good cookie is still a 401: the header decides.
    expectTypedError(
      await http('GET', '/v1/admin/tokens', { headers: { authorization: 'Bearer gw_nope' } }),
      401,
      'auth_error',
    );
    expectTypedError(
      await env.http('GET', '/v1/admin/tokens', { headers: { cookie: 'gw_session=gws_forged' } }),
      401,
      'auth_error',
    );
  });

  it('end at sign-out, on every node', async () => {
    const other = await env.addNode({ GATEWAY_PUBLIC_URL: PUBLIC_URL, GATEWAY_SMTP_URL: smtp.url });
    const s = await signInByMagicLink(env, smtp, 'leaving@example.com');
    const onOther = () =>
      fetch(`${other.baseUrl}/v1/admin/tokens`, { headers: { cookie: `gw_session=${encodeURIComponent(s.cookie)}` } });
    expect((await onOther()).status).toBe(200);

    const browser = s.browser;
    const noCsrf = await browser.fetch(`${PUBLIC_URL}/auth/logout`, { method: 'POST' });
    expect(noCsrf.status).toBe(403);
    const out = await browser.fetch(`${PUBLIC_URL}/auth/logout`, {
      method: 'POST',
      headers: { 'x-csrf-token': s.csrf },
    });
    expect(out.status, out.text).toBe(200);
    expect(browser.cookie('gateway.test', 'gw_session')).toBeUndefined();
    expectTypedError(await asSession(env, s)('GET', '/v1/admin/tokens'), 401, 'auth_error');
    // The other node held the session in memory: the announcement drops it there too.
    await vi.waitFor(async () => expect((await onOther()).status).toBe(401), { timeout: 5_000 });
  });

  it('expire', async () => {
    const s = await signInByMagicLink(env, smtp, 'expiring@example.com');
    await env.database.pool.query("update sessions set expires_at = now() - interval '1 second' where user_id = $1", [
      s.userId,
    ]);
    // A node that has not seen the session reads the expired row.
    const fresh = await env.addNode({ GATEWAY_PUBLIC_URL: PUBLIC_URL });
    const res = await fetch(`${fresh.baseUrl}/auth/me`, {
      headers: { cookie: `gw_session=${encodeURIComponent(s.cookie)}` },
    });
    expect(res.status).toBe(401);
  });

  it('known ones keep working while the database is unreachable; unknown ones get 503, not 500', async () => {
    const relay = await startTcpRelay(env.databaseUrl);
    try {
      const node = await env.addNode({ GATEWAY_PUBLIC_URL: PUBLIC_URL, DATABASE_URL: relay.url });
      const s = await signInByMagicLink(env, smtp, 'outage@example.com');
      const me = (cookie: string) =>
        fetch(`${node.baseUrl}/auth/me`, { headers: { cookie: `gw_session=${encodeURIComponent(cookie)}` } });
      // A path that needs no query of its own: the model catalogue is in memory.
      const tokens = (cookie: string) =>
        fetch(`${node.baseUrl}/v1/models`, { headers: { cookie: `gw_session=${encodeURIComponent(cookie)}` } });
      expect((await tokens(s.cookie)).status).toBe(200);
      await relay.cut();
      expect((await tokens(s.cookie)).status).toBe(200);
      const unknown = await tokens('gws_never-seen');
      expect(unknown.status, await unknown.clone().text()).toBe(503);
      expect(((await unknown.json()) as { error: { type: string } }).error.type).toBe('service_unavailable');
      expect((await me('gws_never-seen')).status).toBe(503);
    } finally {
      relay.close();
    }
  });

  it('are refused where no one signed in', async () => {
    expectTypedError(await env.http('GET', '/auth/me'), 401, 'auth_error');
    expectTypedError(await env.http('POST', '/auth/logout'), 401, 'auth_error');
    const browser = browserFor(env);
    expect((await browser.fetch(`${PUBLIC_URL}/auth/me`)).status).toBe(401);
  });
});
