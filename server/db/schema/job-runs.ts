import { integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { tenantId } from './columns.js';

// Last-run state of each scheduled job, per workspace (GET /v1/admin/scheduler/jobs).
export const jobRuns = pgTable(
  'job_runs',
  {
    tenantId: tenantId(),
    name: text('name').notNull(),
    lastStartedAt: timestamp('last_started_at', { withTimezone: true, mode: 'date' }),
    lastFinishedAt: timestamp('last_finished_at', { withTimezone: true, mode: 'date' }),
    /** running | succeeded | failed */
    outcome: text('outcome'),
    error: text('error'),
    /** A short summary of what the run did (e.g. "created 1 test"). */
    summary: text('summary'),
    runCount: integer('run_count').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.name] })],
);

export type JobRunRow = typeof jobRuns.$inferSelect;
