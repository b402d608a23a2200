import { and, desc, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { apiTokens, tenants, type ApiTokenRow } from '../../db/schema/index.js';

// Drizzle queries for API tokens. Every method that serves a tenant takes tenantId first.

export type TokenPatch = Partial<Pick<ApiTokenRow, 'name' | 'enabled' | 'spendLimitUsd' | 'rateLimitPerMinute'>>;

export const tokensRepository = {
  list(db: Executor, tenantId: string): Promise<ApiTokenRow[]> {
    return db.select().from(apiTokens).where(eq(apiTokens.tenantId, tenantId)).orderBy(desc(apiTokens.createdAt), desc(apiTokens.id));
  },

  async get(db: Executor, tenantId: string, id: string): Promise<ApiTokenRow | undefined> {
    const rows = await db.select().from(apiTokens).where(and(eq(apiTokens.tenantId, tenantId), eq(apiTokens.id, id))).limit(1);
    return rows[0];
  },

  async insert(db: Executor, row: typeof apiTokens.$inferInsert): Promise<ApiTokenRow> {
    const [created] = await db.insert(apiTokens).values(row).returning();
    return created!;
  },

  async update(db: Executor, tenantId: string, id: string, patch: TokenPatch): Promise<ApiTokenRow | undefined> {
    const rows = await db.update(apiTokens).set(patch).where(and(eq(apiTokens.tenantId, tenantId), eq(apiTokens.id, id))).returning();
    return rows[0];
  },

  async remove(db: Executor, tenantId: string, id: string): Promise<ApiTokenRow | undefined> {
    const rows = await db.delete(apiTokens).where(and(eq(apiTokens.tenantId, tenantId), eq(apiTokens.id, id))).returning();
    return rows[0];
  },

  /** The auth lookup: token hash to token and its workspace tier (cache miss only). */
  async findByHash(db: Executor, hash: string) {
    const rows = await db
      .select({ token: apiTokens, tier: tenants.tier })
      .from(apiTokens)
      .innerJoin(tenants, eq(tenants.id, apiTokens.tenantId))
      .where(eq(apiTokens.hash, hash))
      .limit(1);
    return rows[0];
  },

  /** One statement for a batch of last-used timestamps. */
  async touch(db: Executor, entries: Array<{ id: string; at: Date }>): Promise<void> {
    if (entries.length === 0) return;
    const values = sql.join(
      entries.map((e) => sql`(${e.id}, ${e.at.toISOString()}::timestamptz)`),
      sql`, `,
    );
    await db.execute(sql`update api_tokens set last_used_at = v.at from (values ${values}) as v(id, at) where api_tokens.id = v.id and (api_tokens.last_used_at is null or api_tokens.last_used_at < v.at)`);
  },
};
