import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { costLogs, requests } from '../../db/schema/index.js';

export const modelStatsRepository = {
  async requestStats(db: Executor, tenantId: string) {
    return db
      .select({
        provider: requests.provider,
        model: requests.model,
        requests: sql<number>`count(*)::int`,
        errors: sql<number>`count(*) filter (where ${requests.status} <> 'ok')::int`,
        cacheHits: sql<number>`count(*) filter (where ${requests.cached})::int`,
        avgLatencyMs: sql<number | null>`avg(${requests.latencyMs})::float8`,
        inputTokens: sql<number>`coalesce(sum(${requests.inputTokens}), 0)::bigint`,
        outputTokens: sql<number>`coalesce(sum(${requests.outputTokens}), 0)::bigint`,
        lastUsedAt: sql<Date | null>`max(${requests.createdAt})`,
      })
      .from(requests)
      .where(eq(requests.tenantId, tenantId))
      .groupBy(requests.provider, requests.model);
  },

  async costStats(db: Executor, tenantId: string) {
    return db
      .select({
        provider: costLogs.provider,
        model: costLogs.model,
        calls: sql<number>`count(*)::int`,
        cost: sql<number>`coalesce(sum(${costLogs.cost}), 0)::float8`,
        cachedInputTokens: sql<number>`coalesce(sum(${costLogs.cachedInputTokens}), 0)::float8`,
        cacheWrite5mTokens: sql<number>`coalesce(sum(${costLogs.cacheWrite5mTokens}), 0)::float8`,
        cacheWrite1hTokens: sql<number>`coalesce(sum(${costLogs.cacheWrite1hTokens}), 0)::float8`,
      })
      .from(costLogs)
      .where(and(eq(costLogs.tenantId, tenantId)))
      .groupBy(costLogs.provider, costLogs.model);
  },
};
