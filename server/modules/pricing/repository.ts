import { and, eq, sql } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.js';
import { priceOverrides } from '../../db/schema/index.js';

export type PriceOverrideRow = typeof priceOverrides.$inferSelect;

/** Tells every gateway process that a workspace's prices changed, when the transaction commits. */
export const PRICE_OVERRIDES_CHANNEL = 'gateway_price_overrides';

export const priceOverridesRepository = {
  list(db: Executor, tenantId: string): Promise<PriceOverrideRow[]> {
    return db
      .select()
      .from(priceOverrides)
      .where(eq(priceOverrides.tenantId, tenantId))
      .orderBy(priceOverrides.model, priceOverrides.provider);
  },

  /** Every workspace's overrides: loaded once at start (and after a lost LISTEN connection). */
  listAllTenants(db: Database): Promise<PriceOverrideRow[]> {
    return db.select().from(priceOverrides);
  },

  find(db: Executor, tenantId: string, provider: string, model: string): Promise<PriceOverrideRow | undefined> {
    return db
      .select()
      .from(priceOverrides)
      .where(
        and(
          eq(priceOverrides.tenantId, tenantId),
          eq(priceOverrides.provider, provider),
          eq(priceOverrides.model, model),
        ),
      )
      .then((rows) => rows[0]);
  },

  async upsert(
    tx: Executor,
    tenantId: string,
    row: Omit<typeof priceOverrides.$inferInsert, 'tenantId' | 'createdAt' | 'updatedAt'>,
  ): Promise<PriceOverrideRow> {
    const now = new Date();
    const [saved] = await tx
      .insert(priceOverrides)
      .values({ ...row, tenantId, createdAt: now, updatedAt: now })
      .onConflictDoUpdate({
        target: [priceOverrides.tenantId, priceOverrides.provider, priceOverrides.model],
        set: {
          input: row.input,
          output: row.output,
          cachedInput: row.cachedInput ?? null,
          cacheWrite5m: row.cacheWrite5m ?? null,
          cacheWrite1h: row.cacheWrite1h ?? null,
          updatedAt: now,
        },
      })
      .returning();
    return saved!;
  },

  async remove(tx: Executor, tenantId: string, provider: string, model: string): Promise<PriceOverrideRow | undefined> {
    const [gone] = await tx
      .delete(priceOverrides)
      .where(
        and(
          eq(priceOverrides.tenantId, tenantId),
          eq(priceOverrides.provider, provider),
          eq(priceOverrides.model, model),
        ),
      )
      .returning();
    return gone;
  },

  async announceChange(tx: Executor, tenantId: string): Promise<void> {
    await tx.execute(sql`select pg_notify(${PRICE_OVERRIDES_CHANNEL}, ${tenantId})`);
  },
};
