import {
  check,
  foreignKey,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from 'drizzle-orm/pg-core';
import { createdAt, isOneOf, tenantId, updatedAt } from './columns.js';

export const EVAL_SCORERS = ['llm-judge', 'exact-match', 'regex-match'] as const;
export const EVAL_RUN_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;

// Eval datasets, their cases, runs over a dataset and one result per (run, case). Deleting a
// dataset cascades to its cases, runs and results; deleting a run cascades to its results.

export const evalDatasets = pgTable(
  'eval_datasets',
  {
    id: text('id').primaryKey(),
    tenantId: tenantId(),
    name: text('name').notNull(),
    description: text('description'),
    /** Cases held; the next appended case gets this index. */
    caseCount: integer('case_count').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('eval_datasets_tenant_created_idx').on(t.tenantId, t.createdAt.desc())],
);

export const evalCases = pgTable(
  'eval_cases',
  {
    tenantId: tenantId(),
    datasetId: text('dataset_id').notNull(),
    /** 0-based position in the dataset (the JSONL line number minus one for uploaded cases). */
    idx: integer('idx').notNull(),
    /** Chat messages, as in a chat-completion request. */
    input: jsonb('input').$type<unknown[]>().notNull(),
    expected: text('expected'),
    metadata: jsonb('metadata').$type<Record<string, unknown>>(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: 'eval_cases_pk', columns: [t.tenantId, t.datasetId, t.idx] }),
    foreignKey({ name: 'eval_cases_dataset_fk', columns: [t.datasetId], foreignColumns: [evalDatasets.id] }).onDelete(
      'cascade',
    ),
  ],
);

export const evalRuns = pgTable(
  'eval_runs',
  {
    id: text('id').primaryKey(),
    tenantId: tenantId(),
    datasetId: text('dataset_id')
      .notNull()
      .references(() => evalDatasets.id, { onDelete: 'cascade' }),
    provider: text('provider').notNull(),
    model: text('model').notNull(),
    scorer: text('scorer', { enum: EVAL_SCORERS }).notNull(),
    status: text('status', { enum: EVAL_RUN_STATUSES }).notNull(),
    /** Cases in the dataset when the run was created: the run covers indexes 0..totalCases-1. */
    totalCases: integer('total_cases').notNull(),
    completedCases: integer('completed_cases').notNull().default(0),
    /** Cases with a non-null score, and the sum of those scores. */
    scoredCases: integer('scored_cases').notNull().default(0),
    scoreSum: integer('score_sum').notNull().default(0),
    /** Cases whose target (or judge) call failed: no score. */
    erroredCases: integer('errored_cases').notNull().default(0),
    /** USD of the run's upstream calls (target and judge). */
    costUsd: numeric('cost_usd', { precision: 20, scale: 12, mode: 'number' }).notNull().default(0),
    /** The judge model (provider/model) an llm-judge run grades with, fixed when it starts. */
    judgeModel: text('judge_model'),
    /** How many times an executor picked the run up (a resumption after a restart adds one). */
    attempts: integer('attempts').notNull().default(0),
    error: text('error'),
    createdAt: createdAt(),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }),
    finishedAt: timestamp('finished_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    index('eval_runs_tenant_created_idx').on(t.tenantId, t.createdAt.desc()),
    index('eval_runs_tenant_status_idx').on(t.tenantId, t.status),
    check('eval_runs_scorer_check', isOneOf(t.scorer, EVAL_SCORERS)),
    check('eval_runs_status_check', isOneOf(t.status, EVAL_RUN_STATUSES)),
  ],
);

export const evalResults = pgTable(
  'eval_results',
  {
    tenantId: tenantId(),
    runId: text('run_id').notNull(),
    caseIndex: integer('case_index').notNull(),
    /** The target's raw output; null when its call failed. */
    output: text('output'),
    /** 1-5, or null (judge reply unreadable, judge unreachable, target call failed). */
    score: integer('score'),
    error: text('error'),
    latencyMs: integer('latency_ms').notNull(),
    costUsd: numeric('cost_usd', { precision: 20, scale: 12, mode: 'number' }).notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: 'eval_results_pk', columns: [t.tenantId, t.runId, t.caseIndex] }),
    foreignKey({ name: 'eval_results_run_fk', columns: [t.runId], foreignColumns: [evalRuns.id] }).onDelete('cascade'),
  ],
);

export type EvalDatasetRow = typeof evalDatasets.$inferSelect;
export type EvalCaseRow = typeof evalCases.$inferSelect;
export type EvalRunRow = typeof evalRuns.$inferSelect;
export type EvalResultRow = typeof evalResults.$inferSelect;
