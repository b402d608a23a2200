import { and, desc, eq, ne, or, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { abTests, type AbTestRow, type AbVariant } from '../../db/schema/index.js';
import { countedFeedback } from '../feedback/counted-feedback.js';

/** An active test as routing holds it in memory. */
export interface RoutingAbTestRow {
  id: string;
  tenantId: string;
  name: string;
  taskType: string | null;
  complexity: string | null;
  variants: AbVariant[];
  createdAt: Date;
}

/** One variant's counted feedback (the auto-ab job's decision). */
export type VariantStatsRow = {
  variant: string;
  n: number;
  mean: number;
  variance: number | null;
};

/** First key of the two-key advisory lock taken by lockActivation (the second is the tenant's hash). */
const AB_ACTIVATION_LOCK = 0x61_62_74; // 'abt'

export const abTestsRepository = {
  list(db: Executor, tenantId: string): Promise<AbTestRow[]> {
    return db
      .select()
      .from(abTests)
      .where(eq(abTests.tenantId, tenantId))
      .orderBy(desc(abTests.createdAt), desc(abTests.id));
  },

  async get(db: Executor, tenantId: string, id: string): Promise<AbTestRow | undefined> {
    const rows = await db
      .select()
      .from(abTests)
      .where(and(eq(abTests.tenantId, tenantId), eq(abTests.id, id)))
      .limit(1);
    return rows[0];
  },

  /**
   * The test, its row locked until the transaction ends: a change decided on what was read cannot
   * race another (two status changes, or a change and a delete). Undefined once deleted.
   */
  async getForUpdate(db: Executor, tenantId: string, id: string): Promise<AbTestRow | undefined> {
    const rows = await db
      .select()
      .from(abTests)
      .where(and(eq(abTests.tenantId, tenantId), eq(abTests.id, id)))
      .limit(1)
      .for('update');
    return rows[0];
  },

  async insert(db: Executor, row: typeof abTests.$inferInsert): Promise<AbTestRow> {
    const [created] = await db.insert(abTests).values(row).returning();
    return created!;
  },

  async update(
    db: Executor,
    tenantId: string,
    id: string,
    patch: Partial<typeof abTests.$inferInsert>,
  ): Promise<AbTestRow | undefined> {
    const rows = await db
      .update(abTests)
      .set({ ...patch, updatedAt: new Date() })
      .where(and(eq(abTests.tenantId, tenantId), eq(abTests.id, id)))
      .returning();
    return rows[0];
  },

  async remove(db: Executor, tenantId: string, id: string): Promise<AbTestRow | undefined> {
    const rows = await db
      .delete(abTests)
      .where(and(eq(abTests.tenantId, tenantId), eq(abTests.id, id)))
      .returning();
    return rows[0];
  },

  /**
   * Serialises changes that can make a test active, per workspace, until the transaction ends:
   * the clash check below and the write after it then act as one step, so two concurrent
   * requests cannot both find the cell free.
   */
  async lockActivation(tx: Executor, tenantId: string): Promise<void> {
    await tx.execute(sql`select pg_advisory_xact_lock(${AB_ACTIVATION_LOCK}, hashtext(${tenantId}))`);
  },

  /** Active tests of a workspace whose cell overlaps this one (a null dimension is "any", on either side). */
  async activeOverlapping(
    db: Executor,
    tenantId: string,
    taskType: string | null,
    complexity: string | null,
  ): Promise<AbTestRow[]> {
    return db
      .select()
      .from(abTests)
      .where(
        and(
          eq(abTests.tenantId, tenantId),
          eq(abTests.status, 'active'),
          sql`(${abTests.taskType} is null or ${taskType}::text is null or ${abTests.taskType} = ${taskType})`,
          sql`(${abTests.complexity} is null or ${complexity}::text is null or ${abTests.complexity} = ${complexity})`,
        ),
      );
  },

  /**
   * Per-variant results. The request row keeps the variant the test chose even when a fallback
   * model answered, so a row counts for its variant only when the variant itself answered it
   * (status ok, served by the variant's provider and model): traffic, latency and feedback are the
   * variant's own. Requests the variant failed (a fallback answered, or nothing did) are counted
   * apart as errors; abandoned ones (client_closed) in neither. Cost is that of the upstream calls
   * made to the variant's model (cost_logs), failed attempts included, never a fallback's.
   */
  async results(db: Executor, tenantId: string, testId: string) {
    const res = await db.execute<{
      variant: string;
      requests: number;
      errors: number;
      avg_latency: number | null;
      cost_rows: number;
      total_cost: number;
      avg_score: number | null;
      feedback_count: number;
    }>(sql`
      with r as (
        select id, variant, latency_ms, status,
               coalesce(status = 'ok' and provider || '/' || model = variant, false) as answered
          from requests where tenant_id = ${tenantId} and ab_test_id = ${testId}
      ), c as (
        select r.variant, count(cl.*)::int as cost_rows, coalesce(sum(cl.cost), 0)::float8 as total_cost
          from r join cost_logs cl on cl.tenant_id = ${tenantId} and cl.request_id = r.id and cl.provider || '/' || cl.model = r.variant
         group by r.variant
      ), f as (
        select r.variant, avg(fb.score)::float8 as avg_score, count(fb.*)::int as feedback_count
          from r join feedback fb on fb.tenant_id = ${tenantId} and fb.request_id = r.id
         where r.answered
         group by r.variant
      )
      select r.variant,
             (count(*) filter (where r.answered))::int as requests,
             (count(*) filter (where not r.answered and r.status <> 'client_closed'))::int as errors,
             (avg(r.latency_ms) filter (where r.answered))::float8 as avg_latency,
             coalesce(max(c.cost_rows), 0)::int as cost_rows, coalesce(max(c.total_cost), 0)::float8 as total_cost,
             max(f.avg_score)::float8 as avg_score, coalesce(max(f.feedback_count), 0)::int as feedback_count
        from r left join c on c.variant = r.variant left join f on f.variant = r.variant
       group by r.variant`);
    return res.rows;
  },

  /** Active tests, newest first: one workspace's, or every workspace's when `tenantId` is null (routing's reload). */
  routingActive(db: Executor, tenantId: string | null): Promise<RoutingAbTestRow[]> {
    return db
      .select({
        id: abTests.id,
        tenantId: abTests.tenantId,
        name: abTests.name,
        taskType: abTests.taskType,
        complexity: abTests.complexity,
        variants: abTests.variants,
        createdAt: abTests.createdAt,
      })
      .from(abTests)
      .where(and(eq(abTests.status, 'active'), tenantId === null ? undefined : eq(abTests.tenantId, tenantId)))
      .orderBy(desc(abTests.createdAt));
  },

  /**
   * Counted feedback per variant, on the requests each variant answered itself: the request row
   * keeps the variant the test chose even when a fallback model answered, and that answer says
   * nothing about the variant (the same rule as the test's results).
   */
  async variantStats(db: Executor, tenantId: string, testId: string): Promise<VariantStatsRow[]> {
    const res = await db.execute<VariantStatsRow>(sql`
      select r.variant, count(*)::int as n, avg(f.score)::float8 as mean, var_samp(f.score)::float8 as variance
        from requests r join feedback f on f.tenant_id = r.tenant_id and f.request_id = r.id
       where r.tenant_id = ${tenantId} and r.ab_test_id = ${testId}
         and r.status = 'ok' and r.provider || '/' || r.model = r.variant
         and ${sql.raw(countedFeedback('f'))}
       group by r.variant`);
    return res.rows;
  },

  /** Auto-generated tests still on, or completed within `days`: their cells and variants. */
  recentAutoGenerated(
    db: Executor,
    tenantId: string,
    days: number,
  ): Promise<Array<Pick<AbTestRow, 'taskType' | 'complexity' | 'variants'>>> {
    return db
      .select({ taskType: abTests.taskType, complexity: abTests.complexity, variants: abTests.variants })
      .from(abTests)
      .where(
        and(
          eq(abTests.tenantId, tenantId),
          eq(abTests.autoGenerated, true),
          or(
            ne(abTests.status, 'completed'),
            sql`coalesce(${abTests.completedAt}, ${abTests.updatedAt}) > now() - make_interval(days => ${days})`,
          ),
        ),
      );
  },
};
