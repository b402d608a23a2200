import { index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt, tenantId } from './columns.js';

// Every configuration change, written in the same transaction as the change itself.
export const auditLogs = pgTable(
  'audit_logs',
  {
    id: text('id').primaryKey(),
    tenantId: tenantId(),
    /** token | user | system */
    actorType: text('actor_type').notNull(),
    actorId: text('actor_id'),
    /** e.g. token.create, token.update, token.delete */
    action: text('action').notNull(),
    targetType: text('target_type').notNull(),
    targetId: text('target_id'),
    before: jsonb('before'),
    after: jsonb('after'),
    createdAt: createdAt(),
  },
  (t) => [index('audit_logs_tenant_created_idx').on(t.tenantId, t.createdAt.desc(), t.id.desc())],
);

export type AuditLogRow = typeof auditLogs.$inferSelect;
