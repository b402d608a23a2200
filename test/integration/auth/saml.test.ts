import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEnv, type TestEnv } from '../../support/harness.js';
import { expectTypedError } from '../../support/security.js';
import {
  PUBLIC_HOST,
  PUBLIC_URL,
  SAML_IDP_ENTITY,
  asSession,
  postAssertion,
  signInByMagicLink,
  signInWithSaml,
  signedIn,
  type SignedIn,
} from '../../support/sign-in/flows.js';
import { IDP_CERT, OTHER_CERT, OTHER_KEY } from '../../support/sign-in/saml-idp.js';
import { startSmtpCapture } from '../../support/sign-in/smtp-capture.js';

// SAML per workspace against an IdP stand-in that signs assertions with a test certificate:
// the admin sets the IdP through the API (audited), discovery by domain, a signed assertion signs
// in; tampered, expired, replayed, foreign-signed, mis-addressed and unsolicited ones are refused.

let env: TestEnv;
let smtp: Awaited<ReturnType<typeof startSmtpCapture>>;
let admin: SignedIn;

const refusedWith = (res: { status: number; json(): any }, text?: string) => {
  expectTypedError({ status: res.status, body: res.json() }, 401, 'auth_error');
  if (text) expect(res.json().error.message).toContain(text);
};

beforeAll(async () => {
  smtp = await startSmtpCapture();
  env = await startTestEnv({ env: { GATEWAY_PUBLIC_URL: PUBLIC_URL, GATEWAY_SMTP_URL: smtp.url } });
  admin = await signInByMagicLink(env, smtp, 'it-admin@acme.test');
  const put = await asSession(env, admin)('PUT', '/v1/admin/saml', {
    body: {
      idpEntityId: SAML_IDP_ENTITY,
      idpSsoUrl: 'https://idp.example.test/sso',
      idpCertificate: IDP_CERT,
      emailDomains: ['acme.test', 'ACME-labs.test'],
      defaultRole: 'member',
    },
  });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
});

afterAll(async () => {
  await env?.close();
  await smtp?.close();
});

describe('SAML settings', () => {
  it('are shown with the values to give the IdP, and audited', async () => {
    const got = await asSession(env, admin)('GET', '/v1/admin/saml');
    expect(got.body).toMatchObject({
      configured: true,
      emailDomains: ['acme.test', 'acme-labs.test'],
      serviceProvider: {
        entityId: `${PUBLIC_URL}/auth/saml/${admin.tenantId}`,
        acsUrl: `${PUBLIC_URL}/auth/saml/${admin.tenantId}/acs`,
      },
    });
    const audit = await env.database.pool.query(
      "select action, actor_id from audit_logs where tenant_id = $1 and action like 'saml.%'",
      [admin.tenantId],
    );
    expect(audit.rows).toEqual([{ action: 'saml.create', actor_id: admin.userId }]);
  });

  it('refuse a bad certificate, and a domain another workspace has', async () => {
    const bad = await asSession(env, admin)('PUT', '/v1/admin/saml', {
      body: {
        idpEntityId: 'x',
        idpSsoUrl: 'https://idp.example.test/sso',
        idpCertificate: 'not a cert',
        emailDomains: ['acme.test'],
      },
    });
    expectTypedError(bad, 400, 'invalid_request_error');
    const other = await signInByMagicLink(env, smtp, 'someone@elsewhere.test');
    const taken = await asSession(env, other)('PUT', '/v1/admin/saml', {
      body: {
        idpEntityId: 'x',
        idpSsoUrl: 'https://idp.example.test/sso',
        idpCertificate: IDP_CERT,
        emailDomains: ['acme.test'],
      },
    });
    expectTypedError(taken, 409, 'conflict_error');
  });
});

describe('SAML sign-in', () => {
  it('discovers the workspace by e-mail domain', async () => {
    const found = await env.http('GET', '/auth/saml/discover?email=Someone@ACME.test');
    expect(found.body).toEqual({
      tenantId: admin.tenantId,
      startUrl: `${PUBLIC_URL}/auth/saml/${admin.tenantId}/start`,
    });
    expectTypedError(await env.http('GET', '/auth/saml/discover?email=a@unknown.test'), 404, 'not_found_error');
    expectTypedError(await env.http('GET', '/auth/saml/discover?email=nope'), 400, 'invalid_request_error');
  });

  it('signs a user in with a signed assertion, as a member of the workspace', async () => {
    const { browser, response } = await signInWithSaml(env, admin.tenantId, 'engineer@acme.test');
    const s = await signedIn(browser, response);
    expect(s.tenantId).toBe(admin.tenantId);
    expect(s.role).toBe('member');
    expect(s.email).toBe('engineer@acme.test');
  });

  it('refuses a tampered assertion', async () => {
    const { browser, response } = await signInWithSaml(env, admin.tenantId, 'engineer@acme.test', {
      tamper: (xml) => xml.replaceAll('engineer@acme.test', 'it-admin@acme.test'),
    });
    refusedWith(response, 'Invalid signature');
    expect(browser.cookie(PUBLIC_HOST, 'gw_session')).toBeUndefined();
  });

  it('refuses an expired assertion', async () => {
    const { response } = await signInWithSaml(env, admin.tenantId, 'engineer@acme.test', {
      notBeforeMs: -20 * 60_000,
      notOnOrAfterMs: -10 * 60_000,
    });
    refusedWith(response, 'expired');
  });

  it('refuses a replayed assertion', async () => {
    const { browser, response, posted } = await signInWithSaml(env, admin.tenantId, 'replay@acme.test');
    expect(response.status).toBe(200);
    const again = await postAssertion(browser, admin.tenantId, posted);
    refusedWith(again, 'used already');
  });

  it('refuses an assertion signed with another key, for another audience or recipient, or from another issuer', async () => {
    refusedWith(
      (await signInWithSaml(env, admin.tenantId, 'e@acme.test', { key: OTHER_KEY, cert: OTHER_CERT })).response,
      'Invalid signature',
    );
    refusedWith(
      (await signInWithSaml(env, admin.tenantId, 'e@acme.test', { audience: 'https://other-sp.example' })).response,
      'audience',
    );
    refusedWith(
      (await signInWithSaml(env, admin.tenantId, 'e@acme.test', { acsUrl: 'https://other-sp.example/acs' })).response,
      'not this ACS',
    );
    refusedWith(
      (await signInWithSaml(env, admin.tenantId, 'e@acme.test', { issuer: 'https://evil-idp.example' })).response,
      'Issuer',
    );
  });

  it('refuses an unsolicited response, and an e-mail outside the workspace domains', async () => {
    refusedWith(
      (await signInWithSaml(env, admin.tenantId, 'e@acme.test', { inResponseTo: '_never-asked' })).response,
      'does not answer',
    );
    refusedWith((await signInWithSaml(env, admin.tenantId, 'ceo@elsewhere.test')).response, 'domains');
  });

  it("does not accept one workspace's assertion at another's ACS", async () => {
    const other = await signInByMagicLink(env, smtp, 'admin@beta.test');
    await asSession(env, other)('PUT', '/v1/admin/saml', {
      body: {
        idpEntityId: SAML_IDP_ENTITY,
        idpSsoUrl: 'https://idp.example.test/sso',
        idpCertificate: IDP_CERT,
        emailDomains: ['beta.test'],
      },
    });
    const { browser, posted } = await signInWithSaml(env, admin.tenantId, 'cross@acme.test', {
      tamper: (xml) => xml,
    });
    refusedWith(await postAssertion(browser, other.tenantId, posted), 'audience');
  });

  it('is gone once the admin removes it', async () => {
    const gone = await signInByMagicLink(env, smtp, 'admin@gamma.test');
    const put = await asSession(env, gone)('PUT', '/v1/admin/saml', {
      body: {
        idpEntityId: SAML_IDP_ENTITY,
        idpSsoUrl: 'https://idp.example.test/sso',
        idpCertificate: IDP_CERT,
        emailDomains: ['gamma.test'],
      },
    });
    expect(put.status).toBe(200);
    expect((await asSession(env, gone)('DELETE', '/v1/admin/saml')).body.configured).toBe(false);
    expectTypedError(await env.http('GET', `/auth/saml/${gone.tenantId}/start`), 404, 'not_found_error');
    expectTypedError(await asSession(env, gone)('DELETE', '/v1/admin/saml'), 404, 'not_found_error');
  });
});
