import { pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt } from './columns.js';

// A person who signs in (multi-tenant mode). Not tenant-scoped: one user may belong to several
// workspaces (memberships). The e-mail is stored lower-cased and is the identity every sign-in
// method agrees on.
export const users = pgTable(
  'users',
  {
    id: text('id').primaryKey(),
    email: text('email').notNull(),
    name: text('name'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('users_email_idx').on(t.email)],
);

export type UserRow = typeof users.$inferSelect;
