import { and, desc, eq, lt, or, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { auditLogs, type AuditLogRow } from '../../db/schema/index.js';

export interface AuditQuery {
  limit: number;
  action?: string;
  targetType?: string;
  /** Keyset cursor: rows strictly older than (createdAt, id). */
  before?: { createdAt: Date; id: string };
}

export const auditRepository = {
  async insert(db: Executor, row: typeof auditLogs.$inferInsert): Promise<void> {
    await db.insert(auditLogs).values(row);
  },

  list(db: Executor, tenantId: string, q: AuditQuery): Promise<AuditLogRow[]> {
    const filters: SQL[] = [eq(auditLogs.tenantId, tenantId)];
    if (q.action) filters.push(eq(auditLogs.action, q.action));
    if (q.targetType) filters.push(eq(auditLogs.targetType, q.targetType));
    if (q.before) {
      filters.push(or(lt(auditLogs.createdAt, q.before.createdAt), and(eq(auditLogs.createdAt, q.before.createdAt), lt(auditLogs.id, q.before.id)))!);
    }
    return db.select().from(auditLogs).where(and(...filters)).orderBy(desc(auditLogs.createdAt), desc(auditLogs.id)).limit(q.limit);
  },
};
