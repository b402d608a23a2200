import { check, index, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { createdAt, isOneOf, tenantId } from './columns.js';

/** Highest first: owner may do everything, read-only may only read. */
export const TEAM_ROLES = ['owner', 'admin', 'member', 'read-only'] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];

// A user's place in a workspace and the role that decides what they may change.
export const memberships = pgTable(
  'memberships',
  {
    tenantId: tenantId(),
    userId: text('user_id').notNull(),
    role: text('role', { enum: TEAM_ROLES }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.userId] }),
    index('memberships_user_idx').on(t.userId),
    check('memberships_role_check', isOneOf(t.role, TEAM_ROLES)),
  ],
);

export type MembershipRow = typeof memberships.$inferSelect;
