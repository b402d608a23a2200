import { expect, vi } from 'vitest';
import type { HttpOptions, HttpResult, TestEnv } from '../harness.js';
import { Browser } from './browser.js';
import type { GithubAccount } from './github-stand-in.js';
import type { OidcAccount } from './oidc-stand-in.js';
import { requestIdOf, samlResponse } from './saml-idp.js';
import { linkIn, type startSmtpCapture } from './smtp-capture.js';

/** The public origin test gateways are configured with (GATEWAY_PUBLIC_URL); browsers map it to the test server. */
export const PUBLIC_URL = 'http://gateway.test';
export const PUBLIC_HOST = 'gateway.test';

export const GOOGLE_CLIENT = { clientId: 'gateway-test-client', clientSecret: 'gateway-test-secret-0123456789' };
export const GITHUB_CLIENT = { clientId: 'Iv1.gatewaytest', clientSecret: 'github-test-secret-0123456789' };

/** A signed-in browser: its session cookie, the CSRF token, and what /auth/me said. */
export interface SignedIn {
  browser: Browser;
  cookie: string;
  csrf: string;
  tenantId: string;
  userId: string;
  email: string;
  role: string;
}

export function browserFor(env: TestEnv): Browser {
  return new Browser({ [PUBLIC_URL]: env.baseUrl });
}

type Smtp = Awaited<ReturnType<typeof startSmtpCapture>>;

/** Asks for a link, reads it from the captured mail, opens it and presses its button. */
export async function signInByMagicLink(
  env: TestEnv,
  smtp: Smtp,
  email: string,
  opts: { inviteToken?: string } = {},
): Promise<SignedIn> {
  const browser = browserFor(env);
  const before = smtp.to(email).length;
  const asked = await browser.fetch(`${PUBLIC_URL}/auth/magic-link/request`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, ...(opts.inviteToken ? { invite_token: opts.inviteToken } : {}) }),
  });
  expect(asked.status, asked.text).toBe(202);
  await vi.waitFor(() => expect(smtp.to(email).length).toBeGreaterThan(before), { timeout: 10_000 });
  const link = linkIn(smtp.to(email).at(-1)!);
  const page = await browser.fetch(link.href);
  expect(page.status).toBe(200);
  const token = /name="token" value="([^"]+)"/.exec(page.text)?.[1];
  expect(token).toBeTruthy();
  const verified = await browser.fetch(`${PUBLIC_URL}/auth/magic-link/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: token! }).toString(),
  });
  return signedIn(browser, verified);
}

export async function signInWithGoogle(
  env: TestEnv,
  oidc: { state: { nextAccount?: OidcAccount } },
  account: OidcAccount,
  opts: { inviteToken?: string; return?: string } = {},
): Promise<SignedIn> {
  oidc.state.nextAccount = account;
  const browser = browserFor(env);
  const done = await browser.fetch(loginUrl('google', opts));
  return signedIn(browser, done);
}

export async function signInWithGithub(
  env: TestEnv,
  github: { state: { nextAccount?: GithubAccount } },
  account: GithubAccount,
  opts: { inviteToken?: string; return?: string } = {},
): Promise<SignedIn> {
  github.state.nextAccount = account;
  const browser = browserFor(env);
  const done = await browser.fetch(loginUrl('github', opts));
  return signedIn(browser, done);
}

export function loginUrl(provider: string, opts: { inviteToken?: string; return?: string } = {}): string {
  const url = new URL(`${PUBLIC_URL}/auth/login/${provider}`);
  if (opts.inviteToken) url.searchParams.set('invite_token', opts.inviteToken);
  if (opts.return) url.searchParams.set('return', opts.return);
  return url.href;
}

export const SAML_IDP_ENTITY = 'https://idp.example.test/saml';

/** Starts a SAML sign-in at the gateway and posts what the IdP stand-in signs back. */
export async function signInWithSaml(
  env: TestEnv,
  tenantId: string,
  email: string,
  tweak: Partial<Parameters<typeof samlResponse>[0]> = {},
): Promise<{ browser: Browser; response: Awaited<ReturnType<Browser['fetch']>>; posted: string }> {
  const browser = browserFor(env);
  const started = await browser.fetch(`${PUBLIC_URL}/auth/saml/${tenantId}/start`, {}, () => false);
  expect(started.status, started.text).toBe(302);
  const requestId = requestIdOf(started.headers.get('location')!);
  const sp = `${PUBLIC_URL}/auth/saml/${tenantId}`;
  const posted = samlResponse({
    email,
    inResponseTo: requestId,
    acsUrl: `${sp}/acs`,
    audience: sp,
    issuer: SAML_IDP_ENTITY,
    ...tweak,
  });
  const response = await postAssertion(browser, tenantId, posted);
  return { browser, response, posted };
}

export function postAssertion(browser: Browser, tenantId: string, samlResponseB64: string) {
  return browser.fetch(`${PUBLIC_URL}/auth/saml/${tenantId}/acs`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ SAMLResponse: samlResponseB64 }).toString(),
  });
}

/** After a flow that ended on /auth/me: the session the browser now holds. */
export async function signedIn(browser: Browser, landed: Awaited<ReturnType<Browser['fetch']>>): Promise<SignedIn> {
  expect(landed.status, `${landed.url}: ${landed.text}`).toBe(200);
  const cookie = browser.cookie(PUBLIC_HOST, 'gw_session');
  expect(cookie).toMatch(/^gws_/);
  const me = await browser.fetch(`${PUBLIC_URL}/auth/me`);
  expect(me.status, me.text).toBe(200);
  const body = me.json();
  return {
    browser,
    cookie: cookie!,
    csrf: body.csrfToken,
    tenantId: body.workspace.id,
    userId: body.user.id,
    email: body.user.email,
    role: body.role,
  };
}

/** The harness's http, authenticated by the session cookie (and its CSRF token unless `csrf: false`). */
export function asSession(env: TestEnv, s: Pick<SignedIn, 'cookie' | 'csrf'>, csrf = true) {
  return <T = any>(method: string, path: string, opts: HttpOptions = {}): Promise<HttpResult<T>> =>
    env.http<T>(method, path, {
      ...opts,
      headers: {
        cookie: `gw_session=${encodeURIComponent(s.cookie)}`,
        ...(csrf ? { 'x-csrf-token': s.csrf } : {}),
        ...opts.headers,
      },
    });
}
