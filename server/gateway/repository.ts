import { and, asc, count, eq, gte, inArray, lt, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { costLogs, judgeSamples, requests } from '../db/schema/index.js';

// The tables the request path writes, owned by the gateway core: `requests` and `cost_logs` (the
// request log; its rows are inserted in bulk by log-writer.ts, whose column list test/unit/
// log-writer-columns.test.ts pins to these tables) and `judge_samples` (exchanges kept for the LLM
// judge). Every method serves one workspace and takes tenantId first after the executor.

// Retention deletes in batches so a first run over a large backlog never holds one huge
// transaction (long locks, a burst of WAL) on the tables the chat path writes to.
const RETENTION_BATCH = 5_000;

export const requestLogRepository = {
  /** Request rows per workspace since `since` (the monthly quota's floor), for several at once. */
  async countSince(db: Executor, tenantIds: string[], since: Date): Promise<Map<string, number>> {
    if (tenantIds.length === 0) return new Map();
    const rows = await db
      .select({ tenantId: requests.tenantId, n: count() })
      .from(requests)
      .where(and(inArray(requests.tenantId, tenantIds), gte(requests.createdAt, since)))
      .groupBy(requests.tenantId);
    return new Map(rows.map((r) => [r.tenantId, r.n]));
  },

  /** Deletes batch by batch until none is left or `signal` fires (the rest waits for the next run). */
  async deleteRequestsBefore(db: Executor, tenantId: string, cutoff: Date, signal?: AbortSignal): Promise<number> {
    let total = 0;
    while (!signal?.aborted) {
      const batch = db
        .select({ id: requests.id })
        .from(requests)
        .where(and(eq(requests.tenantId, tenantId), lt(requests.createdAt, cutoff)))
        .limit(RETENTION_BATCH);
      const { rowCount } = await db
        .delete(requests)
        .where(and(eq(requests.tenantId, tenantId), inArray(requests.id, batch)));
      total += rowCount ?? 0;
      if ((rowCount ?? 0) < RETENTION_BATCH) return total;
    }
    return total;
  },

  async deleteCostLogsBefore(db: Executor, tenantId: string, cutoff: Date, signal?: AbortSignal): Promise<number> {
    let total = 0;
    while (!signal?.aborted) {
      const batch = db
        .select({ id: costLogs.id })
        .from(costLogs)
        .where(and(eq(costLogs.tenantId, tenantId), lt(costLogs.createdAt, cutoff)))
        .limit(RETENTION_BATCH);
      const { rowCount } = await db
        .delete(costLogs)
        .where(and(eq(costLogs.tenantId, tenantId), inArray(costLogs.id, batch)));
      total += rowCount ?? 0;
      if ((rowCount ?? 0) < RETENTION_BATCH) return total;
    }
    return total;
  },
};

/** The gateway's own calls' spend, by request-id prefix (replays: `replay-`). */
export const ownCallSpendRepository = {
  async since(db: Executor, tenantId: string, prefix: string, since: Date): Promise<{ calls: number; usd: number }> {
    const res = await db.execute<{ calls: number; usd: number }>(sql`
      select count(*)::int as calls, coalesce(sum(cost), 0)::float8 as usd
        from cost_logs
       where tenant_id = ${tenantId} and created_at >= ${since.toISOString()}
         and request_id like ${`${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`}`);
    return res.rows[0] ?? { calls: 0, usd: 0 };
  },
};

export interface JudgeSample {
  requestId: string;
  /** The chat messages sent (text parts only). */
  prompt: unknown;
  answer: string;
}

export const judgeSamplesRepository = {
  /**
   * Stores a sampled exchange; a request sampled twice keeps its first sample. `promptJson` is the
   * prompt already encoded as JSON (the sampler encodes it, replacing what jsonb refuses).
   */
  async insert(db: Executor, tenantId: string, s: { requestId: string; promptJson: string; answer: string }) {
    await db
      .insert(judgeSamples)
      .values({ requestId: s.requestId, tenantId, prompt: sql`${s.promptJson}::jsonb`, answer: s.answer })
      .onConflictDoNothing();
  },

  /** The oldest samples waiting to be graded. */
  async oldest(db: Executor, tenantId: string, limit: number): Promise<JudgeSample[]> {
    return db
      .select({ requestId: judgeSamples.requestId, prompt: judgeSamples.prompt, answer: judgeSamples.answer })
      .from(judgeSamples)
      .where(eq(judgeSamples.tenantId, tenantId))
      .orderBy(asc(judgeSamples.createdAt))
      .limit(limit);
  },

  async remove(db: Executor, tenantId: string, requestId: string): Promise<void> {
    await db
      .delete(judgeSamples)
      .where(and(eq(judgeSamples.tenantId, tenantId), eq(judgeSamples.requestId, requestId)));
  },

  /** Every sample of the workspace (the judge was switched off); how many there were. */
  async removeAll(db: Executor, tenantId: string): Promise<number> {
    const { rowCount } = await db.delete(judgeSamples).where(eq(judgeSamples.tenantId, tenantId));
    return rowCount ?? 0;
  },

  /** Samples (whole prompts) queued before `cutoff`; few, so one statement. */
  async deleteBefore(db: Executor, tenantId: string, cutoff: Date): Promise<number> {
    const { rowCount } = await db
      .delete(judgeSamples)
      .where(and(eq(judgeSamples.tenantId, tenantId), lt(judgeSamples.createdAt, cutoff)));
    return rowCount ?? 0;
  },
};
