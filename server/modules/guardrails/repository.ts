import { and, asc, desc, eq, getTableColumns, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { guardrailLogs, guardrailRules, type GuardrailLogRow, type GuardrailRuleRow } from '../../db/schema/index.js';
import { exactTime, olderThan, type Cursor, type KeysetRow } from '../../lib/cursor.js';

// Evaluation order: built-ins first (in their shipped order), then custom rules oldest first.
const order = [sql`${guardrailRules.builtinKey} is null`, asc(guardrailRules.createdAt), asc(guardrailRules.id)];

export const guardrailsRepository = {
  list(db: Executor, tenantId: string): Promise<GuardrailRuleRow[]> {
    return db
      .select()
      .from(guardrailRules)
      .where(eq(guardrailRules.tenantId, tenantId))
      .orderBy(...order);
  },

  /** Enabled rules of one workspace, or of every workspace, in evaluation order. */
  enabled(db: Executor, tenantId?: string): Promise<GuardrailRuleRow[]> {
    const filters: SQL[] = [eq(guardrailRules.enabled, true)];
    if (tenantId !== undefined) filters.push(eq(guardrailRules.tenantId, tenantId));
    return db
      .select()
      .from(guardrailRules)
      .where(and(...filters))
      .orderBy(guardrailRules.tenantId, ...order);
  },

  /** Inserts the rows whose built-in is not there yet; returns those inserted. */
  insertBuiltins(db: Executor, rows: Array<typeof guardrailRules.$inferInsert>): Promise<GuardrailRuleRow[]> {
    return db
      .insert(guardrailRules)
      .values(rows)
      .onConflictDoNothing({
        target: [guardrailRules.tenantId, guardrailRules.builtinKey],
        where: sql`${guardrailRules.builtinKey} is not null`,
      })
      .returning();
  },

  async insert(db: Executor, row: typeof guardrailRules.$inferInsert): Promise<GuardrailRuleRow> {
    const [created] = await db.insert(guardrailRules).values(row).returning();
    return created!;
  },

  async getForUpdate(db: Executor, tenantId: string, id: string): Promise<GuardrailRuleRow | undefined> {
    const [row] = await db
      .select()
      .from(guardrailRules)
      .where(and(eq(guardrailRules.tenantId, tenantId), eq(guardrailRules.id, id)))
      .for('update');
    return row;
  },

  async update(
    db: Executor,
    tenantId: string,
    id: string,
    patch: Partial<GuardrailRuleRow>,
  ): Promise<GuardrailRuleRow> {
    const [row] = await db
      .update(guardrailRules)
      .set({ ...patch, updatedAt: new Date() })
      .where(and(eq(guardrailRules.tenantId, tenantId), eq(guardrailRules.id, id)))
      .returning();
    return row!;
  },

  async remove(db: Executor, tenantId: string, id: string): Promise<void> {
    await db.delete(guardrailRules).where(and(eq(guardrailRules.tenantId, tenantId), eq(guardrailRules.id, id)));
  },

  async countCustom(db: Executor, tenantId: string): Promise<number> {
    const [row] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(guardrailRules)
      .where(and(eq(guardrailRules.tenantId, tenantId), sql`${guardrailRules.builtinKey} is null`));
    return row?.n ?? 0;
  },

  logs(
    db: Executor,
    tenantId: string,
    q: { limit: number; ruleId?: string; before?: Cursor },
  ): Promise<Array<GuardrailLogRow & KeysetRow>> {
    const filters: SQL[] = [eq(guardrailLogs.tenantId, tenantId)];
    if (q.ruleId) filters.push(eq(guardrailLogs.ruleId, q.ruleId));
    if (q.before) filters.push(olderThan(guardrailLogs.createdAt, guardrailLogs.id, q.before));
    return db
      .select({ ...getTableColumns(guardrailLogs), cursorTime: exactTime(guardrailLogs.createdAt) })
      .from(guardrailLogs)
      .where(and(...filters))
      .orderBy(desc(guardrailLogs.createdAt), desc(guardrailLogs.id))
      .limit(q.limit);
  },
};
