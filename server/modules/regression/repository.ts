import { and, desc, eq, isNull } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { regressionEvents, regressionSettings, type RegressionEventRow } from '../../db/schema/index.js';
import type { Regression } from './detect.js';

// The regression tables: the workspace's opt-in and the events. tenantId first.

export const regressionRepository = {
  async enabled(db: Executor, tenantId: string): Promise<boolean> {
    const rows = await db
      .select({ enabled: regressionSettings.enabled })
      .from(regressionSettings)
      .where(eq(regressionSettings.tenantId, tenantId));
    return rows[0]?.enabled ?? false;
  },

  async setEnabled(db: Executor, tenantId: string, enabled: boolean): Promise<void> {
    await db
      .insert(regressionSettings)
      .values({ tenantId, enabled, updatedAt: new Date() })
      .onConflictDoUpdate({ target: regressionSettings.tenantId, set: { enabled, updatedAt: new Date() } });
  },

  events(db: Executor, tenantId: string, unresolvedOnly: boolean, limit = 200): Promise<RegressionEventRow[]> {
    return db
      .select()
      .from(regressionEvents)
      .where(
        and(eq(regressionEvents.tenantId, tenantId), unresolvedOnly ? isNull(regressionEvents.resolvedAt) : undefined),
      )
      .orderBy(desc(regressionEvents.createdAt), desc(regressionEvents.id))
      .limit(limit);
  },

  async forUpdate(db: Executor, tenantId: string, id: string): Promise<RegressionEventRow | undefined> {
    const rows = await db
      .select()
      .from(regressionEvents)
      .where(and(eq(regressionEvents.tenantId, tenantId), eq(regressionEvents.id, id)))
      .for('update');
    return rows[0];
  },

  async insert(db: Executor, tenantId: string, id: string, r: Regression): Promise<RegressionEventRow> {
    const rows = await db
      .insert(regressionEvents)
      .values({ id, tenantId, ...r })
      .returning();
    return rows[0]!;
  },

  async resolve(db: Executor, tenantId: string, id: string, note: string): Promise<RegressionEventRow | undefined> {
    const rows = await db
      .update(regressionEvents)
      .set({ resolvedAt: new Date(), resolutionNote: note })
      .where(
        and(eq(regressionEvents.tenantId, tenantId), eq(regressionEvents.id, id), isNull(regressionEvents.resolvedAt)),
      )
      .returning();
    return rows[0];
  },
};
