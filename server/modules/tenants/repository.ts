import { eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { tenants, type TenantRow } from '../../db/schema/index.js';

// Drizzle queries for workspaces (the tenants table, whose id is every other table's tenant_id).

export const tenantsRepository = {
  async insert(db: Executor, tenantId: string, row: { name: string; tier: string }): Promise<void> {
    await db.insert(tenants).values({ id: tenantId, ...row });
  },

  async get(db: Executor, tenantId: string): Promise<TenantRow | undefined> {
    return (await db.select().from(tenants).where(eq(tenants.id, tenantId)).limit(1))[0];
  },

  /** Creates the workspace, or sets its tier when it exists (single-tenant start-up). */
  async upsertTier(db: Executor, tenantId: string, row: { name: string; tier: string }): Promise<void> {
    await db
      .insert(tenants)
      .values({ id: tenantId, ...row })
      .onConflictDoUpdate({ target: tenants.id, set: { tier: row.tier } });
  },

  async tierOf(db: Executor, tenantId: string, forUpdate = false): Promise<string | undefined> {
    const q = db.select({ tier: tenants.tier }).from(tenants).where(eq(tenants.id, tenantId));
    return (forUpdate ? q.for('update') : q).then((r) => r[0]?.tier);
  },

  async setTier(db: Executor, tenantId: string, tier: string): Promise<void> {
    await db.update(tenants).set({ tier }).where(eq(tenants.id, tenantId));
  },
};
