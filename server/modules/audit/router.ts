import { router } from '../../trpc/init.js';
import { requireTier, tenantProcedure } from '../../trpc/procedures.js';
import { AuditLogPage, ListAuditLogsInput, listAuditLogsMeta } from './schemas.js';

export const auditRouter = router({
  list: tenantProcedure
    .use(requireTier('team'))
    .meta(listAuditLogsMeta)
    .input(ListAuditLogsInput)
    .output(AuditLogPage)
    .query(({ ctx, input }) => ctx.services.audit.list(ctx.tenantId, input)),
});
