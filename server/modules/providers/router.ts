import { z } from 'zod';
import { GatewayError } from '../../lib/errors.js';
import { router } from '../../trpc/init.js';
import { actorOf } from '../../trpc/actor.js';
import { adminProcedure, noInput, tenantProcedure } from '../../trpc/procedures.js';
import { ModelStatsList, OpenAiModel, OpenAiModelList, PricingTable, ProviderList, providerMeta } from './schemas.js';

export const providersRouter = router({
  list: tenantProcedure
    .meta(providerMeta.list)
    .input(noInput)
    .output(ProviderList)
    .query(({ ctx }) => ctx.services.providers.list(ctx.tenantId)),
  reload: adminProcedure
    .meta(providerMeta.reload)
    .input(noInput)
    .output(ProviderList)
    .mutation(({ ctx }) => ctx.services.providers.reload(ctx.tenantId, actorOf(ctx.principal))),
  modelStats: tenantProcedure
    .meta(providerMeta.stats)
    .input(noInput)
    .output(ModelStatsList)
    .query(({ ctx }) => ctx.services.providers.stats(ctx.tenantId)),
  pricing: tenantProcedure
    .meta(providerMeta.pricing)
    .input(noInput)
    .output(PricingTable)
    .query(({ ctx }) => ctx.services.providers.pricing(ctx.services.pricing.list(ctx.tenantId).items)),
  models: tenantProcedure
    .meta(providerMeta.models)
    .input(noInput)
    .output(OpenAiModelList)
    .query(({ ctx }) => ctx.services.providers.openAiModels(ctx.tenantId)),
  // After the static /v1/models/... paths: REST paths match in the order procedures are defined.
  model: tenantProcedure
    .meta(providerMeta.model)
    .input(z.object({ model: z.string().min(1).max(300) }))
    .output(OpenAiModel)
    .query(({ ctx, input }) => ctx.services.providers.openAiModel(ctx.tenantId, decodePathParam(input.model))),
});

/** The REST adapter passes path parameters still URL-encoded (the slash of provider/model is %2F). */
function decodePathParam(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw new GatewayError('invalid_request_error', 'model: malformed URL encoding');
  }
}
