import { sql } from 'drizzle-orm';
import { check, doublePrecision, index, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, isOneOf, tenantId } from './columns.js';

export const COST_MIGRATION_STATUSES = ['active', 'rolled_back'] as const;
export type CostMigrationStatus = (typeof COST_MIGRATION_STATUSES)[number];

/** What the cycle saw when it migrated the cell (the spend recommendation). */
export interface CostMigrationEvidence {
  fromAvgScore: number;
  fromSamples: number;
  fromCostPerCallUsd: number;
  fromCallsLast30d: number;
  toAvgScore: number;
  toSamples: number;
  toCostPerCallUsd: number;
  tolerance: number;
}

// A routing cell moved from its incumbent model to a cheaper one of about the same judged quality.
// While active, routing prefers `to` on the cell; until grace_until it also gets the exploration
// share (the grace boost) so its evidence accrues fast.
export const costMigrations = pgTable(
  'cost_migrations',
  {
    id: text('id').primaryKey(),
    tenantId: tenantId(),
    taskType: text('task_type').notNull(),
    complexity: text('complexity').notNull(),
    fromProvider: text('from_provider').notNull(),
    fromModel: text('from_model').notNull(),
    toProvider: text('to_provider').notNull(),
    toModel: text('to_model').notNull(),
    status: text('status', { enum: COST_MIGRATION_STATUSES }).notNull(),
    evidence: jsonb('evidence').$type<CostMigrationEvidence>().notNull(),
    projectedMonthlySavingsUsd: doublePrecision('projected_monthly_savings_usd').notNull(),
    /** The grace period's end; the boost holds until the cycle sees it passed (grace_ended_at). */
    graceUntil: timestamp('grace_until', { withTimezone: true, mode: 'date' }).notNull(),
    graceEndedAt: timestamp('grace_ended_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
    rolledBackAt: timestamp('rolled_back_at', { withTimezone: true, mode: 'date' }),
    /** 'auto' (quality fell below the tolerance during grace) or 'manual'. */
    rollbackKind: text('rollback_kind'),
    rollbackReason: text('rollback_reason'),
  },
  (t) => [
    index('cost_migrations_tenant_created_idx').on(t.tenantId, t.createdAt),
    // One active migration per cell.
    uniqueIndex('cost_migrations_active_cell_uq')
      .on(t.tenantId, t.taskType, t.complexity)
      .where(sql`${t.status} = 'active'`),
    check('cost_migrations_status_check', isOneOf(t.status, COST_MIGRATION_STATUSES)),
  ],
);

export type CostMigrationRow = typeof costMigrations.$inferSelect;
