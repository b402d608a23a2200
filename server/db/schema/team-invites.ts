import { check, index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { createdAt, isOneOf, tenantId } from './columns.js';
import { TEAM_ROLES } from './memberships.js';

// An invitation to join a workspace. The token is what the invitee brings to sign-in (and what
// DELETE /v1/admin/team/invites/{token} names); it only works for a sign-in with the invited
// e-mail, so an admin who can read it cannot use it to join as someone else.
export const teamInvites = pgTable(
  'team_invites',
  {
    token: text('token').primaryKey(),
    tenantId: tenantId(),
    email: text('email').notNull(),
    role: text('role', { enum: TEAM_ROLES }).notNull(),
    invitedBy: text('invited_by'),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index('team_invites_tenant_idx').on(t.tenantId, t.createdAt),
    check('team_invites_role_check', isOneOf(t.role, TEAM_ROLES)),
  ],
);

export type TeamInviteRow = typeof teamInvites.$inferSelect;
