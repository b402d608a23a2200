import { and, desc, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { abTests, type AbTestRow } from '../../db/schema/index.js';

export const abTestsRepository = {
  list(db: Executor, tenantId: string): Promise<AbTestRow[]> {
    return db.select().from(abTests).where(eq(abTests.tenantId, tenantId)).orderBy(desc(abTests.createdAt), desc(abTests.id));
  },

  async get(db: Executor, tenantId: string, id: string): Promise<AbTestRow | undefined> {
    const rows = await db.select().from(abTests).where(and(eq(abTests.tenantId, tenantId), eq(abTests.id, id))).limit(1);
    return rows[0];
  },

  async insert(db: Executor, row: typeof abTests.$inferInsert): Promise<AbTestRow> {
    const [created] = await db.insert(abTests).values(row).returning();
    return created!;
  },

  async update(db: Executor, tenantId: string, id: string, patch: Partial<typeof abTests.$inferInsert>): Promise<AbTestRow | undefined> {
    const rows = await db.update(abTests).set({ ...patch, updatedAt: new Date() }).where(and(eq(abTests.tenantId, tenantId), eq(abTests.id, id))).returning();
    return rows[0];
  },

  async remove(db: Executor, tenantId: string, id: string): Promise<AbTestRow | undefined> {
    const rows = await db.delete(abTests).where(and(eq(abTests.tenantId, tenantId), eq(abTests.id, id))).returning();
    return rows[0];
  },

  /** Active tests of a workspace on exactly this cell (null matches null). */
  async activeOnCell(db: Executor, tenantId: string, taskType: string | null, complexity: string | null): Promise<AbTestRow[]> {
    return db
      .select()
      .from(abTests)
      .where(and(eq(abTests.tenantId, tenantId), eq(abTests.status, 'active'), sql`${abTests.taskType} is not distinct from ${taskType}`, sql`${abTests.complexity} is not distinct from ${complexity}`));
  },

  /** Per-variant results: traffic and latency from requests, cost from cost_logs, quality from feedback. */
  async results(db: Executor, tenantId: string, testId: string) {
    const res = await db.execute<{ variant: string; requests: number; avg_latency: number | null; cost_rows: number; total_cost: number; avg_score: number | null; feedback_count: number }>(sql`
      with r as (
        select id, variant, latency_ms from requests where tenant_id = ${tenantId} and ab_test_id = ${testId}
      ), c as (
        select r.variant, count(cl.*)::int as cost_rows, coalesce(sum(cl.cost), 0)::float8 as total_cost
          from r join cost_logs cl on cl.tenant_id = ${tenantId} and cl.request_id = r.id group by r.variant
      ), f as (
        select r.variant, avg(fb.score)::float8 as avg_score, count(fb.*)::int as feedback_count
          from r join feedback fb on fb.tenant_id = ${tenantId} and fb.request_id = r.id group by r.variant
      )
      select r.variant, count(*)::int as requests, avg(r.latency_ms)::float8 as avg_latency,
             coalesce(max(c.cost_rows), 0)::int as cost_rows, coalesce(max(c.total_cost), 0)::float8 as total_cost,
             max(f.avg_score)::float8 as avg_score, coalesce(max(f.feedback_count), 0)::int as feedback_count
        from r left join c on c.variant = r.variant left join f on f.variant = r.variant
       group by r.variant`);
    return res.rows;
  },
};
