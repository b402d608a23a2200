import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEnv, type TestEnv } from '../../support/harness.js';
import { expectTypedError } from '../../support/security.js';
import {
  GITHUB_CLIENT,
  GOOGLE_CLIENT,
  PUBLIC_HOST,
  PUBLIC_URL,
  asSession,
  browserFor,
  loginUrl,
  signInWithGithub,
  signInWithGoogle,
} from '../../support/sign-in/flows.js';
import { startGithubStandIn } from '../../support/sign-in/github-stand-in.js';
import { startOidcStandIn } from '../../support/sign-in/oidc-stand-in.js';

// OAuth sign-in against a real OpenID Connect provider (oidc-provider, playing Google) and a
// GitHub-style OAuth 2 stand-in, both on loopback: state, PKCE and nonce, no open redirect,
// first sign-in makes a workspace, an invite joins one.

let env: TestEnv;
let oidc: Awaited<ReturnType<typeof startOidcStandIn>>;
let github: Awaited<ReturnType<typeof startGithubStandIn>>;

beforeAll(async () => {
  oidc = await startOidcStandIn({ ...GOOGLE_CLIENT, redirectUri: `${PUBLIC_URL}/auth/callback/google` });
  github = await startGithubStandIn(GITHUB_CLIENT);
  env = await startTestEnv({
    env: {
      GATEWAY_PUBLIC_URL: PUBLIC_URL,
      GATEWAY_GOOGLE_CLIENT_ID: GOOGLE_CLIENT.clientId,
      GATEWAY_GOOGLE_CLIENT_SECRET: GOOGLE_CLIENT.clientSecret,
      GATEWAY_GOOGLE_ISSUER: oidc.issuer,
      ...github.env,
    },
  });
});

afterAll(async () => {
  await env?.close();
  await oidc?.close();
  await github?.close();
});

describe('Google (OpenID Connect)', () => {
  it('signs a new user in as owner of a new free workspace, then back into it', async () => {
    const s = await signInWithGoogle(env, oidc, { sub: 'g-1001', email: 'lin@example.com', name: 'Lin' });
    expect(s.role).toBe('owner');
    expect(s.email).toBe('lin@example.com');
    const again = await signInWithGoogle(env, oidc, { sub: 'g-1001', email: 'lin@example.com' });
    expect(again.tenantId).toBe(s.tenantId);
    const tier = await asSession(env, again)('GET', '/v1/admin/tokens');
    expect(tier.status).toBe(200);
  });

  it('sends the browser to the provider with state, nonce and a PKCE S256 challenge', async () => {
    const start = await browserFor(env).fetch(loginUrl('google'), {}, () => false);
    expect(start.status).toBe(302);
    const to = new URL(start.headers.get('location')!);
    expect(to.origin).toBe(oidc.issuer);
    expect(to.searchParams.get('code_challenge_method')).toBe('S256');
    expect(to.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(to.searchParams.get('nonce')).toBeTruthy();
    expect(to.searchParams.get('state')).toBeTruthy();
    expect(to.searchParams.get('redirect_uri')).toBe(`${PUBLIC_URL}/auth/callback/google`);
    expect(start.headers.getSetCookie().join()).toMatch(
      /gw_auth_state=[^;]+; Path=\/auth\/callback; Max-Age=600; HttpOnly; SameSite=Lax/,
    );
  });

  it('refuses a callback in a browser that did not start the sign-in, and a replayed one', async () => {
    oidc.state.nextAccount = { sub: 'g-2002', email: 'mallory@example.com' };
    const attacker = browserFor(env);
    // The attacker runs the flow up to the callback and keeps the callback URL.
    const stopped = await attacker.fetch(loginUrl('google'), {}, (next) => !next.pathname.startsWith('/auth/callback'));
    const callback = stopped.hops.at(-1)!.location!;
    expect(callback).toContain('/auth/callback/google?');
    const victim = browserFor(env);
    const planted = await victim.fetch(callback, {}, () => false);
    expectTypedError({ status: planted.status, body: planted.json() }, 401, 'auth_error');
    expect(victim.cookie(PUBLIC_HOST, 'gw_session')).toBeUndefined();
    // The attacker's own browser may finish it once...
    const own = await attacker.fetch(callback, {}, () => false);
    expect(own.status, own.text).toBe(302);
    // ...and not twice.
    attacker.setCookie(PUBLIC_HOST, 'gw_auth_state', new URL(callback).searchParams.get('state')!);
    const replay = await attacker.fetch(callback, {}, () => false);
    expectTypedError({ status: replay.status, body: replay.json() }, 401, 'auth_error');
  });

  it('refuses a callback whose code the provider did not issue for this flow', async () => {
    const browser = browserFor(env);
    const start = await browser.fetch(loginUrl('google'), {}, () => false);
    const state = new URL(start.headers.get('location')!).searchParams.get('state')!;
    const forged = await browser.fetch(
      `${PUBLIC_URL}/auth/callback/google?code=forged&state=${state}&iss=${encodeURIComponent(oidc.issuer)}`,
      {},
      () => false,
    );
    expectTypedError({ status: forged.status, body: forged.json() }, 401, 'auth_error');
  });

  it('returns only to paths of this deployment', async () => {
    const s = await signInWithGoogle(
      env,
      oidc,
      { sub: 'g-3003', email: 'ret@example.com' },
      { return: '/v1/admin/tokens' },
    );
    expect(s.browser).toBeTruthy();
    oidc.state.nextAccount = { sub: 'g-3003', email: 'ret@example.com' };
    const browser = browserFor(env);
    const landed = await browser.fetch(
      loginUrl('google', { return: `${PUBLIC_URL}/v1/admin/tokens?x=1` }),
      {},
      (n) => !n.pathname.startsWith('/v1'),
    );
    expect(landed.hops.at(-1)!.location).toBe('/v1/admin/tokens?x=1');
    for (const evil of [
      'https://evil.example/',
      '//evil.example/x',
      '/\\evil.example',
      'javascript:alert(1)',
      'http://gateway.test.evil.example/',
    ]) {
      const res = await env.http('GET', `/auth/login/google?return=${encodeURIComponent(evil)}`);
      expectTypedError(res, 400, 'invalid_request_error');
    }
  });

  it('refuses an account without a verified e-mail', async () => {
    const browser = browserFor(env);
    oidc.state.nextAccount = { sub: 'g-4004', email: 'unverified@example.com', emailVerified: false };
    const done = await browser.fetch(loginUrl('google'));
    expectTypedError({ status: done.status, body: done.json() }, 401, 'auth_error');
  });
});

describe('GitHub (OAuth 2)', () => {
  const account = (id: number, email: string, verified = true) => ({
    id,
    login: `user${id}`,
    name: null,
    emails: [
      { email: `noreply-${id}@users.example`, primary: false, verified: true },
      { email, primary: true, verified },
    ],
  });

  it('signs in with the primary verified e-mail; the code is exchanged with PKCE', async () => {
    const before = github.state.tokenRequests;
    const s = await signInWithGithub(env, github, account(501, 'octo@example.com'));
    expect(s.email).toBe('octo@example.com');
    expect(s.role).toBe('owner');
    expect(github.state.tokenRequests).toBe(before + 1);
  });

  it('finds the same user by e-mail from another provider', async () => {
    const viaGoogle = await signInWithGoogle(env, oidc, { sub: 'g-5005', email: 'both@example.com' });
    const viaGithub = await signInWithGithub(env, github, account(502, 'both@example.com'));
    expect(viaGithub.userId).toBe(viaGoogle.userId);
    expect(viaGithub.tenantId).toBe(viaGoogle.tenantId);
  });

  it('joins the inviting workspace with an invite token', async () => {
    const owner = await signInWithGithub(env, github, account(503, 'boss@example.com'));
    const invite = await asSession(env, owner)('POST', '/v1/admin/team/invites', {
      body: { email: 'newbie@example.com', role: 'member' },
    });
    expect(invite.status, JSON.stringify(invite.body)).toBe(200);
    // An invite for someone else does not let this account in.
    const stranger = browserFor(env);
    github.state.nextAccount = account(504, 'stranger@example.com');
    const refused = await stranger.fetch(loginUrl('github', { inviteToken: invite.body.token }));
    expectTypedError({ status: refused.status, body: refused.json() }, 400, 'invalid_request_error');

    const joined = await signInWithGithub(env, github, account(505, 'newbie@example.com'), {
      inviteToken: invite.body.token,
    });
    expect(joined.tenantId).toBe(owner.tenantId);
    expect(joined.role).toBe('member');
    const invites = await asSession(env, owner)('GET', '/v1/admin/team/invites');
    expect(invites.body.items).toEqual([]);
  });

  it('refuses an account with no verified e-mail, and an unknown provider', async () => {
    const browser = browserFor(env);
    github.state.nextAccount = {
      id: 506,
      login: 'x',
      name: null,
      emails: [{ email: 'x@example.com', primary: true, verified: false }],
    };
    const done = await browser.fetch(loginUrl('github'));
    expectTypedError({ status: done.status, body: done.json() }, 401, 'auth_error');
    expectTypedError(await env.http('GET', '/auth/login/myspace'), 404, 'not_found_error');
  });
});
