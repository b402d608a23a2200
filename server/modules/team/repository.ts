import { and, asc, desc, eq, gt, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import {
  memberships,
  teamInvites,
  users,
  type MembershipRow,
  type TeamInviteRow,
  type TeamRole,
  type UserRow,
} from '../../db/schema/index.js';

// Drizzle queries for people: users, their memberships in workspaces, and invitations.

/** First key of the advisory lock that serialises owner changes of one workspace. */
const OWNERS_LOCK = 0x6f_77_6e; // 'own'

export interface MemberRecord {
  user: UserRow;
  role: TeamRole;
  joinedAt: Date;
}

export const teamRepository = {
  async userByEmail(db: Executor, email: string): Promise<UserRow | undefined> {
    return (await db.select().from(users).where(eq(users.email, email)).limit(1))[0];
  },

  async userById(db: Executor, id: string): Promise<UserRow | undefined> {
    return (await db.select().from(users).where(eq(users.id, id)).limit(1))[0];
  },

  /** Inserts the user, or returns the one that holds the e-mail already (two first sign-ins at once). */
  async insertUser(db: Executor, row: { id: string; email: string; name: string | null }): Promise<UserRow> {
    await db.insert(users).values(row).onConflictDoNothing({ target: users.email });
    return (await this.userByEmail(db, row.email))!;
  },

  async members(db: Executor, tenantId: string): Promise<MemberRecord[]> {
    const rows = await db
      .select({ user: users, role: memberships.role, joinedAt: memberships.createdAt })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(eq(memberships.tenantId, tenantId))
      .orderBy(asc(memberships.createdAt), asc(users.id));
    return rows;
  },

  async membership(db: Executor, tenantId: string, userId: string): Promise<MembershipRow | undefined> {
    return (
      await db
        .select()
        .from(memberships)
        .where(and(eq(memberships.tenantId, tenantId), eq(memberships.userId, userId)))
        .limit(1)
    )[0];
  },

  /** The user's workspaces, the one joined first first. */
  async membershipsOf(db: Executor, userId: string): Promise<MembershipRow[]> {
    return db
      .select()
      .from(memberships)
      .where(eq(memberships.userId, userId))
      .orderBy(asc(memberships.createdAt), asc(memberships.tenantId));
  },

  /** Adds the membership; an existing one keeps its role. */
  async addMember(db: Executor, tenantId: string, userId: string, role: TeamRole): Promise<void> {
    await db.insert(memberships).values({ tenantId, userId, role }).onConflictDoNothing();
  },

  async setRole(db: Executor, tenantId: string, userId: string, role: TeamRole): Promise<MembershipRow | undefined> {
    const rows = await db
      .update(memberships)
      .set({ role })
      .where(and(eq(memberships.tenantId, tenantId), eq(memberships.userId, userId)))
      .returning();
    return rows[0];
  },

  async removeMember(db: Executor, tenantId: string, userId: string): Promise<MembershipRow | undefined> {
    const rows = await db
      .delete(memberships)
      .where(and(eq(memberships.tenantId, tenantId), eq(memberships.userId, userId)))
      .returning();
    return rows[0];
  },

  /** Serialises, per workspace until the transaction ends, changes that can take an owner away. */
  async lockOwners(tx: Executor, tenantId: string): Promise<void> {
    await tx.execute(sql`select pg_advisory_xact_lock(${OWNERS_LOCK}, hashtext(${tenantId}))`);
  },

  async countOwners(db: Executor, tenantId: string): Promise<number> {
    const rows = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(memberships)
      .where(and(eq(memberships.tenantId, tenantId), eq(memberships.role, 'owner')));
    return rows[0]?.n ?? 0;
  },

  async invites(db: Executor, tenantId: string): Promise<TeamInviteRow[]> {
    return db
      .select()
      .from(teamInvites)
      .where(eq(teamInvites.tenantId, tenantId))
      .orderBy(desc(teamInvites.createdAt), desc(teamInvites.token));
  },

  async insertInvite(db: Executor, row: typeof teamInvites.$inferInsert): Promise<TeamInviteRow> {
    const [created] = await db.insert(teamInvites).values(row).returning();
    return created!;
  },

  async removeInvite(db: Executor, tenantId: string, token: string): Promise<TeamInviteRow | undefined> {
    const rows = await db
      .delete(teamInvites)
      .where(and(eq(teamInvites.tenantId, tenantId), eq(teamInvites.token, token)))
      .returning();
    return rows[0];
  },

  /** Takes an unexpired invite (any workspace: the token names it), so it is used once. */
  async takeInvite(db: Executor, token: string, now: Date): Promise<TeamInviteRow | undefined> {
    const rows = await db
      .delete(teamInvites)
      .where(and(eq(teamInvites.token, token), gt(teamInvites.expiresAt, now)))
      .returning();
    return rows[0];
  },

  async findInvite(db: Executor, token: string): Promise<TeamInviteRow | undefined> {
    return (await db.select().from(teamInvites).where(eq(teamInvites.token, token)).limit(1))[0];
  },
};
