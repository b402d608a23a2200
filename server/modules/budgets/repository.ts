import { and, asc, eq, gte, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { analyticsCostHourly, budgetAlerts, workspaceBudgets, type WorkspaceBudgetRow } from '../../db/schema/index.js';

export const budgetsRepository = {
  async get(db: Executor, tenantId: string): Promise<WorkspaceBudgetRow | undefined> {
    const [row] = await db.select().from(workspaceBudgets).where(eq(workspaceBudgets.tenantId, tenantId));
    return row;
  },

  /** Every budget, or one workspace's. */
  list(db: Executor, tenantId?: string): Promise<WorkspaceBudgetRow[]> {
    const q = db.select().from(workspaceBudgets);
    return tenantId === undefined ? q : q.where(eq(workspaceBudgets.tenantId, tenantId));
  },

  async upsert(db: Executor, row: typeof workspaceBudgets.$inferInsert): Promise<WorkspaceBudgetRow> {
    const [saved] = await db
      .insert(workspaceBudgets)
      .values(row)
      .onConflictDoUpdate({
        target: workspaceBudgets.tenantId,
        set: {
          monthlyUsd: row.monthlyUsd,
          alertThresholds: row.alertThresholds,
          hardStop: row.hardStop,
          updatedAt: new Date(),
        },
      })
      .returning();
    return saved!;
  },

  async remove(db: Executor, tenantId: string): Promise<void> {
    await db.delete(workspaceBudgets).where(eq(workspaceBudgets.tenantId, tenantId));
  },

  /** Month-to-date spend per workspace, from the hourly cost rollup (kept by triggers on cost_logs). */
  async spend(db: Executor, tenantIds: string[], since: Date): Promise<Map<string, number>> {
    if (tenantIds.length === 0) return new Map();
    const rows = await db
      .select({ tenantId: analyticsCostHourly.tenantId, usd: sql<string>`sum(${analyticsCostHourly.cost})` })
      .from(analyticsCostHourly)
      .where(and(inArray(analyticsCostHourly.tenantId, tenantIds), gte(analyticsCostHourly.bucket, since)))
      .groupBy(analyticsCostHourly.tenantId);
    return new Map(rows.map((r) => [r.tenantId, Number(r.usd)]));
  },

  /** True when this call recorded the crossing (it was the first). */
  async recordAlert(db: Executor, row: typeof budgetAlerts.$inferInsert): Promise<boolean> {
    const inserted = await db.insert(budgetAlerts).values(row).onConflictDoNothing().returning();
    return inserted.length > 0;
  },

  alerts(db: Executor, tenantId: string, month: string) {
    return db
      .select()
      .from(budgetAlerts)
      .where(and(eq(budgetAlerts.tenantId, tenantId), eq(budgetAlerts.month, month)))
      .orderBy(asc(budgetAlerts.thresholdPct));
  },
};
