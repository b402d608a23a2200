import { actorOf } from '../../trpc/actor.js';
import { router } from '../../trpc/init.js';
import { adminProcedure, noInput } from '../../trpc/procedures.js';
import {
  CreateCustomProviderInput,
  CustomProvider,
  CustomProviderIdInput,
  CustomProviderList,
  customProviderMeta,
  DeletedCustomProvider,
  UpdateCustomProviderInput,
} from './schemas.js';

export const customProvidersRouter = router({
  list: adminProcedure
    .meta(customProviderMeta.list)
    .input(noInput)
    .output(CustomProviderList)
    .query(({ ctx }) => ctx.services.customProviders.list(ctx.tenantId)),
  get: adminProcedure
    .meta(customProviderMeta.get)
    .input(CustomProviderIdInput)
    .output(CustomProvider)
    .query(({ ctx, input }) => ctx.services.customProviders.get(ctx.tenantId, input.id)),
  create: adminProcedure
    .meta(customProviderMeta.create)
    .input(CreateCustomProviderInput)
    .output(CustomProvider)
    .mutation(({ ctx, input }) => ctx.services.customProviders.create(ctx.tenantId, actorOf(ctx.principal), input)),
  update: adminProcedure
    .meta(customProviderMeta.update)
    .input(UpdateCustomProviderInput)
    .output(CustomProvider)
    .mutation(({ ctx, input }) => ctx.services.customProviders.update(ctx.tenantId, actorOf(ctx.principal), input)),
  remove: adminProcedure
    .meta(customProviderMeta.remove)
    .input(CustomProviderIdInput)
    .output(DeletedCustomProvider)
    .mutation(({ ctx, input }) => ctx.services.customProviders.remove(ctx.tenantId, actorOf(ctx.principal), input.id)),
});
