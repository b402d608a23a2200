import { GatewayError } from '../../lib/errors.js';
import { router } from '../../trpc/init.js';
import { noInput, tenantProcedure } from '../../trpc/procedures.js';
import type { AnalyticsService } from './service.js';
import {
  CacheSavings,
  CostsByModel,
  CostsByProvider,
  CostTimeseries,
  ListRequestsInput,
  ModelsCompare,
  ModelsCompareInput,
  Overview,
  Pipeline,
  RequestPage,
  RoutingDistribution,
  RoutingStats,
  Timeseries,
  TimeseriesInput,
  analyticsMeta as meta,
} from './schemas.js';

/** The service from the container (services.analytics). */
function analytics(ctx: { services: object }): AnalyticsService {
  const service = (ctx.services as { analytics?: AnalyticsService }).analytics;
  if (!service) throw new GatewayError('internal_error', 'analytics service is not configured');
  return service;
}

export const analyticsRouter = router({
  overview: tenantProcedure
    .meta(meta.overview)
    .input(noInput)
    .output(Overview)
    .query(({ ctx }) => analytics(ctx).overview(ctx.tenantId)),
  cacheSavings: tenantProcedure
    .meta(meta.cacheSavings)
    .input(noInput)
    .output(CacheSavings)
    .query(({ ctx }) => analytics(ctx).cacheSavings(ctx.tenantId)),
  costsByProvider: tenantProcedure
    .meta(meta.costsByProvider)
    .input(noInput)
    .output(CostsByProvider)
    .query(({ ctx }) => analytics(ctx).costsByProvider(ctx.tenantId)),
  costsByModel: tenantProcedure
    .meta(meta.costsByModel)
    .input(noInput)
    .output(CostsByModel)
    .query(({ ctx }) => analytics(ctx).costsByModel(ctx.tenantId)),
  costTimeseries: tenantProcedure
    .meta(meta.costTimeseries)
    .input(TimeseriesInput)
    .output(CostTimeseries)
    .query(({ ctx, input }) => analytics(ctx).costTimeseries(ctx.tenantId, input)),
  timeseries: tenantProcedure
    .meta(meta.timeseries)
    .input(TimeseriesInput)
    .output(Timeseries)
    .query(({ ctx, input }) => analytics(ctx).timeseries(ctx.tenantId, input)),
  routingStats: tenantProcedure
    .meta(meta.routingStats)
    .input(noInput)
    .output(RoutingStats)
    .query(({ ctx }) => analytics(ctx).routingStats(ctx.tenantId)),
  routingDistribution: tenantProcedure
    .meta(meta.routingDistribution)
    .input(noInput)
    .output(RoutingDistribution)
    .query(({ ctx }) => analytics(ctx).routingDistribution(ctx.tenantId)),
  pipeline: tenantProcedure
    .meta(meta.pipeline)
    .input(noInput)
    .output(Pipeline)
    .query(({ ctx }) => analytics(ctx).pipeline(ctx.tenantId)),
  modelsCompare: tenantProcedure
    .meta(meta.modelsCompare)
    .input(ModelsCompareInput)
    .output(ModelsCompare)
    .query(({ ctx, input }) => analytics(ctx).modelsCompare(ctx.tenantId, input)),
  requests: tenantProcedure
    .meta(meta.requests)
    .input(ListRequestsInput)
    .output(RequestPage)
    .query(({ ctx, input }) => analytics(ctx).requests(ctx.tenantId, input)),
});
