import { and, desc, eq, gte, isNull, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import {
  costMigrationSettings,
  costMigrations,
  type CostMigrationEvidence,
  type CostMigrationRow,
} from '../../db/schema/index.js';

// The cost-migration tables: the workspace's opt-in and the migrations. tenantId first.

export const costMigrationsRepository = {
  async enabled(db: Executor, tenantId: string): Promise<boolean> {
    const rows = await db
      .select({ enabled: costMigrationSettings.enabled })
      .from(costMigrationSettings)
      .where(eq(costMigrationSettings.tenantId, tenantId));
    return rows[0]?.enabled ?? false;
  },

  async setEnabled(db: Executor, tenantId: string, enabled: boolean): Promise<void> {
    await db
      .insert(costMigrationSettings)
      .values({ tenantId, enabled, updatedAt: new Date() })
      .onConflictDoUpdate({ target: costMigrationSettings.tenantId, set: { enabled, updatedAt: new Date() } });
  },

  list(db: Executor, tenantId: string, limit = 200): Promise<CostMigrationRow[]> {
    return db
      .select()
      .from(costMigrations)
      .where(eq(costMigrations.tenantId, tenantId))
      .orderBy(desc(costMigrations.createdAt), desc(costMigrations.id))
      .limit(limit);
  },

  active(db: Executor, tenantId: string): Promise<CostMigrationRow[]> {
    return db
      .select()
      .from(costMigrations)
      .where(and(eq(costMigrations.tenantId, tenantId), eq(costMigrations.status, 'active')));
  },

  /** Rolled back since `since` (a cell and model rolled back is not migrated to again at once). */
  rolledBackSince(db: Executor, tenantId: string, since: Date): Promise<CostMigrationRow[]> {
    return db
      .select()
      .from(costMigrations)
      .where(
        and(
          eq(costMigrations.tenantId, tenantId),
          eq(costMigrations.status, 'rolled_back'),
          gte(costMigrations.rolledBackAt, since),
        ),
      );
  },

  /** The row, locked for the change (the caller's transaction). */
  async forUpdate(db: Executor, tenantId: string, id: string): Promise<CostMigrationRow | undefined> {
    const rows = await db
      .select()
      .from(costMigrations)
      .where(and(eq(costMigrations.tenantId, tenantId), eq(costMigrations.id, id)))
      .for('update');
    return rows[0];
  },

  /** Inserts unless the cell already has an active migration (then undefined). */
  async insert(
    db: Executor,
    tenantId: string,
    m: {
      id: string;
      taskType: string;
      complexity: string;
      fromProvider: string;
      fromModel: string;
      toProvider: string;
      toModel: string;
      evidence: CostMigrationEvidence;
      projectedMonthlySavingsUsd: number;
      graceUntil: Date;
    },
  ): Promise<CostMigrationRow | undefined> {
    const rows = await db
      .insert(costMigrations)
      .values({ tenantId, status: 'active', ...m })
      .onConflictDoNothing()
      .returning();
    return rows[0];
  },

  async rollBack(
    db: Executor,
    tenantId: string,
    id: string,
    kind: 'auto' | 'manual',
    reason: string,
    at: Date,
  ): Promise<CostMigrationRow | undefined> {
    const rows = await db
      .update(costMigrations)
      .set({ status: 'rolled_back', rolledBackAt: at, rollbackKind: kind, rollbackReason: reason })
      .where(and(eq(costMigrations.tenantId, tenantId), eq(costMigrations.id, id), eq(costMigrations.status, 'active')))
      .returning();
    return rows[0];
  },

  async endGrace(db: Executor, tenantId: string, id: string, at: Date): Promise<void> {
    await db
      .update(costMigrations)
      .set({ graceEndedAt: at })
      .where(
        and(eq(costMigrations.tenantId, tenantId), eq(costMigrations.id, id), isNull(costMigrations.graceEndedAt)),
      );
  },

  /** Active migrations as routing holds them, of one workspace or all (tenantId null). */
  async routingActive(
    db: Executor,
    tenantId: string | null,
  ): Promise<
    Array<{
      id: string;
      tenantId: string;
      taskType: string;
      complexity: string;
      provider: string;
      model: string;
      boosted: boolean;
    }>
  > {
    return db
      .select({
        id: costMigrations.id,
        tenantId: costMigrations.tenantId,
        taskType: costMigrations.taskType,
        complexity: costMigrations.complexity,
        provider: costMigrations.toProvider,
        model: costMigrations.toModel,
        boosted: sql<boolean>`${costMigrations.graceEndedAt} is null`,
      })
      .from(costMigrations)
      .where(
        and(eq(costMigrations.status, 'active'), tenantId === null ? undefined : eq(costMigrations.tenantId, tenantId)),
      );
  },
};
