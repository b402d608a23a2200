import { actorOf } from '../../trpc/actor.js';
import { router } from '../../trpc/init.js';
import { adminProcedure, noInput, tenantProcedure } from '../../trpc/procedures.js';
import {
  CostMigration,
  CostMigrationList,
  CostMigrationStatus,
  CycleResult,
  OptInInput,
  OptInState,
  RollbackInput,
  costMigrationsMeta,
} from './schemas.js';

// Changing routing (opt-in, a cycle, a rollback) takes an admin token; reading, any token.
export const costMigrationsRouter = router({
  optIn: adminProcedure
    .meta(costMigrationsMeta.optIn)
    .input(OptInInput)
    .output(OptInState)
    .mutation(({ ctx, input }) =>
      ctx.services.costMigrations.optIn(ctx.tenantId, actorOf(ctx.principal), input?.enabled),
    ),
  status: tenantProcedure
    .meta(costMigrationsMeta.status)
    .input(noInput)
    .output(CostMigrationStatus)
    .query(({ ctx }) => ctx.services.costMigrations.status(ctx.tenantId)),
  list: tenantProcedure
    .meta(costMigrationsMeta.list)
    .input(noInput)
    .output(CostMigrationList)
    .query(({ ctx }) => ctx.services.costMigrations.list(ctx.tenantId)),
  run: adminProcedure
    .meta(costMigrationsMeta.run)
    .input(noInput)
    .output(CycleResult)
    .mutation(({ ctx }) => ctx.services.costMigrations.runNow(ctx.tenantId)),
  rollback: adminProcedure
    .meta(costMigrationsMeta.rollback)
    .input(RollbackInput)
    .output(CostMigration)
    .mutation(({ ctx, input }) =>
      ctx.services.costMigrations.rollback(ctx.tenantId, actorOf(ctx.principal), input.id, input.reason),
    ),
});
