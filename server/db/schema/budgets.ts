import { boolean, integer, jsonb, numeric, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { createdAt, tenantId, updatedAt } from './columns.js';

// A workspace's monthly USD budget (one row per workspace that has one). The month is the UTC
// calendar month; spend is the sum of the workspace's cost rows in it.
export const workspaceBudgets = pgTable('workspace_budgets', {
  tenantId: tenantId().primaryKey(),
  monthlyUsd: numeric('monthly_usd', { precision: 14, scale: 4, mode: 'number' }).notNull(),
  /** Percentages of the budget whose first crossing in a month is recorded (audit log, warning log). */
  alertThresholds: jsonb('alert_thresholds').$type<number[]>().notNull(),
  /** Refuse calls (402 budget_exceeded) once the month's spend reaches the budget. */
  hardStop: boolean('hard_stop').notNull(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export type WorkspaceBudgetRow = typeof workspaceBudgets.$inferSelect;

// The first crossing of each alert threshold in a month, one row each (the key makes it once
// across every node).
export const budgetAlerts = pgTable(
  'budget_alerts',
  {
    tenantId: tenantId(),
    /** YYYY-MM (UTC). */
    month: text('month').notNull(),
    thresholdPct: integer('threshold_pct').notNull(),
    spentUsd: numeric('spent_usd', { precision: 20, scale: 12, mode: 'number' }).notNull(),
    budgetUsd: numeric('budget_usd', { precision: 14, scale: 4, mode: 'number' }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ name: 'budget_alerts_pk', columns: [t.tenantId, t.month, t.thresholdPct] })],
);
