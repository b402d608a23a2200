import { and, desc, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { promptRollouts, type PromptRolloutRow } from '../../db/schema/index.js';

export interface ArmStats {
  versionId: string;
  samples: number;
  avgScore: number | null;
}

export const rolloutsRepository = {
  async activeFor(db: Executor, tenantId: string, templateId: string): Promise<PromptRolloutRow | undefined> {
    const rows = await db
      .select()
      .from(promptRollouts)
      .where(
        and(
          eq(promptRollouts.tenantId, tenantId),
          eq(promptRollouts.templateId, templateId),
          eq(promptRollouts.status, 'active'),
        ),
      )
      .limit(1);
    return rows[0];
  },

  list(db: Executor, tenantId: string, status?: PromptRolloutRow['status']): Promise<PromptRolloutRow[]> {
    return db
      .select()
      .from(promptRollouts)
      .where(and(eq(promptRollouts.tenantId, tenantId), status ? eq(promptRollouts.status, status) : undefined))
      .orderBy(desc(promptRollouts.createdAt), desc(promptRollouts.id))
      .limit(200);
  },

  async get(db: Executor, tenantId: string, id: string, forUpdate = false): Promise<PromptRolloutRow | undefined> {
    const q = db
      .select()
      .from(promptRollouts)
      .where(and(eq(promptRollouts.tenantId, tenantId), eq(promptRollouts.id, id)))
      .limit(1);
    return (forUpdate ? await q.for('update') : await q)[0];
  },

  async insert(db: Executor, row: typeof promptRollouts.$inferInsert): Promise<PromptRolloutRow> {
    const [created] = await db.insert(promptRollouts).values(row).returning();
    return created!;
  },

  async finish(
    db: Executor,
    tenantId: string,
    id: string,
    status: 'promoted' | 'reverted',
    reason: string,
  ): Promise<PromptRolloutRow | undefined> {
    const now = new Date();
    const rows = await db
      .update(promptRollouts)
      .set({ status, completionReason: reason, completedAt: now, updatedAt: now })
      .where(and(eq(promptRollouts.tenantId, tenantId), eq(promptRollouts.id, id), eq(promptRollouts.status, 'active')))
      .returning();
    return rows[0];
  },

  /**
   * Per version: requests that carried it as prompt_version_id since `since` and have feedback,
   * and their average score. One score per request: the user's, else the judge's.
   */
  async armStats(db: Executor, tenantId: string, versionIds: string[], since: Date): Promise<ArmStats[]> {
    const { rows } = await db.execute<{ version_id: string; samples: number; avg_score: number | null }>(sql`
      select r.prompt_version_id as version_id, count(*)::int as samples, avg(s.score)::float8 as avg_score
      from requests r
      cross join lateral (
        select f.score from feedback f
        where f.tenant_id = r.tenant_id and f.request_id = r.id
        order by (f.source = 'user') desc
        limit 1
      ) s
      where r.tenant_id = ${tenantId} and r.created_at >= ${since.toISOString()}::timestamptz
        and r.prompt_version_id in (${sql.join(
          versionIds.map((v) => sql`${v}`),
          sql`, `,
        )})
      group by r.prompt_version_id`);
    return versionIds.map((versionId) => {
      const row = rows.find((r) => r.version_id === versionId);
      return { versionId, samples: row?.samples ?? 0, avgScore: row?.avg_score ?? null };
    });
  },
};
