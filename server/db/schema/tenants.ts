import { pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt } from './columns.js';

// A workspace. Its id is the tenant_id every other table carries. Single-tenant mode has one row.
export const tenants = pgTable('tenants', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  /** free | team | enterprise | intelligence: each includes the ones before it. */
  tier: text('tier').notNull().default('free'),
  createdAt: createdAt(),
});

export type TenantRow = typeof tenants.$inferSelect;
