import { actorOf } from '../../trpc/actor.js';
import { router } from '../../trpc/init.js';
import { adminProcedure, noInput, tenantProcedure } from '../../trpc/procedures.js';
import {
  CreateProviderKeyInput,
  DeletedProviderKey,
  ProviderKey,
  ProviderKeyIdInput,
  ProviderKeyList,
  providerKeyMeta,
} from './schemas.js';

export const providerKeysRouter = router({
  list: tenantProcedure
    .meta(providerKeyMeta.list)
    .input(noInput)
    .output(ProviderKeyList)
    .query(({ ctx }) => ctx.services.providerKeys.list(ctx.tenantId)),
  create: adminProcedure
    .meta(providerKeyMeta.create)
    .input(CreateProviderKeyInput)
    .output(ProviderKey)
    .mutation(({ ctx, input }) => ctx.services.providerKeys.create(ctx.tenantId, actorOf(ctx.principal), input)),
  remove: adminProcedure
    .meta(providerKeyMeta.remove)
    .input(ProviderKeyIdInput)
    .output(DeletedProviderKey)
    .mutation(({ ctx, input }) => ctx.services.providerKeys.remove(ctx.tenantId, actorOf(ctx.principal), input.id)),
});
