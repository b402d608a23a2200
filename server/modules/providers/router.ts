import { z } from 'zod';
import { GatewayError } from '../../lib/errors.js';
import { router } from '../../trpc/init.js';
import { actorOf } from '../../trpc/actor.js';
import { adminProcedure, tenantProcedure } from '../../trpc/procedures.js';
import { ModelStatsList, OpenAiModel, OpenAiModelList, PricingTable, ProviderList, providerMeta } from './schemas.js';

const NoInput = z.object({}).optional();

export const providersRouter = router({
  list: tenantProcedure.meta(providerMeta.list).input(NoInput).output(ProviderList).query(({ ctx }) => ctx.services.providers.list()),
  reload: adminProcedure
    .meta(providerMeta.reload)
    .input(NoInput)
    .output(ProviderList)
    .mutation(({ ctx }) => ctx.services.providers.reload(ctx.tenantId, actorOf(ctx.principal))),
  modelStats: tenantProcedure.meta(providerMeta.stats).input(NoInput).output(ModelStatsList).query(({ ctx }) => ctx.services.providers.stats(ctx.tenantId)),
  pricing: tenantProcedure.meta(providerMeta.pricing).input(NoInput).output(PricingTable).query(({ ctx }) => ctx.services.providers.pricing()),
  models: tenantProcedure.meta(providerMeta.models).input(NoInput).output(OpenAiModelList).query(({ ctx }) => ctx.services.providers.openAiModels()),
  // After the static /v1/models/... paths: REST paths match in the order procedures are defined.
  model: tenantProcedure
    .meta(providerMeta.model)
    .input(z.object({ model: z.string().min(1).max(300) }))
    .output(OpenAiModel)
    .query(({ ctx, input }) => ctx.services.providers.openAiModel(decodePathParam(input.model))),
});

/** The REST adapter passes path parameters still URL-encoded (the slash of provider/model is %2F). */
function decodePathParam(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw new GatewayError('invalid_request_error', 'model: malformed URL encoding');
  }
}
