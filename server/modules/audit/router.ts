import { router } from '../../trpc/init.js';
import { adminProcedure, requireTier } from '../../trpc/procedures.js';
import { AuditLogPage, ListAuditLogsInput, listAuditLogsMeta } from './schemas.js';

export const auditRouter = router({
  // Admin only: the log shows every token's id, name, admin flag and limits, which only admin
  // tokens may otherwise see.
  list: adminProcedure
    .use(requireTier('team'))
    .meta(listAuditLogsMeta)
    .input(ListAuditLogsInput)
    .output(AuditLogPage)
    .query(({ ctx, input }) => ctx.services.audit.list(ctx.tenantId, input)),
});
