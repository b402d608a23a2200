import { actorOf } from '../../trpc/actor.js';
import { router } from '../../trpc/init.js';
import { adminProcedure, noInput, tenantProcedure } from '../../trpc/procedures.js';
import {
  CreateTemplateInput,
  CreateVersionInput,
  Deleted,
  IdInput,
  PromptTemplate,
  PromptTemplateDetail,
  PromptTemplateList,
  PromptVersion,
  PromptVersionList,
  PublishInput,
  promptsMeta,
} from './schemas.js';

// Prompt templates are free-tier. Any token reads them; changing them (what traffic is sent) takes
// an admin token, as A/B tests do.
export const promptsRouter = router({
  list: tenantProcedure
    .meta(promptsMeta.list)
    .input(noInput)
    .output(PromptTemplateList)
    .query(({ ctx }) => ctx.services.prompts.list(ctx.tenantId)),
  create: adminProcedure
    .meta(promptsMeta.create)
    .input(CreateTemplateInput)
    .output(PromptTemplate)
    .mutation(({ ctx, input }) => ctx.services.prompts.create(ctx.tenantId, actorOf(ctx.principal), input)),
  get: tenantProcedure
    .meta(promptsMeta.get)
    .input(IdInput)
    .output(PromptTemplateDetail)
    .query(({ ctx, input }) => ctx.services.prompts.get(ctx.tenantId, input.id)),
  remove: adminProcedure
    .meta(promptsMeta.remove)
    .input(IdInput)
    .output(Deleted)
    .mutation(({ ctx, input }) => ctx.services.prompts.remove(ctx.tenantId, actorOf(ctx.principal), input.id)),
  listVersions: tenantProcedure
    .meta(promptsMeta.listVersions)
    .input(IdInput)
    .output(PromptVersionList)
    .query(({ ctx, input }) => ctx.services.prompts.listVersions(ctx.tenantId, input.id)),
  createVersion: adminProcedure
    .meta(promptsMeta.createVersion)
    .input(CreateVersionInput)
    .output(PromptVersion)
    .mutation(({ ctx, input }) => ctx.services.prompts.createVersion(ctx.tenantId, actorOf(ctx.principal), input)),
  publish: adminProcedure
    .meta(promptsMeta.publish)
    .input(PublishInput)
    .output(PromptTemplate)
    .mutation(({ ctx, input }) => ctx.services.prompts.publish(ctx.tenantId, actorOf(ctx.principal), input)),
});
