import { actorOf } from '../../trpc/actor.js';
import { router } from '../../trpc/init.js';
import { adminProcedure, noInput, tenantProcedure } from '../../trpc/procedures.js';
import {
  ListEventsInput,
  OptInInput,
  OptInState,
  RegressionEvent,
  RegressionEventList,
  RegressionStatus,
  ResolveInput,
  regressionMeta,
} from './schemas.js';

// Turning detection on or off and resolving events take an admin token; reading, any token.
export const regressionRouter = router({
  optIn: adminProcedure
    .meta(regressionMeta.optIn)
    .input(OptInInput)
    .output(OptInState)
    .mutation(({ ctx, input }) => ctx.services.regression.optIn(ctx.tenantId, actorOf(ctx.principal), input?.enabled)),
  status: tenantProcedure
    .meta(regressionMeta.status)
    .input(noInput)
    .output(RegressionStatus)
    .query(({ ctx }) => ctx.services.regression.status(ctx.tenantId)),
  events: tenantProcedure
    .meta(regressionMeta.events)
    .input(ListEventsInput)
    .output(RegressionEventList)
    .query(({ ctx, input }) => ctx.services.regression.events(ctx.tenantId, input?.unresolvedOnly ?? false)),
  resolve: adminProcedure
    .meta(regressionMeta.resolve)
    .input(ResolveInput)
    .output(RegressionEvent)
    .mutation(({ ctx, input }) =>
      ctx.services.regression.resolve(ctx.tenantId, actorOf(ctx.principal), input.id, input.note),
    ),
});
