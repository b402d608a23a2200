import { index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { createdAt } from './columns.js';

// A sign-in link sent by e-mail: only the SHA-256 hash of its token is stored; used once.
export const magicLinks = pgTable(
  'magic_links',
  {
    hash: text('hash').primaryKey(),
    email: text('email').notNull(),
    inviteToken: text('invite_token'),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
  },
  (t) => [index('magic_links_email_idx').on(t.email, t.createdAt)],
);
