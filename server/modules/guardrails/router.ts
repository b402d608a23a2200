import { actorOf } from '../../trpc/actor.js';
import { router } from '../../trpc/init.js';
import { adminProcedure, noInput, tenantProcedure } from '../../trpc/procedures.js';
import {
  CreateGuardrailInput,
  GuardrailDeleted,
  GuardrailIdInput,
  GuardrailList,
  GuardrailLogPage,
  GuardrailRule,
  guardrailMeta,
  ListGuardrailLogsInput,
  UpdateGuardrailInput,
} from './schemas.js';

export const guardrailsRouter = router({
  list: tenantProcedure
    .meta(guardrailMeta.list)
    .input(noInput)
    .output(GuardrailList)
    .query(async ({ ctx }) => ({ items: await ctx.services.guardrails.list(ctx.tenantId) })),
  create: adminProcedure
    .meta(guardrailMeta.create)
    .input(CreateGuardrailInput)
    .output(GuardrailRule)
    .mutation(({ ctx, input }) => ctx.services.guardrails.create(ctx.tenantId, actorOf(ctx.principal), input)),
  update: adminProcedure
    .meta(guardrailMeta.update)
    .input(UpdateGuardrailInput)
    .output(GuardrailRule)
    .mutation(({ ctx, input }) => ctx.services.guardrails.update(ctx.tenantId, actorOf(ctx.principal), input)),
  remove: adminProcedure
    .meta(guardrailMeta.remove)
    .input(GuardrailIdInput)
    .output(GuardrailDeleted)
    .mutation(({ ctx, input }) => ctx.services.guardrails.remove(ctx.tenantId, actorOf(ctx.principal), input.id)),
  reset: adminProcedure
    .meta(guardrailMeta.reset)
    .input(GuardrailIdInput)
    .output(GuardrailRule)
    .mutation(({ ctx, input }) => ctx.services.guardrails.reset(ctx.tenantId, actorOf(ctx.principal), input.id)),
  logs: tenantProcedure
    .meta(guardrailMeta.logs)
    .input(ListGuardrailLogsInput)
    .output(GuardrailLogPage)
    .query(({ ctx, input }) => ctx.services.guardrails.logs(ctx.tenantId, input)),
});
