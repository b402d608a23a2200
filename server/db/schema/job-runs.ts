import { check, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { isOneOf, tenantId } from './columns.js';

export const JOB_OUTCOMES = ['running', 'succeeded', 'failed'] as const;
export type JobOutcome = (typeof JOB_OUTCOMES)[number];

// Last-run state of each scheduled job, per workspace (GET /v1/admin/scheduler/jobs).
export const jobRuns = pgTable(
  'job_runs',
  {
    tenantId: tenantId(),
    name: text('name').notNull(),
    lastStartedAt: timestamp('last_started_at', { withTimezone: true, mode: 'date' }),
    lastFinishedAt: timestamp('last_finished_at', { withTimezone: true, mode: 'date' }),
    /** Null before the first run. */
    outcome: text('outcome', { enum: JOB_OUTCOMES }),
    error: text('error'),
    /** A short summary of what the run did (e.g. "created 1 test"). */
    summary: text('summary'),
    runCount: integer('run_count').notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.name] }),
    check('job_runs_outcome_check', isOneOf(t.outcome, JOB_OUTCOMES)),
  ],
);

export type JobRunRow = typeof jobRuns.$inferSelect;
