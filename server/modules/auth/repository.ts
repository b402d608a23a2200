import { and, eq, gt, isNull, lt, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import {
  authFlows,
  magicLinks,
  memberships,
  samlConnections,
  samlReplays,
  sessions,
  tenants,
  userIdentities,
  users,
  type AuthFlowRow,
  type SamlConnectionRow,
  type SessionRow,
} from '../../db/schema/index.js';

/** Session changes (sign-out, revocation, a member's role or removal) are announced here; every process's session cache listens. */
export const SESSIONS_CHANNEL = 'gateway_sessions';

// Drizzle queries for sign-in: identities, sessions, magic links, flows in progress, SAML.

export const authRepository = {
  async identityUser(db: Executor, provider: string, subject: string): Promise<string | undefined> {
    const rows = await db
      .select({ userId: userIdentities.userId })
      .from(userIdentities)
      .where(and(eq(userIdentities.provider, provider), eq(userIdentities.subject, subject)))
      .limit(1);
    return rows[0]?.userId;
  },

  async linkIdentity(db: Executor, provider: string, subject: string, userId: string): Promise<void> {
    await db.insert(userIdentities).values({ provider, subject, userId }).onConflictDoNothing();
  },

  async insertSession(db: Executor, row: typeof sessions.$inferInsert): Promise<SessionRow> {
    const [created] = await db.insert(sessions).values(row).returning();
    return created!;
  },

  /** The session's own row with what authenticates it: the workspace's tier and name, the member's role and e-mail. */
  async sessionByHash(db: Executor, hash: string) {
    const rows = await db
      .select({
        session: sessions,
        tier: tenants.tier,
        role: memberships.role,
        email: users.email,
      })
      .from(sessions)
      .innerJoin(tenants, eq(tenants.id, sessions.tenantId))
      .innerJoin(users, eq(users.id, sessions.userId))
      .leftJoin(memberships, and(eq(memberships.tenantId, sessions.tenantId), eq(memberships.userId, sessions.userId)))
      .where(and(eq(sessions.hash, hash), isNull(sessions.revokedAt)))
      .limit(1);
    return rows[0];
  },

  async revokeSession(db: Executor, id: string): Promise<void> {
    await db.update(sessions).set({ revokedAt: new Date() }).where(eq(sessions.id, id));
  },

  async revokeMemberSessions(db: Executor, tenantId: string, userId: string): Promise<void> {
    await db
      .update(sessions)
      .set({ revokedAt: new Date() })
      .where(and(eq(sessions.tenantId, tenantId), eq(sessions.userId, userId), isNull(sessions.revokedAt)));
  },

  async announce(tx: Executor, payload: string): Promise<void> {
    await tx.execute(sql`select pg_notify(${SESSIONS_CHANNEL}, ${payload})`);
  },

  async insertMagicLink(db: Executor, row: typeof magicLinks.$inferInsert): Promise<void> {
    await db.insert(magicLinks).values(row);
  },

  /**
   * Holds, to the end of the caller's transaction, every other request for a link to `email` (on
   * any node), so counting and inserting are one step.
   */
  async lockMagicLinkRequests(db: Executor, email: string): Promise<void> {
    await db.execute(sql`select pg_advisory_xact_lock(hashtext(${`magic-link:${email}`}))`);
  },

  /** Links asked for since `since`: for an address, and from a client address. */
  async countMagicLinkRequests(
    db: Executor,
    email: string,
    clientAddress: string,
    since: Date,
  ): Promise<{ forEmail: number; fromClient: number }> {
    const res = await db.execute<{ forEmail: number; fromClient: number }>(sql`
      select (select count(*)::int from magic_links where email = ${email} and created_at >= ${since.toISOString()}) as "forEmail",
             (select count(*)::int from magic_links where client_address = ${clientAddress}
                 and created_at >= ${since.toISOString()}) as "fromClient"`);
    return res.rows[0] ?? { forEmail: 0, fromClient: 0 };
  },

  /** Marks an unused, unexpired link used and returns it: a second use finds nothing. */
  async consumeMagicLink(db: Executor, hash: string, now: Date) {
    const rows = await db
      .update(magicLinks)
      .set({ usedAt: now })
      .where(and(eq(magicLinks.hash, hash), isNull(magicLinks.usedAt), gt(magicLinks.expiresAt, now)))
      .returning();
    return rows[0];
  },

  async insertFlow(db: Executor, row: typeof authFlows.$inferInsert): Promise<void> {
    await db.insert(authFlows).values(row);
  },

  /** Deletes and returns an unexpired flow: a callback replayed finds nothing. */
  async takeFlow(db: Executor, state: string, now: Date): Promise<AuthFlowRow | undefined> {
    const rows = await db
      .delete(authFlows)
      .where(and(eq(authFlows.state, state), gt(authFlows.expiresAt, now)))
      .returning();
    return rows[0];
  },

  /**
   * Rows no longer of use: expired flows and replay records, magic links expired and an hour old
   * (the request limits count the last hour's), sessions ended a day ago.
   */
  async sweep(db: Executor, now: Date): Promise<void> {
    await db.delete(sessions).where(lt(sessions.expiresAt, new Date(now.getTime() - 86_400_000)));
    await db.delete(authFlows).where(lt(authFlows.expiresAt, now));
    await db
      .delete(magicLinks)
      .where(and(lt(magicLinks.expiresAt, now), lt(magicLinks.createdAt, new Date(now.getTime() - 3_600_000))));
    await db.delete(samlReplays).where(lt(samlReplays.expiresAt, now));
  },

  async samlConnection(db: Executor, tenantId: string): Promise<SamlConnectionRow | undefined> {
    return (await db.select().from(samlConnections).where(eq(samlConnections.tenantId, tenantId)).limit(1))[0];
  },

  /** The enabled connection that lists `domain`. */
  async samlConnectionForDomain(db: Executor, domain: string): Promise<SamlConnectionRow | undefined> {
    const rows = await db
      .select()
      .from(samlConnections)
      .where(and(eq(samlConnections.enabled, true), sql`${domain} = any(${samlConnections.emailDomains})`))
      .limit(1);
    return rows[0];
  },

  /** Which of `domains` another workspace's connection lists already. */
  async domainsClaimedElsewhere(db: Executor, tenantId: string, domains: string[]): Promise<string[]> {
    const rows = await db
      .select({ domains: samlConnections.emailDomains })
      .from(samlConnections)
      .where(
        and(
          sql`${samlConnections.tenantId} <> ${tenantId}`,
          sql`${samlConnections.emailDomains} && ${sql.param(domains)}::text[]`,
        ),
      );
    const wanted = new Set(domains);
    return [...new Set(rows.flatMap((r) => r.domains.filter((d) => wanted.has(d))))];
  },

  async putSamlConnection(
    db: Executor,
    tenantId: string,
    values: Omit<typeof samlConnections.$inferInsert, 'tenantId' | 'updatedAt'>,
  ): Promise<SamlConnectionRow> {
    const set = { ...values, updatedAt: new Date() };
    const [row] = await db
      .insert(samlConnections)
      .values({ tenantId, ...set })
      .onConflictDoUpdate({ target: samlConnections.tenantId, set })
      .returning();
    return row!;
  },

  async deleteSamlConnection(db: Executor, tenantId: string): Promise<SamlConnectionRow | undefined> {
    const rows = await db.delete(samlConnections).where(eq(samlConnections.tenantId, tenantId)).returning();
    return rows[0];
  },

  /** Records an accepted assertion id; false when it was accepted before (a replay). */
  async recordAssertion(db: Executor, tenantId: string, assertionId: string, expiresAt: Date): Promise<boolean> {
    const rows = await db
      .insert(samlReplays)
      .values({ assertionId, tenantId, expiresAt })
      .onConflictDoNothing()
      .returning({ id: samlReplays.assertionId });
    return rows.length === 1;
  },
};
