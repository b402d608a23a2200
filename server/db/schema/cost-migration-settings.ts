import { boolean, pgTable, timestamp } from 'drizzle-orm/pg-core';
import { tenantId } from './columns.js';

// Whether a workspace lets the cost-migration cycle move its cells to cheaper models (off by default).
export const costMigrationSettings = pgTable('cost_migration_settings', {
  tenantId: tenantId().primaryKey(),
  enabled: boolean('enabled').notNull().default(false),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

export type CostMigrationSettingsRow = typeof costMigrationSettings.$inferSelect;
