import { boolean, pgTable, timestamp } from 'drizzle-orm/pg-core';
import { tenantId } from './columns.js';

// Whether a workspace's captured exchanges are replayed to detect quality regressions (off by default).
export const regressionSettings = pgTable('regression_settings', {
  tenantId: tenantId().primaryKey(),
  enabled: boolean('enabled').notNull().default(false),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

export type RegressionSettingsRow = typeof regressionSettings.$inferSelect;
