import { index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { createdAt, tenantId } from './columns.js';

// A signed-in browser: the cookie carries the secret, only its SHA-256 hash is stored. A session
// works in one workspace (the one signed in to). `csrf` is the value a cookie-authenticated
// mutation must echo in X-CSRF-Token.
export const sessions = pgTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    hash: text('hash').notNull().unique(),
    tenantId: tenantId(),
    userId: text('user_id').notNull(),
    csrf: text('csrf').notNull(),
    /** How the user signed in: google, github, magic_link, saml. */
    method: text('method').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
  },
  (t) => [index('sessions_user_idx').on(t.userId)],
);

export type SessionRow = typeof sessions.$inferSelect;
