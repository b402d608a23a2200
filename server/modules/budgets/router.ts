import { actorOf } from '../../trpc/actor.js';
import { router } from '../../trpc/init.js';
import { adminProcedure, noInput, requireTier, tenantProcedure } from '../../trpc/procedures.js';
import { Budget, budgetMeta, PutBudgetInput } from './schemas.js';

export const budgetsRouter = router({
  get: tenantProcedure
    .use(requireTier('team'))
    .meta(budgetMeta.get)
    .input(noInput)
    .output(Budget)
    .query(({ ctx }) => ctx.services.budgets.get(ctx.tenantId)),
  put: adminProcedure
    .use(requireTier('team'))
    .meta(budgetMeta.put)
    .input(PutBudgetInput)
    .output(Budget)
    .mutation(({ ctx, input }) => ctx.services.budgets.put(ctx.tenantId, actorOf(ctx.principal), input)),
});
