import { router } from '../../trpc/init.js';
import { actorOf } from '../../trpc/actor.js';
import { adminProcedure, noInput, tenantProcedure } from '../../trpc/procedures.js';
import {
  AbTest,
  AbTestDetail,
  AbTestIdInput,
  AbTestList,
  CreateAbTestInput,
  Deleted,
  UpdateAbTestInput,
  abTestMeta,
} from './schemas.js';

export const abTestsRouter = router({
  list: tenantProcedure
    .meta(abTestMeta.list)
    .input(noInput)
    .output(AbTestList)
    .query(async ({ ctx }) => ({ items: await ctx.services.abTests.list(ctx.tenantId) })),
  create: adminProcedure
    .meta(abTestMeta.create)
    .input(CreateAbTestInput)
    .output(AbTest)
    .mutation(({ ctx, input }) => ctx.services.abTests.create(ctx.tenantId, actorOf(ctx.principal), input)),
  get: tenantProcedure
    .meta(abTestMeta.get)
    .input(AbTestIdInput)
    .output(AbTestDetail)
    .query(({ ctx, input }) => ctx.services.abTests.get(ctx.tenantId, input.id)),
  update: adminProcedure
    .meta(abTestMeta.update)
    .input(UpdateAbTestInput)
    .output(AbTest)
    .mutation(({ ctx, input }) => ctx.services.abTests.update(ctx.tenantId, actorOf(ctx.principal), input)),
  remove: adminProcedure
    .meta(abTestMeta.remove)
    .input(AbTestIdInput)
    .output(Deleted)
    .mutation(({ ctx, input }) => ctx.services.abTests.remove(ctx.tenantId, actorOf(ctx.principal), input.id)),
});
