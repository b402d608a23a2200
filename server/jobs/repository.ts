import { and, asc, eq, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { jobRuns, tenants, type JobOutcome, type JobRunRow } from '../db/schema/index.js';

// Drizzle queries for the job layer. Every method that serves a tenant takes tenantId first.

export type { JobOutcome };

export interface RunEnd {
  outcome: Exclude<JobOutcome, 'running'>;
  summary: string | null;
  error: string | null;
}

export const jobRunsRepository = {
  list(db: Executor, tenantId: string): Promise<JobRunRow[]> {
    return db.select().from(jobRuns).where(eq(jobRuns.tenantId, tenantId));
  },

  async get(db: Executor, tenantId: string, name: string): Promise<JobRunRow | undefined> {
    const rows = await db
      .select()
      .from(jobRuns)
      .where(and(eq(jobRuns.tenantId, tenantId), eq(jobRuns.name, name)))
      .limit(1);
    return rows[0];
  },

  /**
   * Marks a run as started unless one is already running (and younger than staleSeconds).
   * False means another run holds it; the row doubles as the lock so two nodes, or a cron run
   * and a manual one, never run the same job for the same workspace at once.
   */
  /**
   * Marks a run started, unless one is running (and not stale). Returns the run's start time, which
   * identifies it for finish() (kept to the millisecond, as a Date holds it), or null when another
   * run holds the job.
   */
  async start(db: Executor, tenantId: string, name: string, staleSeconds: number): Promise<Date | null> {
    const rows = await db
      .insert(jobRuns)
      .values({ tenantId, name, lastStartedAt: sql`date_trunc('milliseconds', clock_timestamp())`, outcome: 'running' })
      .onConflictDoUpdate({
        target: [jobRuns.tenantId, jobRuns.name],
        set: {
          lastStartedAt: sql`date_trunc('milliseconds', clock_timestamp())`,
          outcome: 'running',
          error: null,
          summary: null,
        },
        setWhere: sql`${jobRuns.outcome} is distinct from 'running' or ${jobRuns.lastStartedAt} < now() - ${staleSeconds} * interval '1 second'`,
      })
      .returning({ startedAt: jobRuns.lastStartedAt });
    return rows[0]?.startedAt ?? null;
  },

  /**
   * Records the end of the run that started at `startedAt`. A run another node took over meanwhile
   * (this one having outlived the stale window) is not overwritten: the row as it is comes back.
   */
  async finish(db: Executor, tenantId: string, name: string, startedAt: Date, end: RunEnd): Promise<JobRunRow> {
    const [row] = await db
      .update(jobRuns)
      .set({ ...end, lastFinishedAt: sql`now()`, runCount: sql`${jobRuns.runCount} + 1` })
      .where(and(eq(jobRuns.tenantId, tenantId), eq(jobRuns.name, name), eq(jobRuns.lastStartedAt, startedAt)))
      .returning();
    if (row) return row;
    const [current] = await db
      .select()
      .from(jobRuns)
      .where(and(eq(jobRuns.tenantId, tenantId), eq(jobRuns.name, name)));
    return current!;
  },

  /** Every workspace, for runs that carry no tenant. */
  async tenantIds(db: Executor): Promise<string[]> {
    const rows = await db.select({ id: tenants.id }).from(tenants).orderBy(asc(tenants.id));
    return rows.map((r) => r.id);
  },
};
