import { and, asc, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { notifyIn } from '../../db/listener.js';
import { providerKeys, type ProviderKeyRow } from '../../db/schema/index.js';
import { WORKSPACE_PROVIDERS_CHANNEL } from '../../gateway/workspace-providers.js';

export type { ProviderKeyRow };

export const providerKeysRepository = {
  list(db: Executor, tenantId: string): Promise<ProviderKeyRow[]> {
    return db
      .select()
      .from(providerKeys)
      .where(eq(providerKeys.tenantId, tenantId))
      .orderBy(asc(providerKeys.provider));
  },

  /** Every workspace's keys: loaded at start (and after a lost LISTEN connection), and by key rotation. */
  listAll(db: Executor): Promise<ProviderKeyRow[]> {
    return db.select().from(providerKeys).orderBy(asc(providerKeys.id));
  },

  get(db: Executor, tenantId: string, id: string): Promise<ProviderKeyRow | undefined> {
    return db
      .select()
      .from(providerKeys)
      .where(and(eq(providerKeys.tenantId, tenantId), eq(providerKeys.id, id)))
      .then((r) => r[0]);
  },

  findByProvider(db: Executor, tenantId: string, provider: string): Promise<ProviderKeyRow | undefined> {
    return db
      .select()
      .from(providerKeys)
      .where(and(eq(providerKeys.tenantId, tenantId), eq(providerKeys.provider, provider)))
      .for('update')
      .then((r) => r[0]);
  },

  /** One key per provider: a second POST for the same provider replaces the first (same id). */
  async upsert(
    tx: Executor,
    tenantId: string,
    row: Omit<typeof providerKeys.$inferInsert, 'tenantId' | 'createdAt' | 'updatedAt'>,
  ): Promise<ProviderKeyRow> {
    const now = new Date();
    const [saved] = await tx
      .insert(providerKeys)
      .values({ ...row, tenantId, createdAt: now, updatedAt: now })
      .onConflictDoUpdate({
        target: [providerKeys.tenantId, providerKeys.provider],
        set: {
          baseUrl: row.baseUrl ?? null,
          ciphertext: row.ciphertext,
          keyId: row.keyId,
          last4: row.last4,
          verified: row.verified ?? false,
          updatedAt: now,
        },
      })
      .returning();
    return saved!;
  },

  async remove(tx: Executor, tenantId: string, id: string): Promise<ProviderKeyRow | undefined> {
    const [gone] = await tx
      .delete(providerKeys)
      .where(and(eq(providerKeys.tenantId, tenantId), eq(providerKeys.id, id)))
      .returning();
    return gone;
  },

  /** Key rotation: the row re-sealed under the current key, only if it still holds what was read. */
  async reseal(tx: Executor, row: ProviderKeyRow, sealed: { ciphertext: string; keyId: string }): Promise<boolean> {
    const done = await tx
      .update(providerKeys)
      .set(sealed)
      .where(and(eq(providerKeys.id, row.id), eq(providerKeys.ciphertext, row.ciphertext)))
      .returning({ id: providerKeys.id });
    return done.length > 0;
  },

  /** Tells every gateway process that a workspace's providers changed, when the transaction commits. */
  announceChange(tx: Executor, tenantId: string): Promise<void> {
    return notifyIn(tx, WORKSPACE_PROVIDERS_CHANNEL, tenantId);
  },
};
