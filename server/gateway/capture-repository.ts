import { and, desc, eq, inArray, lt, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import {
  capturedExchanges,
  exchangeCaptureSettings,
  type CapturedExchangeRow,
  type ExchangeCaptureSettingsRow,
} from '../db/schema/index.js';

/** A captured exchange in the replay bank, with the cell and model that answered it. */
export type BankEntry = {
  requestId: string;
  messages: unknown[];
  answer: string;
  taskType: string;
  complexity: string;
  provider: string;
  model: string;
};

// Exchange capture's tables: the per-workspace settings and the captured exchanges. Every
// workspace-scoped method takes tenantId first after the executor.

export const captureRepository = {
  /** Sample rates of every workspace with capture on (loaded at start). */
  enabledRates(db: Executor): Promise<Array<{ tenantId: string; sampleRate: number }>> {
    return db
      .select({ tenantId: exchangeCaptureSettings.tenantId, sampleRate: exchangeCaptureSettings.sampleRate })
      .from(exchangeCaptureSettings)
      .where(eq(exchangeCaptureSettings.enabled, true));
  },

  async settings(db: Executor, tenantId: string): Promise<ExchangeCaptureSettingsRow | undefined> {
    const rows = await db
      .select()
      .from(exchangeCaptureSettings)
      .where(eq(exchangeCaptureSettings.tenantId, tenantId))
      .limit(1);
    return rows[0];
  },

  async putSettings(
    db: Executor,
    tenantId: string,
    s: { enabled: boolean; sampleRate: number; retentionDays: number },
  ): Promise<void> {
    await db
      .insert(exchangeCaptureSettings)
      .values({ tenantId, ...s, updatedAt: new Date() })
      .onConflictDoUpdate({ target: exchangeCaptureSettings.tenantId, set: { ...s, updatedAt: new Date() } });
  },

  /** A captured exchange; a request captured twice keeps its first capture. */
  async insert(db: Executor, tenantId: string, requestId: string, messages: unknown[], answer: string): Promise<void> {
    await db.insert(capturedExchanges).values({ tenantId, requestId, messages, answer }).onConflictDoNothing();
  },

  latest(db: Executor, tenantId: string, limit: number): Promise<CapturedExchangeRow[]> {
    return db
      .select()
      .from(capturedExchanges)
      .where(eq(capturedExchanges.tenantId, tenantId))
      .orderBy(desc(capturedExchanges.createdAt), desc(capturedExchanges.requestId))
      .limit(limit);
  },

  byRequests(db: Executor, tenantId: string, requestIds: string[]): Promise<CapturedExchangeRow[]> {
    return db
      .select()
      .from(capturedExchanges)
      .where(and(eq(capturedExchanges.tenantId, tenantId), inArray(capturedExchanges.requestId, requestIds)));
  },

  /**
   * The replay bank's size: captured exchanges of answered chat calls routed in a cell, counting
   * at most `perCell` (the most recent) per cell.
   */
  async bankSize(db: Executor, tenantId: string, perCell: number): Promise<number> {
    const res = await db.execute<{ n: number }>(sql`
      select coalesce(sum(least(n, ${perCell})), 0)::int as n from (
        select count(*) as n
          from captured_exchanges c join requests r on r.tenant_id = c.tenant_id and r.id = c.request_id
         where c.tenant_id = ${tenantId} and r.task_type is not null and r.complexity is not null
           and r.task_type <> 'vision' and r.status = 'ok' and r.provider is not null
         group by r.task_type, r.complexity) per_cell`);
    return res.rows[0]?.n ?? 0;
  },

  /** Up to `sample` exchanges per cell, drawn from the `perCell` most recent of the cell's bank. */
  async bankSample(db: Executor, tenantId: string, perCell: number, sample: number): Promise<BankEntry[]> {
    const res = await db.execute<BankEntry>(sql`
      select "requestId", messages, answer, "taskType", complexity, provider, model from (
        select b.*, row_number() over (partition by b."taskType", b.complexity order by random()) as pick from (
          select c.request_id as "requestId", c.messages, c.answer, r.task_type as "taskType", r.complexity,
                 r.provider, r.model,
                 row_number() over (partition by r.task_type, r.complexity order by c.created_at desc, c.request_id) as recent
            from captured_exchanges c join requests r on r.tenant_id = c.tenant_id and r.id = c.request_id
           where c.tenant_id = ${tenantId} and r.task_type is not null and r.complexity is not null
             and r.task_type <> 'vision' and r.status = 'ok' and r.provider is not null) b
         where b.recent <= ${perCell}) s
       where pick <= ${sample}
       order by "taskType", complexity, "requestId"`);
    return res.rows;
  },

  async deleteOlderThan(db: Executor, tenantId: string, days: number): Promise<number> {
    const res = await db
      .delete(capturedExchanges)
      .where(
        and(
          eq(capturedExchanges.tenantId, tenantId),
          lt(capturedExchanges.createdAt, sql`now() - make_interval(days => ${days})`),
        ),
      );
    return res.rowCount ?? 0;
  },
};
