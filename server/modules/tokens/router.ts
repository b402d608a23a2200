import { router } from '../../trpc/init.js';
import { adminProcedure } from '../../trpc/procedures.js';
import { actorOf } from '../../trpc/actor.js';
import {
  ApiToken,
  CreateTokenInput,
  CreatedApiToken,
  Deleted,
  ListTokensInput,
  TokenIdInput,
  TokenList,
  UpdateTokenInput,
  tokenMeta,
} from './schemas.js';

export const tokensRouter = router({
  list: adminProcedure
    .meta(tokenMeta.list)
    .input(ListTokensInput)
    .output(TokenList)
    .query(async ({ ctx, input }) => ({ items: await ctx.services.tokens.list(ctx.tenantId, input?.userId) })),
  create: adminProcedure
    .meta(tokenMeta.create)
    .input(CreateTokenInput)
    .output(CreatedApiToken)
    .mutation(({ ctx, input }) =>
      ctx.services.tokens.create(ctx.tenantId, actorOf(ctx.principal), input, ctx.principal.userId),
    ),
  update: adminProcedure
    .meta(tokenMeta.update)
    .input(UpdateTokenInput)
    .output(ApiToken)
    .mutation(({ ctx, input }) => ctx.services.tokens.update(ctx.tenantId, actorOf(ctx.principal), input)),
  remove: adminProcedure
    .meta(tokenMeta.remove)
    .input(TokenIdInput)
    .output(Deleted)
    .mutation(({ ctx, input }) => ctx.services.tokens.remove(ctx.tenantId, actorOf(ctx.principal), input.id)),
});
