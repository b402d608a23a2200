import { check, doublePrecision, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { createdAt, isOneOf, tenantId } from './columns.js';

export const REGRESSION_SEVERITIES = ['warning', 'critical'] as const;
export type RegressionSeverity = (typeof REGRESSION_SEVERITIES)[number];

// A quality drop found by replaying captured exchanges: on a cell, the model the router picks
// today answered them worse (judged) than the original answers, beyond the threshold, on enough
// samples to be sure.
export const regressionEvents = pgTable(
  'regression_events',
  {
    id: text('id').primaryKey(),
    tenantId: tenantId(),
    taskType: text('task_type').notNull(),
    complexity: text('complexity').notNull(),
    provider: text('provider').notNull(),
    model: text('model').notNull(),
    sampleCount: integer('sample_count').notNull(),
    originalAvgScore: doublePrecision('original_avg_score').notNull(),
    replayAvgScore: doublePrecision('replay_avg_score').notNull(),
    /** replay - original, mean over the paired samples. */
    scoreDelta: doublePrecision('score_delta').notNull(),
    severity: text('severity', { enum: REGRESSION_SEVERITIES }).notNull(),
    /** Request ids of replayed exchanges that dropped the most. */
    exampleRequestIds: jsonb('example_request_ids').$type<string[]>().notNull(),
    createdAt: createdAt(),
    resolvedAt: timestamp('resolved_at', { withTimezone: true, mode: 'date' }),
    resolutionNote: text('resolution_note'),
  },
  (t) => [
    index('regression_events_tenant_created_idx').on(t.tenantId, t.createdAt),
    check('regression_events_severity_check', isOneOf(t.severity, REGRESSION_SEVERITIES)),
  ],
);

export type RegressionEventRow = typeof regressionEvents.$inferSelect;
