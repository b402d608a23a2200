import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../support/cli.js';
import { startTestEnv, type TestEnv } from '../../support/harness.js';
import { PUBLIC_URL, asSession, signInByMagicLink, type SignedIn } from '../../support/sign-in/flows.js';
import { startSmtpCapture } from '../../support/sign-in/smtp-capture.js';

// gatewayctl team: list members, invite, list and withdraw invitations, change a role, remove a
// member, with the token of a signed-in owner.

let env: TestEnv;
let smtp: Awaited<ReturnType<typeof startSmtpCapture>>;
let owner: SignedIn;
let token: string;

const cli = (...args: string[]) => runCli(args, { url: env.baseUrl, token });

beforeAll(async () => {
  smtp = await startSmtpCapture();
  env = await startTestEnv({ env: { GATEWAY_PUBLIC_URL: PUBLIC_URL, GATEWAY_SMTP_URL: smtp.url } });
  owner = await signInByMagicLink(env, smtp, 'owner@cli.test');
  token = (await asSession(env, owner)('POST', '/v1/admin/tokens', { body: { name: 'cli', admin: true } })).body.token;
});

afterAll(async () => {
  await env?.close();
  await smtp?.close();
});

describe('gatewayctl team', () => {
  it('invites, lists and withdraws invitations', async () => {
    const invited = await cli('team', 'invite', 'dev@cli.test', '--role', 'read-only', '--expires-hours', '24');
    expect(invited.code, invited.stderr).toBe(0);
    const inviteToken = /Invite token: (\S+)/.exec(invited.stdout)?.[1];
    expect(inviteToken).toMatch(/^inv_/);
    const listed = await cli('team', 'invites');
    expect(listed.stdout).toContain('dev@cli.test');
    expect(listed.stdout).toContain('read-only');
    expect((await cli('team', 'uninvite', inviteToken!)).code).toBe(0);
    expect((await cli('team', 'invites', '--json')).stdout).not.toContain('dev@cli.test');
    const bad = await cli('team', 'invite', 'dev@cli.test', '--role', 'boss');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('owner, admin, member, read-only');
  });

  it('lists members, changes a role and removes a member', async () => {
    const invite = await cli('team', 'invite', 'member@cli.test', '--json');
    const member = await signInByMagicLink(env, smtp, 'member@cli.test', {
      inviteToken: JSON.parse(invite.stdout).token,
    });
    const listed = await cli('team', 'list');
    expect(listed.stdout).toContain('owner@cli.test');
    expect(listed.stdout).toContain('member@cli.test');
    const changed = await cli('team', 'role', member.userId, 'admin');
    expect(changed.stdout).toContain('member@cli.test is now admin.');
    const lastOwner = await cli('team', 'remove', owner.userId);
    expect(lastOwner.code).not.toBe(0);
    expect(lastOwner.stderr).toContain('last owner');
    const removed = await cli('team', 'remove', member.userId);
    expect(removed.stdout).toContain(`Member ${member.userId} removed.`);
    expect((await cli('team', 'list', '--json')).stdout).not.toContain('member@cli.test');
  });
});
