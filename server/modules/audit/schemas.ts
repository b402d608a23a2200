import { z } from 'zod';
import { rest } from '../../trpc/meta.js';

export const Actor = z.object({
  type: z.enum(['token', 'user', 'system']).describe('Who made the change'),
  id: z.string().nullable().describe('Token or user id; null for the system'),
});

export const AuditLogEntry = z.object({
  id: z.string(),
  actor: Actor,
  action: z.string().describe('What was done, e.g. token.create, token.update, token.delete'),
  targetType: z.string().describe('Kind of object changed, e.g. token'),
  targetId: z.string().nullable(),
  before: z.unknown().nullable().describe('Summary of the object before the change (secrets omitted)'),
  after: z.unknown().nullable().describe('Summary of the object after the change (secrets omitted)'),
  createdAt: z.string().describe('ISO 8601 timestamp'),
});

export const ListAuditLogsInput = z
  .object({
    limit: z.coerce.number().int().min(1).max(500).default(100).describe('Page size (1-500, default 100)'),
    cursor: z.string().optional().describe('nextCursor of the previous page'),
    action: z.string().optional().describe('Only this action'),
    targetType: z.string().optional().describe('Only this target type'),
  })
  .strict();

export const AuditLogPage = z.object({
  items: z.array(AuditLogEntry),
  nextCursor: z.string().nullable().describe('Pass as cursor for the next page; null at the end'),
});

export const listAuditLogsMeta = rest('GET', '/v1/audit-logs', 'Audit', 'List configuration changes, newest first', {
  admin: true,
  errors: [402],
  description:
    'Admin tokens only (the log shows token ids, names, admin flags and limits); needs the team tier or above.',
});
