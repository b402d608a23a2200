import { and, desc, eq, getTableColumns, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { auditLogs, type AuditLogRow } from '../../db/schema/index.js';
import { exactTime, olderThan, type Cursor, type KeysetRow } from '../../lib/cursor.js';

export interface AuditQuery {
  limit: number;
  action?: string;
  targetType?: string;
  /** Keyset cursor: rows strictly older than (createdAt, id). */
  before?: Cursor;
}

export const auditRepository = {
  async insert(db: Executor, row: typeof auditLogs.$inferInsert): Promise<void> {
    await db.insert(auditLogs).values(row);
  },

  list(db: Executor, tenantId: string, q: AuditQuery): Promise<Array<AuditLogRow & KeysetRow>> {
    const filters: SQL[] = [eq(auditLogs.tenantId, tenantId)];
    if (q.action) filters.push(eq(auditLogs.action, q.action));
    if (q.targetType) filters.push(eq(auditLogs.targetType, q.targetType));
    if (q.before) filters.push(olderThan(auditLogs.createdAt, auditLogs.id, q.before));
    return db
      .select({ ...getTableColumns(auditLogs), cursorTime: exactTime(auditLogs.createdAt) })
      .from(auditLogs)
      .where(and(...filters))
      .orderBy(desc(auditLogs.createdAt), desc(auditLogs.id))
      .limit(q.limit);
  },
};
