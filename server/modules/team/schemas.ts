import { z } from 'zod';
import { TEAM_ROLES } from '../../db/schema/memberships.js';
import { MAX_ID_CHARS } from '../../lib/ids.js';
import { rest } from '../../trpc/meta.js';

const Role = z
  .enum(TEAM_ROLES)
  .describe('owner, admin (may change configuration), member (may use the gateway), read-only');
const Email = z
  .string()
  .trim()
  .toLowerCase()
  .max(320)
  .pipe(z.email())
  .describe('E-mail address (compared lower-cased)');

export const TeamMember = z.object({
  userId: z.string().describe('User id (usr_...)'),
  email: z.string(),
  name: z.string().nullable(),
  role: Role,
  joinedAt: z.string().describe('ISO 8601 timestamp'),
});

export const TeamList = z.object({ members: z.array(TeamMember) });

export const UserIdInput = z.object({ userId: z.string().min(1).max(MAX_ID_CHARS).describe('User id') }).strict();
export const ChangeRoleInput = UserIdInput.extend({ role: Role }).strict();
export const MemberRemoved = z.object({ userId: z.string(), removed: z.literal(true) });

export const TeamInvite = z.object({
  token: z.string().describe('What the invitee passes to sign-in as invite_token; works only for this e-mail'),
  email: z.string(),
  role: Role,
  expiresAt: z.string().describe('ISO 8601 timestamp'),
  createdAt: z.string().describe('ISO 8601 timestamp'),
});
export const InviteList = z.object({ items: z.array(TeamInvite) });

export const CreateInviteInput = z
  .object({
    email: Email,
    role: Role.exclude(['owner']).default('member'),
    expiresInHours: z.number().min(1).max(720).default(168).describe('Hours until the invite lapses (default 168)'),
  })
  .strict();
export const InviteTokenInput = z.object({ token: z.string().min(1).max(MAX_ID_CHARS) }).strict();
export const InviteRemoved = z.object({ token: z.string(), deleted: z.literal(true) });

const tag = 'Team';
export const teamMeta = {
  list: rest('GET', '/v1/admin/team', tag, 'List the members of the workspace and their roles'),
  changeRole: rest('PATCH', '/v1/admin/team', tag, "Change a member's role", {
    admin: true,
    errors: [404, 409],
    description: 'Only an owner may make or unmake an owner. Demoting the last owner is a 409.',
  }),
  remove: rest('DELETE', '/v1/admin/team', tag, 'Remove a member (their sessions end, their tokens stop working)', {
    admin: true,
    errors: [404, 409],
    description: 'Removing the last owner is a 409; only an owner may remove an owner.',
  }),
  listInvites: rest('GET', '/v1/admin/team/invites', tag, 'List open invitations', { admin: true }),
  createInvite: rest('POST', '/v1/admin/team/invites', tag, 'Invite an e-mail address with a role', { admin: true }),
  removeInvite: rest('DELETE', '/v1/admin/team/invites/{token}', tag, 'Withdraw an invitation', { admin: true }),
};
