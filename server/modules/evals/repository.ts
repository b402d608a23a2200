import { and, asc, desc, eq, gte, inArray, lt, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import {
  evalCases,
  evalDatasets,
  evalResults,
  evalRuns,
  type EvalCaseRow,
  type EvalDatasetRow,
  type EvalResultRow,
  type EvalRunRow,
} from '../../db/schema/index.js';
import type { ParsedCase } from './cases.js';

/** Rows per INSERT when a large upload is stored (PostgreSQL takes at most 65,535 parameters). */
const INSERT_CHUNK = 1_000;

export const ACTIVE_STATUSES = ['queued', 'running'] as const;

export const evalsRepository = {
  listDatasets(db: Executor, tenantId: string): Promise<EvalDatasetRow[]> {
    return db
      .select()
      .from(evalDatasets)
      .where(eq(evalDatasets.tenantId, tenantId))
      .orderBy(desc(evalDatasets.createdAt), desc(evalDatasets.id));
  },

  async getDataset(db: Executor, tenantId: string, id: string, forUpdate = false): Promise<EvalDatasetRow | undefined> {
    const q = db
      .select()
      .from(evalDatasets)
      .where(and(eq(evalDatasets.tenantId, tenantId), eq(evalDatasets.id, id)))
      .limit(1);
    const rows = forUpdate ? await q.for('update') : await q;
    return rows[0];
  },

  async insertDataset(db: Executor, row: typeof evalDatasets.$inferInsert): Promise<EvalDatasetRow> {
    const [created] = await db.insert(evalDatasets).values(row).returning();
    return created!;
  },

  async setCaseCount(db: Executor, tenantId: string, id: string, caseCount: number): Promise<EvalDatasetRow> {
    const [row] = await db
      .update(evalDatasets)
      .set({ caseCount, updatedAt: new Date() })
      .where(and(eq(evalDatasets.tenantId, tenantId), eq(evalDatasets.id, id)))
      .returning();
    return row!;
  },

  async insertCases(db: Executor, tenantId: string, datasetId: string, first: number, cases: ParsedCase[]) {
    for (let i = 0; i < cases.length; i += INSERT_CHUNK) {
      await db.insert(evalCases).values(
        cases.slice(i, i + INSERT_CHUNK).map((c, j) => ({
          tenantId,
          datasetId,
          idx: first + i + j,
          input: c.input,
          expected: c.expected,
          metadata: c.metadata,
        })),
      );
    }
  },

  /** Cases [from, to) in order. */
  cases(db: Executor, tenantId: string, datasetId: string, from: number, to: number): Promise<EvalCaseRow[]> {
    return db
      .select()
      .from(evalCases)
      .where(
        and(
          eq(evalCases.tenantId, tenantId),
          eq(evalCases.datasetId, datasetId),
          gte(evalCases.idx, from),
          lt(evalCases.idx, to),
        ),
      )
      .orderBy(asc(evalCases.idx));
  },

  /** Expected values of cases [0, to), for checks at run creation. */
  expectedValues(
    db: Executor,
    tenantId: string,
    datasetId: string,
    to: number,
  ): Promise<Array<{ idx: number; expected: string | null }>> {
    return db
      .select({ idx: evalCases.idx, expected: evalCases.expected })
      .from(evalCases)
      .where(and(eq(evalCases.tenantId, tenantId), eq(evalCases.datasetId, datasetId), lt(evalCases.idx, to)))
      .orderBy(asc(evalCases.idx));
  },

  async deleteDataset(db: Executor, tenantId: string, id: string): Promise<boolean> {
    const rows = await db
      .delete(evalDatasets)
      .where(and(eq(evalDatasets.tenantId, tenantId), eq(evalDatasets.id, id)))
      .returning({ id: evalDatasets.id });
    return rows.length > 0;
  },

  async insertRun(db: Executor, row: typeof evalRuns.$inferInsert): Promise<EvalRunRow> {
    const [created] = await db.insert(evalRuns).values(row).returning();
    return created!;
  },

  async getRun(db: Executor, tenantId: string, id: string): Promise<EvalRunRow | undefined> {
    const rows = await db
      .select()
      .from(evalRuns)
      .where(and(eq(evalRuns.tenantId, tenantId), eq(evalRuns.id, id)))
      .limit(1);
    return rows[0];
  },

  listRuns(db: Executor, tenantId: string, limit: number): Promise<EvalRunRow[]> {
    return db
      .select()
      .from(evalRuns)
      .where(eq(evalRuns.tenantId, tenantId))
      .orderBy(desc(evalRuns.createdAt), desc(evalRuns.id))
      .limit(limit);
  },

  /** Runs waiting for an executor or left running (by a node that stopped), oldest first. */
  pendingRuns(db: Executor, tenantId: string): Promise<EvalRunRow[]> {
    return db
      .select()
      .from(evalRuns)
      .where(and(eq(evalRuns.tenantId, tenantId), inArray(evalRuns.status, [...ACTIVE_STATUSES])))
      .orderBy(asc(evalRuns.createdAt), asc(evalRuns.id));
  },

  /** Marks a queued or running run running for one more pick-up; its pick-up count, or undefined when it is not waiting. */
  async pickUp(db: Executor, tenantId: string, id: string): Promise<number | undefined> {
    const rows = await db
      .update(evalRuns)
      .set({
        status: 'running',
        attempts: sql`${evalRuns.attempts} + 1`,
        startedAt: sql`coalesce(${evalRuns.startedAt}, now())`,
      })
      .where(and(eq(evalRuns.tenantId, tenantId), eq(evalRuns.id, id), inArray(evalRuns.status, [...ACTIVE_STATUSES])))
      .returning({ attempts: evalRuns.attempts });
    return rows[0]?.attempts;
  },

  /** A status change from one of `from`; undefined when the run was not in one of them (or is gone). */
  async transition(
    db: Executor,
    tenantId: string,
    id: string,
    from: readonly EvalRunRow['status'][],
    patch: Partial<typeof evalRuns.$inferInsert>,
  ): Promise<EvalRunRow | undefined> {
    const rows = await db
      .update(evalRuns)
      .set(patch)
      .where(and(eq(evalRuns.tenantId, tenantId), eq(evalRuns.id, id), inArray(evalRuns.status, [...from])))
      .returning();
    return rows[0];
  },

  results(db: Executor, tenantId: string, runId: string): Promise<EvalResultRow[]> {
    return db
      .select()
      .from(evalResults)
      .where(and(eq(evalResults.tenantId, tenantId), eq(evalResults.runId, runId)))
      .orderBy(asc(evalResults.caseIndex));
  },

  /** Case indexes of the run that have a result (a resumed run skips them). */
  async doneIndexes(db: Executor, tenantId: string, runId: string): Promise<Set<number>> {
    const rows = await db
      .select({ i: evalResults.caseIndex })
      .from(evalResults)
      .where(and(eq(evalResults.tenantId, tenantId), eq(evalResults.runId, runId)));
    return new Set(rows.map((r) => r.i));
  },

  /**
   * Stores a batch of results and recounts the run's progress from them, in one statement each,
   * so a resumed run (or a batch stored twice) never counts a case twice.
   */
  async recordBatch(db: Executor, tenantId: string, runId: string, rows: Array<typeof evalResults.$inferInsert>) {
    if (rows.length) await db.insert(evalResults).values(rows).onConflictDoNothing();
    await db.execute(sql`
      update eval_runs r set
        completed_cases = s.completed, scored_cases = s.scored, score_sum = s.score_sum,
        errored_cases = s.errored, cost_usd = s.cost
      from (
        select count(*)::int as completed, count(score)::int as scored, coalesce(sum(score), 0)::int as score_sum,
               count(error)::int as errored, coalesce(sum(cost_usd), 0) as cost
        from eval_results where tenant_id = ${tenantId} and run_id = ${runId}
      ) s
      where r.tenant_id = ${tenantId} and r.id = ${runId}`);
  },
};
