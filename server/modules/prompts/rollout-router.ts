import { actorOf } from '../../trpc/actor.js';
import { router } from '../../trpc/init.js';
import { adminProcedure, tenantProcedure } from '../../trpc/procedures.js';
import {
  CreateRolloutInput,
  IdInput,
  ListRolloutsInput,
  ResolveInput,
  Resolved,
  Rollout,
  RolloutDetail,
  RolloutList,
  rolloutsMeta,
} from './rollout-schemas.js';

// Prompt rollouts are free-tier. Resolving is for any token (apps call it before each chat call);
// starting, promoting and reverting change what traffic gets, so they take an admin token.
export const rolloutsRouter = router({
  create: adminProcedure
    .meta(rolloutsMeta.create)
    .input(CreateRolloutInput)
    .output(Rollout)
    .mutation(({ ctx, input }) => ctx.services.rollouts.create(ctx.tenantId, actorOf(ctx.principal), input)),
  list: tenantProcedure
    .meta(rolloutsMeta.list)
    .input(ListRolloutsInput)
    .output(RolloutList)
    .query(({ ctx, input }) => ctx.services.rollouts.list(ctx.tenantId, input?.status)),
  get: tenantProcedure
    .meta(rolloutsMeta.get)
    .input(IdInput)
    .output(RolloutDetail)
    .query(({ ctx, input }) => ctx.services.rollouts.get(ctx.tenantId, input.id)),
  resolve: tenantProcedure
    .meta(rolloutsMeta.resolve)
    .input(ResolveInput)
    .output(Resolved)
    .mutation(({ ctx, input }) => ctx.services.rollouts.resolve(ctx.tenantId, input)),
  promote: adminProcedure
    .meta(rolloutsMeta.promote)
    .input(IdInput)
    .output(Rollout)
    .mutation(({ ctx, input }) => ctx.services.rollouts.promote(ctx.tenantId, actorOf(ctx.principal), input.id)),
  revert: adminProcedure
    .meta(rolloutsMeta.revert)
    .input(IdInput)
    .output(Rollout)
    .mutation(({ ctx, input }) => ctx.services.rollouts.revert(ctx.tenantId, actorOf(ctx.principal), input.id)),
});
