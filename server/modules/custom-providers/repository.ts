import { and, asc, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { notifyIn } from '../../db/listener.js';
import { customProviders, type CustomProviderRow } from '../../db/schema/index.js';
import { WORKSPACE_PROVIDERS_CHANNEL } from '../../gateway/workspace-providers.js';

export type { CustomProviderRow };

export const customProvidersRepository = {
  list(db: Executor, tenantId: string): Promise<CustomProviderRow[]> {
    return db
      .select()
      .from(customProviders)
      .where(eq(customProviders.tenantId, tenantId))
      .orderBy(asc(customProviders.name));
  },

  listAll(db: Executor): Promise<CustomProviderRow[]> {
    return db.select().from(customProviders).orderBy(asc(customProviders.id));
  },

  get(db: Executor, tenantId: string, id: string, forUpdate = false): Promise<CustomProviderRow | undefined> {
    const q = db
      .select()
      .from(customProviders)
      .where(and(eq(customProviders.tenantId, tenantId), eq(customProviders.id, id)));
    return (forUpdate ? q.for('update') : q).then((r) => r[0]);
  },

  /** Undefined when the workspace already has a provider of that name. */
  async insert(
    tx: Executor,
    tenantId: string,
    row: Omit<typeof customProviders.$inferInsert, 'tenantId' | 'createdAt' | 'updatedAt'>,
  ): Promise<CustomProviderRow | undefined> {
    const [saved] = await tx
      .insert(customProviders)
      .values({ ...row, tenantId })
      .onConflictDoNothing({ target: [customProviders.tenantId, customProviders.name] })
      .returning();
    return saved;
  },

  async update(
    tx: Executor,
    tenantId: string,
    id: string,
    set: Partial<Pick<CustomProviderRow, 'baseUrl' | 'ciphertext' | 'keyId' | 'last4' | 'models' | 'discover'>>,
  ): Promise<CustomProviderRow | undefined> {
    const [saved] = await tx
      .update(customProviders)
      .set({ ...set, updatedAt: new Date() })
      .where(and(eq(customProviders.tenantId, tenantId), eq(customProviders.id, id)))
      .returning();
    return saved;
  },

  async remove(tx: Executor, tenantId: string, id: string): Promise<CustomProviderRow | undefined> {
    const [gone] = await tx
      .delete(customProviders)
      .where(and(eq(customProviders.tenantId, tenantId), eq(customProviders.id, id)))
      .returning();
    return gone;
  },

  /** Key rotation: the row re-sealed, only if it still holds what was read. */
  async reseal(tx: Executor, row: CustomProviderRow, sealed: { ciphertext: string; keyId: string }): Promise<boolean> {
    if (row.ciphertext === null) return false;
    const done = await tx
      .update(customProviders)
      .set(sealed)
      .where(and(eq(customProviders.id, row.id), eq(customProviders.ciphertext, row.ciphertext)))
      .returning({ id: customProviders.id });
    return done.length > 0;
  },

  announceChange(tx: Executor, tenantId: string): Promise<void> {
    return notifyIn(tx, WORKSPACE_PROVIDERS_CHANNEL, tenantId);
  },
};
