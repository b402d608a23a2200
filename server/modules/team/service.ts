import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import type { Database, Executor } from '../../db/client.js';
import type { TeamInviteRow, TeamRole, UserRow } from '../../db/schema/index.js';
import { GatewayError, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { ActorRef, AuditService } from '../audit/service.js';
import { teamRepository } from './repository.js';
import type { ChangeRoleInput, CreateInviteInput, TeamInvite, TeamMember } from './schemas.js';

/** Who is asking: their role decides what they may change (a token of no member acts as an admin). */
export interface TeamCaller {
  actor: ActorRef;
  role: TeamRole;
}

export interface TeamServiceDeps {
  db: Database;
  audit: AuditService;
  /**
   * A member's role changed or they left: in the same transaction, the caches of sessions and
   * tokens are told (and, when removed, the member's sessions end).
   */
  memberChanged(tx: Executor, tenantId: string, userId: string, removed: boolean): Promise<void>;
  /** After such a change committed: this process's caches are dropped at once (others hear the announcement). */
  afterMemberChange(): void;
}

// Members, roles and invitations. A workspace always keeps an owner.
export class TeamService {
  constructor(private readonly deps: TeamServiceDeps) {}

  async list(tenantId: string): Promise<Array<z.infer<typeof TeamMember>>> {
    return (await teamRepository.members(this.deps.db, tenantId)).map((m) => ({
      userId: m.user.id,
      email: m.user.email,
      name: m.user.name,
      role: m.role,
      joinedAt: m.joinedAt.toISOString(),
    }));
  }

  async changeRole(
    tenantId: string,
    caller: TeamCaller,
    input: z.infer<typeof ChangeRoleInput>,
  ): Promise<z.infer<typeof TeamMember>> {
    await this.deps.db.transaction(async (tx) => {
      await teamRepository.lockOwners(tx, tenantId);
      const before = await teamRepository.membership(tx, tenantId, input.userId);
      if (!before) throw notFound('Member', input.userId);
      if (before.role === input.role) return;
      if ((before.role === 'owner' || input.role === 'owner') && caller.role !== 'owner')
        throw new GatewayError('permission_error', 'Only an owner may make or unmake an owner');
      if (before.role === 'owner') await this.assertAnotherOwner(tx, tenantId, 'demote');
      await teamRepository.setRole(tx, tenantId, input.userId, input.role);
      await this.deps.audit.record(tx, {
        tenantId,
        actor: caller.actor,
        action: 'team.role_change',
        targetType: 'user',
        targetId: input.userId,
        before: { role: before.role },
        after: { role: input.role },
      });
      await this.deps.memberChanged(tx, tenantId, input.userId, false);
    });
    this.deps.afterMemberChange();
    const member = (await this.list(tenantId)).find((m) => m.userId === input.userId);
    if (!member) throw notFound('Member', input.userId);
    return member;
  }

  async remove(tenantId: string, caller: TeamCaller, userId: string): Promise<{ userId: string; removed: true }> {
    await this.deps.db.transaction(async (tx) => {
      await teamRepository.lockOwners(tx, tenantId);
      const before = await teamRepository.membership(tx, tenantId, userId);
      if (!before) throw notFound('Member', userId);
      if (before.role === 'owner') {
        if (caller.role !== 'owner') throw new GatewayError('permission_error', 'Only an owner may remove an owner');
        await this.assertAnotherOwner(tx, tenantId, 'remove');
      }
      await teamRepository.removeMember(tx, tenantId, userId);
      await this.deps.audit.record(tx, {
        tenantId,
        actor: caller.actor,
        action: 'team.remove',
        targetType: 'user',
        targetId: userId,
        before: { role: before.role },
      });
      await this.deps.memberChanged(tx, tenantId, userId, true);
    });
    this.deps.afterMemberChange();
    return { userId, removed: true };
  }

  async invites(tenantId: string): Promise<Array<z.infer<typeof TeamInvite>>> {
    return (await teamRepository.invites(this.deps.db, tenantId)).map(inviteDto);
  }

  async invite(
    tenantId: string,
    caller: TeamCaller,
    input: z.infer<typeof CreateInviteInput>,
  ): Promise<z.infer<typeof TeamInvite>> {
    const row = await this.deps.db.transaction(async (tx) => {
      const created = await teamRepository.insertInvite(tx, {
        token: `inv_${randomBytes(24).toString('base64url')}`,
        tenantId,
        email: input.email,
        role: input.role,
        invitedBy: caller.actor.id,
        expiresAt: new Date(Date.now() + input.expiresInHours * 3_600_000),
      });
      await this.deps.audit.record(tx, {
        tenantId,
        actor: caller.actor,
        action: 'team.invite',
        targetType: 'invite',
        targetId: created.email,
        after: { email: created.email, role: created.role, expiresAt: created.expiresAt.toISOString() },
      });
      return created;
    });
    return inviteDto(row);
  }

  async removeInvite(tenantId: string, actor: ActorRef, token: string): Promise<{ token: string; deleted: true }> {
    await this.deps.db.transaction(async (tx) => {
      const removed = await teamRepository.removeInvite(tx, tenantId, token);
      if (!removed) throw notFound('Invite', token);
      await this.deps.audit.record(tx, {
        tenantId,
        actor,
        action: 'team.invite_delete',
        targetType: 'invite',
        targetId: removed.email,
        before: { email: removed.email, role: removed.role },
      });
    });
    return { token, deleted: true };
  }

  // --- for sign-in -------------------------------------------------------------------------

  async userByEmail(email: string): Promise<UserRow | undefined> {
    return teamRepository.userByEmail(this.deps.db, email);
  }

  async userById(id: string): Promise<UserRow | undefined> {
    return teamRepository.userById(this.deps.db, id);
  }

  /** The user holding `email`, made when there is none. */
  async ensureUser(tx: Executor, email: string, name: string | null): Promise<UserRow> {
    return (
      (await teamRepository.userByEmail(tx, email)) ??
      (await teamRepository.insertUser(tx, { id: newId('usr'), email, name }))
    );
  }

  /** The workspaces the user belongs to, the first joined first. */
  async workspacesOf(tx: Executor, userId: string) {
    return teamRepository.membershipsOf(tx, userId);
  }

  async roleOf(tx: Executor, tenantId: string, userId: string): Promise<TeamRole | undefined> {
    return (await teamRepository.membership(tx, tenantId, userId))?.role;
  }

  /** Makes the user a member (the owner of a new workspace, or a SAML first sign-in), audited. */
  async addMember(tx: Executor, tenantId: string, user: UserRow, role: TeamRole, via: string): Promise<void> {
    if (await teamRepository.membership(tx, tenantId, user.id)) return;
    await teamRepository.addMember(tx, tenantId, user.id, role);
    await this.deps.audit.record(tx, {
      tenantId,
      actor: { type: 'user', id: user.id },
      action: 'team.join',
      targetType: 'user',
      targetId: user.id,
      after: { email: user.email, role, via },
    });
  }

  /**
   * Accepts an invite for `user`: the invite is used up and the user joins its workspace with its
   * role. An unknown, expired or someone else's invite is a 400 (and stays unused).
   */
  async acceptInvite(tx: Executor, token: string, user: UserRow): Promise<string> {
    const invite = await teamRepository.findInvite(tx, token);
    if (!invite || invite.expiresAt.getTime() <= Date.now() || invite.email !== user.email)
      throw new GatewayError('invalid_request_error', 'The invite is unknown, expired, or for another e-mail address');
    if (!(await teamRepository.takeInvite(tx, token, new Date())))
      throw new GatewayError('invalid_request_error', 'The invite was used already');
    await this.addMember(tx, invite.tenantId, user, invite.role, 'invite');
    return invite.tenantId;
  }

  private async assertAnotherOwner(tx: Executor, tenantId: string, change: string): Promise<void> {
    if ((await teamRepository.countOwners(tx, tenantId)) > 1) return;
    throw new GatewayError(
      'conflict_error',
      `This is the workspace's last owner: make another member owner before you ${change} them`,
    );
  }
}

function inviteDto(r: TeamInviteRow): z.infer<typeof TeamInvite> {
  return {
    token: r.token,
    email: r.email,
    role: r.role,
    expiresAt: r.expiresAt.toISOString(),
    createdAt: r.createdAt.toISOString(),
  };
}
