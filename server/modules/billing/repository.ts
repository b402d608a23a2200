import { eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { billingEvents, billingSubscriptions, type BillingSubscriptionRow } from '../../db/schema/index.js';

export type { BillingSubscriptionRow };

export const billingRepository = {
  get(db: Executor, tenantId: string, forUpdate = false): Promise<BillingSubscriptionRow | undefined> {
    const q = db.select().from(billingSubscriptions).where(eq(billingSubscriptions.tenantId, tenantId));
    return (forUpdate ? q.for('update') : q).then((r) => r[0]);
  },

  byCustomer(db: Executor, customerId: string): Promise<BillingSubscriptionRow | undefined> {
    return db
      .select()
      .from(billingSubscriptions)
      .where(eq(billingSubscriptions.customerId, customerId))
      .then((r) => r[0]);
  },

  /** The workspace's customer at the payment provider; the first one stored wins. */
  async insertCustomer(db: Executor, tenantId: string, customerId: string): Promise<BillingSubscriptionRow> {
    await db.insert(billingSubscriptions).values({ tenantId, customerId }).onConflictDoNothing();
    return (await billingRepository.get(db, tenantId))!;
  },

  async update(
    db: Executor,
    tenantId: string,
    set: Partial<Omit<BillingSubscriptionRow, 'tenantId' | 'updatedAt'>>,
  ): Promise<void> {
    await db
      .update(billingSubscriptions)
      .set({ ...set, updatedAt: new Date() })
      .where(eq(billingSubscriptions.tenantId, tenantId));
  },

  /** False when the event was handled before (a replay). */
  async recordEvent(db: Executor, id: string, type: string, tenantId: string | null): Promise<boolean> {
    const rows = await db
      .insert(billingEvents)
      .values({ id, type, tenantId })
      .onConflictDoNothing()
      .returning({ id: billingEvents.id });
    return rows.length > 0;
  },

  /** Serialises the webhook handling of one workspace (events of one subscription arrive together). */
  async lockTenant(db: Executor, tenantId: string): Promise<void> {
    await db.execute(sql`select pg_advisory_xact_lock(hashtext(${`billing:${tenantId}`}))`);
  },
};
