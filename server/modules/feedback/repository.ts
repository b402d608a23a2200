import { and, desc, eq, getTableColumns, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import {
  abTests,
  feedback,
  judgeConfig,
  requests,
  type FeedbackRow,
  type FeedbackSource,
  type JudgeConfigRow,
} from '../../db/schema/index.js';
import { exactTime, olderThan, type Cursor, type KeysetRow } from '../../lib/cursor.js';
import { countedFeedback } from './counted-feedback.js';

/** One routing cell and target's counted feedback (see counted-feedback.ts). */
export type CellTargetStats = {
  taskType: string;
  complexity: string;
  provider: string;
  model: string;
  n: number;
  mean: number;
  /** Sample variance; null under two scores. */
  variance: number | null;
};

/** A workspace's feedback on a cell and target, as routing weighs it (RoutingState's QualityStat). */
export type RoutingQualityRow = {
  tenantId: string;
  taskType: string;
  complexity: string;
  provider: string;
  model: string;
  sum: number;
  count: number;
  scores: number;
};

/** A workspace's judge settings, as the request path samples from them. */
export interface RoutingJudgeRow {
  tenantId: string;
  enabled: boolean;
  model: string | null;
  sampleRate: number;
}

/** The rated target, as grouped by the quality reports. */
const targetColumns = {
  provider: sql<string>`coalesce(${feedback.provider}, '')`,
  model: sql<string>`coalesce(${feedback.model}, '')`,
};

/** Average score and counts of a group of feedback rows. */
const qualityColumns = {
  avgScore: sql<number>`avg(${feedback.score})::float8`,
  feedbackCount: sql<number>`count(*)::int`,
  userCount: sql<number>`count(*) filter (where ${feedback.source} = 'user')::int`,
  judgeCount: sql<number>`count(*) filter (where ${feedback.source} = 'judge')::int`,
};

export const feedbackRepository = {
  /** The request a score is for, with the cell of the A/B test that routed it (if one did). */
  async findRequest(db: Executor, tenantId: string, requestId: string) {
    const rows = await db
      .select({
        id: requests.id,
        provider: requests.provider,
        model: requests.model,
        taskType: requests.taskType,
        complexity: requests.complexity,
        status: requests.status,
        errorType: requests.errorType,
        endpoint: requests.endpoint,
        abTestTaskType: abTests.taskType,
        abTestComplexity: abTests.complexity,
      })
      .from(requests)
      .leftJoin(abTests, and(eq(abTests.tenantId, requests.tenantId), eq(abTests.id, requests.abTestId)))
      .where(and(eq(requests.tenantId, tenantId), eq(requests.id, requestId)))
      .limit(1);
    return rows[0];
  },

  /**
   * Locks the request row until the transaction ends; false when it is gone. FOR NO KEY UPDATE:
   * a deletion (log retention) waits, and so does another score for the same request, which then
   * reads this one's row as the score it replaces (two first scores at once each found none, and
   * were both counted in routing until the next reload).
   */
  async holdRequest(tx: Executor, tenantId: string, requestId: string): Promise<boolean> {
    const rows = await tx
      .select({ id: requests.id })
      .from(requests)
      .where(and(eq(requests.tenantId, tenantId), eq(requests.id, requestId)))
      .for('no key update');
    return rows.length > 0;
  },

  /** A request's scores, one per source at most (a user's, the judge's). */
  async findForRequest(db: Executor, tenantId: string, requestId: string): Promise<FeedbackRow[]> {
    return db
      .select()
      .from(feedback)
      .where(and(eq(feedback.tenantId, tenantId), eq(feedback.requestId, requestId)));
  },

  /** One score per request and source: rating again replaces the score. */
  async upsert(db: Executor, row: typeof feedback.$inferInsert): Promise<FeedbackRow> {
    const [saved] = await db
      .insert(feedback)
      .values(row)
      .onConflictDoUpdate({
        target: [feedback.tenantId, feedback.requestId, feedback.source],
        set: { score: row.score, comment: row.comment ?? null, updatedAt: new Date() },
      })
      .returning();
    return saved!;
  },

  list(
    db: Executor,
    tenantId: string,
    q: { limit: number; requestId?: string; source?: FeedbackSource; before?: Cursor },
  ): Promise<Array<FeedbackRow & KeysetRow>> {
    const filters: SQL[] = [eq(feedback.tenantId, tenantId)];
    if (q.requestId) filters.push(eq(feedback.requestId, q.requestId));
    if (q.source) filters.push(eq(feedback.source, q.source));
    if (q.before) filters.push(olderThan(feedback.createdAt, feedback.id, q.before));
    return db
      .select({ ...getTableColumns(feedback), cursorTime: exactTime(feedback.createdAt) })
      .from(feedback)
      .where(and(...filters))
      .orderBy(desc(feedback.createdAt), desc(feedback.id))
      .limit(q.limit);
  },

  async byModel(db: Executor, tenantId: string) {
    return db
      .select({ ...targetColumns, ...qualityColumns })
      .from(feedback)
      .where(eq(feedback.tenantId, tenantId))
      .groupBy(feedback.provider, feedback.model)
      .orderBy(feedback.provider, feedback.model);
  },

  async byCell(db: Executor, tenantId: string) {
    return db
      .select({
        taskType: sql<string>`${feedback.taskType}`,
        complexity: sql<string>`${feedback.complexity}`,
        ...targetColumns,
        ...qualityColumns,
      })
      .from(feedback)
      .where(
        and(
          eq(feedback.tenantId, tenantId),
          sql`${feedback.taskType} is not null and ${feedback.complexity} is not null`,
        ),
      )
      .groupBy(feedback.taskType, feedback.complexity, feedback.provider, feedback.model)
      .orderBy(feedback.taskType, feedback.complexity, feedback.provider, feedback.model);
  },

  async trend(
    db: Executor,
    tenantId: string,
    q: { unit: 'hour' | 'day'; since: Date; provider?: string; model?: string },
  ) {
    const filters: SQL[] = [
      eq(feedback.tenantId, tenantId),
      sql`${feedback.createdAt} >= ${q.since.toISOString()}::timestamptz`,
    ];
    if (q.provider) filters.push(eq(feedback.provider, q.provider));
    if (q.model) filters.push(eq(feedback.model, q.model));
    // The unit is inlined (it is one of two literals): a bound parameter would make the SELECT and
    // GROUP BY expressions differ in Postgres's eyes.
    const bucket = sql`date_trunc(${sql.raw(`'${q.unit === 'hour' ? 'hour' : 'day'}'`)}, ${feedback.createdAt} at time zone 'UTC')`;
    return db
      .select({
        bucket: sql<string>`to_char(${bucket}, 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`,
        avgScore: sql<number>`avg(${feedback.score})::float8`,
        feedbackCount: sql<number>`count(*)::int`,
      })
      .from(feedback)
      .where(and(...filters))
      .groupBy(bucket)
      .orderBy(bucket);
  },

  async getJudgeConfig(db: Executor, tenantId: string): Promise<JudgeConfigRow | undefined> {
    const rows = await db.select().from(judgeConfig).where(eq(judgeConfig.tenantId, tenantId)).limit(1);
    return rows[0];
  },

  async putJudgeConfig(db: Executor, row: typeof judgeConfig.$inferInsert): Promise<JudgeConfigRow> {
    const [saved] = await db
      .insert(judgeConfig)
      .values(row)
      .onConflictDoUpdate({
        target: judgeConfig.tenantId,
        set: { enabled: row.enabled, model: row.model, sampleRate: row.sampleRate, updatedAt: new Date() },
      })
      .returning();
    return saved!;
  },

  /** Counted feedback per cell and target, with its mean and variance (the auto-ab job's ties). */
  async cellStats(db: Executor, tenantId: string): Promise<CellTargetStats[]> {
    const res = await db.execute<CellTargetStats>(sql`
      select task_type as "taskType", complexity, provider, model, count(*)::int as n,
             avg(score)::float8 as mean, var_samp(score)::float8 as variance
        from feedback f
       where tenant_id = ${tenantId} and task_type is not null and complexity is not null
         and provider is not null and model is not null
         and ${sql.raw(countedFeedback('f'))}
       group by task_type, complexity, provider, model`);
    return res.rows;
  },

  /**
   * Counted feedback per cell and target as routing weighs it: each score 0.5^(age / half-life)
   * when `halfLifeDays` > 0, else 1. One workspace's, or every workspace's when `tenantId` is null
   * (the routing state's periodic full reload).
   */
  async routingQuality(db: Executor, tenantId: string | null, halfLifeDays: number): Promise<RoutingQualityRow[]> {
    // A number of this process's own configuration, not input: written into the query as it is.
    const weight =
      halfLifeDays > 0
        ? sql.raw(`power(0.5, greatest(0, extract(epoch from now() - f.updated_at)) / ${halfLifeDays * 86_400})`)
        : sql.raw('1');
    const res = await db.execute<RoutingQualityRow>(sql`
      select tenant_id as "tenantId", task_type as "taskType", complexity, provider, model,
             sum(score * ${weight})::float8 as sum, sum(${weight})::float8 as count, count(*)::int as scores
        from feedback f
       where task_type is not null and complexity is not null and provider is not null and model is not null
         ${tenantId === null ? sql`` : sql`and tenant_id = ${tenantId}`}
         and ${sql.raw(countedFeedback('f'))}
       group by tenant_id, task_type, complexity, provider, model`);
    return res.rows;
  },

  /** Counted feedback on one cell and target given since `since` (a cost migration's grace evidence). */
  async qualitySince(
    db: Executor,
    tenantId: string,
    q: { taskType: string; complexity: string; provider: string; model: string; since: Date },
  ): Promise<{ samples: number; sum: number; sumSquares: number }> {
    const res = await db.execute<{ samples: number; sum: number; sumSquares: number }>(sql`
      select count(*)::int as samples, coalesce(sum(score), 0)::float8 as sum,
             coalesce(sum(score * score), 0)::float8 as "sumSquares"
        from feedback f
       where tenant_id = ${tenantId} and task_type = ${q.taskType} and complexity = ${q.complexity}
         and provider = ${q.provider} and model = ${q.model} and created_at >= ${q.since.toISOString()}
         and ${sql.raw(countedFeedback('f'))}`);
    return res.rows[0] ?? { samples: 0, sum: 0, sumSquares: 0 };
  },

  /** Judge settings of one workspace, or of every workspace when `tenantId` is null. */
  routingJudges(db: Executor, tenantId: string | null): Promise<RoutingJudgeRow[]> {
    return db
      .select({
        tenantId: judgeConfig.tenantId,
        enabled: judgeConfig.enabled,
        model: judgeConfig.model,
        sampleRate: judgeConfig.sampleRate,
      })
      .from(judgeConfig)
      .where(tenantId === null ? undefined : eq(judgeConfig.tenantId, tenantId));
  },
};
