import { pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt } from './columns.js';

// Every payment-provider webhook event handled, by its id: a replayed event finds its row and
// changes nothing.
export const billingEvents = pgTable('billing_events', {
  id: text('id').primaryKey(),
  type: text('type').notNull(),
  tenantId: text('tenant_id'),
  createdAt: createdAt(),
});
