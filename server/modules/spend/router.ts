import { router } from '../../trpc/init.js';
import { noInput, requireTier, tenantProcedure } from '../../trpc/procedures.js';
import {
  Drift,
  Recommendations,
  RecommendationsInput,
  SpendBy,
  SpendByInput,
  spendMeta,
  Trajectory,
} from './schemas.js';

export const spendRouter = router({
  by: tenantProcedure
    .use(requireTier('team'))
    .meta(spendMeta.by)
    .input(SpendByInput)
    .output(SpendBy)
    .query(({ ctx, input }) => ctx.services.spend.by(ctx.tenantId, ctx.principal.tier, input)),
  trajectory: tenantProcedure
    .use(requireTier('team'))
    .meta(spendMeta.trajectory)
    .input(noInput)
    .output(Trajectory)
    .query(({ ctx }) => ctx.services.spend.trajectory(ctx.tenantId)),
  drift: tenantProcedure
    .use(requireTier('enterprise'))
    .meta(spendMeta.drift)
    .input(noInput)
    .output(Drift)
    .query(({ ctx }) => ctx.services.spend.drift(ctx.tenantId)),
  recommendations: tenantProcedure
    .use(requireTier('enterprise'))
    .meta(spendMeta.recommendations)
    .input(RecommendationsInput)
    .output(Recommendations)
    .query(({ ctx, input }) => ctx.services.spend.recommendations(ctx.tenantId, input)),
});
