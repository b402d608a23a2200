import { z } from 'zod';
import { router } from '../../trpc/init.js';
import { actorOf } from '../../trpc/actor.js';
import { adminProcedure, tenantProcedure } from '../../trpc/procedures.js';
import { ModelStatsList, OpenAiModelList, PricingTable, ProviderList, providerMeta } from './schemas.js';

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
});
