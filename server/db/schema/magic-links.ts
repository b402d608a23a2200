import { index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { createdAt } from './columns.js';

// A sign-in link sent by e-mail: only the SHA-256 hash of its token is stored; used once. Rows stay
// an hour past their expiry: the requests limits (per address, per client address) count them, on
// every node alike.
export const magicLinks = pgTable(
  'magic_links',
  {
    hash: text('hash').primaryKey(),
    email: text('email').notNull(),
    inviteToken: text('invite_token'),
    /** The address the request came from (the client's, behind a trusted proxy). */
    clientAddress: text('client_address'),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
  },
  (t) => [
    index('magic_links_email_idx').on(t.email, t.createdAt),
    index('magic_links_client_address_idx').on(t.clientAddress, t.createdAt),
  ],
);
