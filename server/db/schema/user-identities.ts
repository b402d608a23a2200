import { pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { createdAt } from './columns.js';

// The account a user signed in with at an identity provider (google, github, saml:<tenant>): the
// provider's stable subject, so a changed e-mail at the provider still finds the same user.
export const userIdentities = pgTable(
  'user_identities',
  {
    provider: text('provider').notNull(),
    subject: text('subject').notNull(),
    userId: text('user_id').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.provider, t.subject] })],
);
