import { and, desc, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { apiTokens, memberships, tenants, tokenSpend, type ApiTokenRow } from '../../db/schema/index.js';

/** Token changes (update, disable, delete) are announced here, in the transaction that makes them; every Authenticator listens. */
export const TOKENS_CHANNEL = 'gateway_tokens';

// Drizzle queries for API tokens. Every method that serves a tenant takes tenantId first.

/** First key of the two-key advisory lock taken by lockAdminChanges (the second is the tenant's hash). */
const ADMIN_TOKENS_LOCK = 0x74_6f_6b; // 'tok'

export type TokenPatch = Partial<
  Pick<ApiTokenRow, 'name' | 'enabled' | 'spendLimitUsd' | 'spendLimitPeriod' | 'rateLimitPerMinute'>
>;

export const tokensRepository = {
  /** The tenant's tokens, newest first, each with what it has spent. */
  async list(
    db: Executor,
    tenantId: string,
    userId?: string,
  ): Promise<Array<{ token: ApiTokenRow; spentUsd: number }>> {
    const rows = await db
      .select({ token: apiTokens, spentUsd: tokenSpend.spentUsd })
      .from(apiTokens)
      .leftJoin(tokenSpend, eq(tokenSpend.tokenId, apiTokens.id))
      .where(and(eq(apiTokens.tenantId, tenantId), userId === undefined ? undefined : eq(apiTokens.userId, userId)))
      .orderBy(desc(apiTokens.createdAt), desc(apiTokens.id));
    return rows.map((r) => ({ token: r.token, spentUsd: r.spentUsd ?? 0 }));
  },

  /** USD spent with one token, all time (0 before its first paid call). */
  async spent(db: Executor, tenantId: string, id: string): Promise<number> {
    const rows = await db
      .select({ spentUsd: tokenSpend.spentUsd })
      .from(tokenSpend)
      .where(and(eq(tokenSpend.tenantId, tenantId), eq(tokenSpend.tokenId, id)));
    return rows[0]?.spentUsd ?? 0;
  },

  async get(db: Executor, tenantId: string, id: string): Promise<ApiTokenRow | undefined> {
    const rows = await db
      .select()
      .from(apiTokens)
      .where(and(eq(apiTokens.tenantId, tenantId), eq(apiTokens.id, id)))
      .limit(1);
    return rows[0];
  },

  /**
   * Serialises, per workspace until the transaction ends, changes that can take an admin token
   * away: two admins disabling each other's tokens at once then cannot both see the other's as
   * the one that remains.
   */
  async lockAdminChanges(tx: Executor, tenantId: string): Promise<void> {
    await tx.execute(sql`select pg_advisory_xact_lock(${ADMIN_TOKENS_LOCK}, hashtext(${tenantId}))`);
  },

  /** Enabled admin tokens of a workspace other than `exceptId`. */
  async countOtherEnabledAdmins(db: Executor, tenantId: string, exceptId: string): Promise<number> {
    const rows = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(apiTokens)
      .where(
        and(
          eq(apiTokens.tenantId, tenantId),
          eq(apiTokens.admin, true),
          eq(apiTokens.enabled, true),
          sql`${apiTokens.id} <> ${exceptId}`,
        ),
      );
    return rows[0]?.n ?? 0;
  },

  async insert(db: Executor, row: typeof apiTokens.$inferInsert): Promise<ApiTokenRow> {
    const [created] = await db.insert(apiTokens).values(row).returning();
    return created!;
  },

  /** Writes token `id` of the workspace: inserted, or every given column replaced when it exists. */
  async upsert(
    db: Executor,
    tenantId: string,
    id: string,
    values: Omit<typeof apiTokens.$inferInsert, 'id' | 'tenantId'>,
  ): Promise<ApiTokenRow> {
    const set = { tenantId, ...values };
    const [written] = await db
      .insert(apiTokens)
      .values({ id, ...set })
      .onConflictDoUpdate({ target: apiTokens.id, set })
      .returning();
    return written!;
  },

  async update(db: Executor, tenantId: string, id: string, patch: TokenPatch): Promise<ApiTokenRow | undefined> {
    const rows = await db
      .update(apiTokens)
      .set(patch)
      .where(and(eq(apiTokens.tenantId, tenantId), eq(apiTokens.id, id)))
      .returning();
    return rows[0];
  },

  async remove(db: Executor, tenantId: string, id: string): Promise<ApiTokenRow | undefined> {
    const rows = await db
      .delete(apiTokens)
      .where(and(eq(apiTokens.tenantId, tenantId), eq(apiTokens.id, id)))
      .returning();
    if (rows[0]) await db.delete(tokenSpend).where(eq(tokenSpend.tokenId, id));
    return rows[0];
  },

  /** The auth lookup: token hash to token, its workspace tier and its spend (null before any). */
  async findByHash(db: Executor, hash: string) {
    return (await this.findByHashes(db, [hash]))[0];
  },

  /** findByHash for many hashes in one query (the auth cache's periodic refresh). */
  findByHashes(db: Executor, hashes: string[]) {
    return (
      db
        .select({
          token: apiTokens,
          tier: tenants.tier,
          spentUsd: tokenSpend.spentUsd,
          // This UTC month's spend, for tokens whose limit is monthly: the daily rows of the spend
          // rollup (kept by a trigger on cost_logs, exact), read only for those tokens.
          monthSpentUsd: sql<number | null>`case when ${apiTokens.spendLimitPeriod} = 'monthly' then (
            select coalesce(sum(s.cost), 0)::float8 from spend_by_token s
             where s.tenant_id = ${apiTokens.tenantId} and s.grain = 'd' and s.token_id = ${apiTokens.id}
               and s.bucket >= date_trunc('month', now() at time zone 'UTC') at time zone 'UTC') end`,
          month: sql<string>`to_char(now() at time zone 'UTC', 'YYYY-MM')`,
          // A member's token follows the member's role (read here, on a cache miss only).
          role: memberships.role,
        })
        .from(apiTokens)
        .innerJoin(tenants, eq(tenants.id, apiTokens.tenantId))
        .leftJoin(
          memberships,
          and(eq(memberships.tenantId, apiTokens.tenantId), eq(memberships.userId, apiTokens.userId)),
        )
        .leftJoin(tokenSpend, eq(tokenSpend.tokenId, apiTokens.id))
        // One array parameter, not one parameter per hash: the refresh may ask for thousands.
        .where(sql`${apiTokens.hash} = any(${sql.param(hashes)}::text[])`)
    );
  },

  /** Tells every gateway process (TOKENS_CHANNEL) that a token changed, when `tx` commits. */
  async announceChange(tx: Executor, id: string): Promise<void> {
    await tx.execute(sql`select pg_notify(${TOKENS_CHANNEL}, ${id})`);
  },

  /** One statement for a batch of last-used timestamps. */
  async touch(db: Executor, entries: Array<{ id: string; at: Date }>): Promise<void> {
    if (entries.length === 0) return;
    const values = sql.join(
      entries.map((e) => sql`(${e.id}, ${e.at.toISOString()}::timestamptz)`),
      sql`, `,
    );
    await db.execute(
      sql`update api_tokens set last_used_at = v.at from (values ${values}) as v(id, at) where api_tokens.id = v.id and (api_tokens.last_used_at is null or api_tokens.last_used_at < v.at)`,
    );
  },
};
