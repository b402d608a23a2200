import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEnv, type TestEnv, type TestTenant } from '../../support/harness.js';
import { crossTenantMatrix, expectTypedError, securityMatrix, type SecurityContext } from '../../support/security.js';
import { PUBLIC_URL, asSession, signInByMagicLink, type SignedIn } from '../../support/sign-in/flows.js';
import { startSmtpCapture } from '../../support/sign-in/smtp-capture.js';

// Team: members and roles, the last owner kept, removal ending sessions and tokens, invites,
// read-only members, every change audited; the security and cross-workspace matrices.

let env: TestEnv;
let smtp: Awaited<ReturnType<typeof startSmtpCapture>>;
let owner: SignedIn;
let other: TestTenant;
const ids: Record<string, string> = {};

/** Invites `email` with `role` into the owner's workspace and signs them in with the invite. */
async function join(email: string, role: string): Promise<SignedIn> {
  const invite = await asSession(env, owner)('POST', '/v1/admin/team/invites', { body: { email, role } });
  expect(invite.status, JSON.stringify(invite.body)).toBe(200);
  const s = await signInByMagicLink(env, smtp, email, { inviteToken: invite.body.token });
  expect(s.tenantId).toBe(owner.tenantId);
  expect(s.role).toBe(role);
  return s;
}

beforeAll(async () => {
  smtp = await startSmtpCapture();
  env = await startTestEnv({
    env: { GATEWAY_PUBLIC_URL: PUBLIC_URL, GATEWAY_SMTP_URL: smtp.url, GATEWAY_MAGIC_LINK_PER_HOUR: '100' },
  });
  owner = await signInByMagicLink(env, smtp, 'owner@team.test');
  other = await env.createTenant();
  const member = await join('member-for-matrix@team.test', 'member');
  ids.user = member.userId;
  const invite = await asSession(env, owner)('POST', '/v1/admin/team/invites', {
    body: { email: 'pending@team.test' },
  });
  ids.invite = invite.body.token;
});

afterAll(async () => {
  await env?.close();
  await smtp?.close();
});

describe('team', () => {
  it('lists members with their roles', async () => {
    const listed = await asSession(env, owner)('GET', '/v1/admin/team');
    expect(listed.status).toBe(200);
    expect(listed.body.members).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ userId: owner.userId, email: 'owner@team.test', role: 'owner' }),
        expect.objectContaining({ userId: ids.user, role: 'member' }),
      ]),
    );
  });

  it('keeps the last owner: not demoted, not removed', async () => {
    expectTypedError(
      await asSession(env, owner)('PATCH', '/v1/admin/team', { body: { userId: owner.userId, role: 'admin' } }),
      409,
      'conflict_error',
    );
    expectTypedError(
      await asSession(env, owner)('DELETE', `/v1/admin/team?userId=${owner.userId}`),
      409,
      'conflict_error',
    );
    // With a second owner, the first may step down.
    const second = await join('second@team.test', 'admin');
    const promoted = await asSession(env, owner)('PATCH', '/v1/admin/team', {
      body: { userId: second.userId, role: 'owner' },
    });
    expect(promoted.body).toMatchObject({ userId: second.userId, role: 'owner' });
    const stepDown = await asSession(env, second)('PATCH', '/v1/admin/team', {
      body: { userId: owner.userId, role: 'admin' },
    });
    expect(stepDown.body.role).toBe('admin');
    const back = await asSession(env, second)('PATCH', '/v1/admin/team', {
      body: { userId: owner.userId, role: 'owner' },
    });
    expect(back.body.role).toBe('owner');
  });

  it('lets only owners make owners, and only admins change roles', async () => {
    const admin = await join('admin@team.test', 'admin');
    const member = await join('plain@team.test', 'member');
    expectTypedError(
      await asSession(env, admin)('PATCH', '/v1/admin/team', { body: { userId: admin.userId, role: 'owner' } }),
      403,
      'permission_error',
    );
    expectTypedError(
      await asSession(env, member)('PATCH', '/v1/admin/team', { body: { userId: member.userId, role: 'admin' } }),
      403,
      'permission_error',
    );
    expectTypedError(await asSession(env, member)('GET', '/v1/admin/team/invites'), 403, 'permission_error');
    // A member may read the team and use the gateway, not change configuration.
    expect((await asSession(env, member)('GET', '/v1/admin/team')).status).toBe(200);
    expectTypedError(
      await asSession(env, member)('POST', '/v1/admin/tokens', { body: { name: 't' } }),
      403,
      'permission_error',
    );
  });

  it('read-only members only read', async () => {
    const reader = await join('reader@team.test', 'read-only');
    expect((await asSession(env, reader)('GET', '/v1/admin/team')).status).toBe(200);
    expectTypedError(await asSession(env, reader)('POST', '/v1/feedback', { body: {} }), 403, 'permission_error');
    expectTypedError(
      await asSession(env, reader)('POST', '/v1/chat/completions', { body: { model: 'x', messages: [] } }),
      403,
      'permission_error',
    );
  });

  it("ends a removed member's sessions and tokens, and a demoted admin's token loses admin", async () => {
    const leaver = await join('leaver@team.test', 'admin');
    const token = await asSession(env, leaver)('POST', '/v1/admin/tokens', { body: { name: 'leaver', admin: true } });
    expect(token.status).toBe(200);
    expect((await env.http('GET', '/v1/admin/tokens', { token: token.body.token })).status).toBe(200);
    const perMember = await asSession(env, owner)('GET', `/v1/admin/tokens?userId=${leaver.userId}`);
    expect(perMember.body.items.map((t: { id: string }) => t.id)).toEqual([token.body.id]);

    await asSession(env, owner)('PATCH', '/v1/admin/team', { body: { userId: leaver.userId, role: 'member' } });
    expectTypedError(await env.http('GET', '/v1/admin/tokens', { token: token.body.token }), 403, 'permission_error');

    const removed = await asSession(env, owner)('DELETE', `/v1/admin/team?userId=${leaver.userId}`);
    expect(removed.body).toEqual({ userId: leaver.userId, removed: true });
    expectTypedError(await asSession(env, leaver)('GET', '/v1/admin/team'), 401, 'auth_error');
    expectTypedError(await env.http('GET', '/v1/admin/team', { token: token.body.token }), 401, 'auth_error');
  });

  it('manages invites: list, withdraw; an expired or withdrawn invite admits nobody', async () => {
    const made = await asSession(env, owner)('POST', '/v1/admin/team/invites', {
      body: { email: 'Later@Team.test', role: 'read-only', expiresInHours: 2 },
    });
    expect(made.body).toMatchObject({ email: 'later@team.test', role: 'read-only' });
    const listed = await asSession(env, owner)('GET', '/v1/admin/team/invites');
    expect(listed.body.items.map((i: { token: string }) => i.token)).toContain(made.body.token);
    const removed = await asSession(env, owner)('DELETE', `/v1/admin/team/invites/${made.body.token}`);
    expect(removed.body).toEqual({ token: made.body.token, deleted: true });
    expectTypedError(
      await asSession(env, owner)('DELETE', `/v1/admin/team/invites/${made.body.token}`),
      404,
      'not_found_error',
    );
    expectTypedError(
      await asSession(env, owner)('POST', '/v1/admin/team/invites', { body: { email: 'x@team.test', role: 'owner' } }),
      400,
      'invalid_request_error',
    );
  });

  it('audits every change with the member who made it', async () => {
    const rows = await env.database.pool.query(
      "select action, actor_type, actor_id from audit_logs where tenant_id = $1 and action like 'team.%'",
      [owner.tenantId],
    );
    const actions = new Set(rows.rows.map((r) => r.action));
    for (const a of ['team.join', 'team.invite', 'team.role_change', 'team.remove', 'team.invite_delete'])
      expect(actions, a).toContain(a);
    expect(rows.rows.filter((r) => r.action === 'team.remove')[0]).toMatchObject({
      actor_type: 'user',
      actor_id: owner.userId,
    });
  });

  const ctx = (): SecurityContext => ({
    owner: { tenantId: owner.tenantId, token: '', tokenId: '' },
    other,
    ids,
  });
  securityMatrix(
    () => env,
    () => ({ ...ctx(), owner: other }),
    [
      { method: 'GET', path: '/v1/admin/team' },
      { method: 'PATCH', path: '/v1/admin/team', body: { userId: 'usr_x', role: 'member' } },
      { method: 'DELETE', path: '/v1/admin/team?userId=usr_x' },
      { method: 'GET', path: '/v1/admin/team/invites' },
      { method: 'POST', path: '/v1/admin/team/invites', body: { email: 'a@b.test' } },
      { method: 'DELETE', path: '/v1/admin/team/invites/inv_x' },
      { method: 'GET', path: '/v1/admin/saml' },
      { method: 'DELETE', path: '/v1/admin/saml' },
    ],
  );
  crossTenantMatrix(() => env, ctx, [
    {
      method: 'PATCH',
      path: '/v1/admin/team',
      // Read when the request is sent, after beforeAll made the member.
      body: {
        get userId() {
          return ids.user;
        },
        role: 'read-only',
      },
    },
    { method: 'DELETE', path: (x) => `/v1/admin/team?userId=${x.ids.user}` },
    { method: 'DELETE', path: (x) => `/v1/admin/team/invites/${x.ids.invite}` },
  ]);
});
