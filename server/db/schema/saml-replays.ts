import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { tenantId } from './columns.js';

// Assertion ids already accepted, kept until the assertion could no longer be valid: the same
// assertion posted again is refused.
export const samlReplays = pgTable('saml_replays', {
  assertionId: text('assertion_id').primaryKey(),
  tenantId: tenantId(),
  expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
});
