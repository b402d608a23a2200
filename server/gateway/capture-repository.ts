import { and, desc, eq, inArray, lt, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import {
  capturedExchanges,
  exchangeCaptureSettings,
  type CapturedExchangeRow,
  type ExchangeCaptureSettingsRow,
} from '../db/schema/index.js';

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
