import { z } from 'zod';
import { displayName } from '../../lib/display-name.js';
import { MAX_ID_CHARS } from '../../lib/ids.js';
import { rest } from '../../trpc/meta.js';

const tag = 'Prompts';

export const Messages = z
  .array(z.unknown())
  .min(1)
  .max(100)
  .describe('Chat messages, as in a chat-completion request; text may hold {{variables}}');

export const VersionStatus = z
  .enum(['draft', 'published', 'retired', 'rejected'])
  .describe('published: what resolves answer with; retired: published before; rejected: a reverted canary');

export const PromptVersion = z.object({
  id: z.string().describe('Version id (pv_...)'),
  templateId: z.string(),
  version: z.number().int().describe('1, 2, 3... within the template'),
  messages: z.array(z.unknown()),
  variables: z.array(z.string()).describe('The {{variables}} its messages use'),
  note: z.string().nullable(),
  status: VersionStatus,
  createdAt: z.string(),
});

export const PromptTemplate = z.object({
  id: z.string().describe('Template id (pt_...)'),
  name: z.string(),
  description: z.string().nullable(),
  publishedVersionId: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const PromptTemplateDetail = PromptTemplate.extend({ versions: z.array(PromptVersion) });
export const PromptTemplateList = z.object({ items: z.array(PromptTemplate) });
export const PromptVersionList = z.object({ items: z.array(PromptVersion) });

export const IdInput = z.object({ id: z.string().min(1).max(MAX_ID_CHARS) });
export const CreateTemplateInput = z.strictObject({
  name: displayName(200),
  description: z.string().max(2_000).optional(),
  messages: Messages.optional().describe('When given, they become version 1, published at once'),
});
export const CreateVersionInput = z.strictObject({
  id: z.string().min(1).max(MAX_ID_CHARS).describe('Template id'),
  messages: Messages,
  note: z.string().max(2_000).optional(),
});
export const PublishInput = z.strictObject({
  id: z.string().min(1).max(MAX_ID_CHARS).describe('Template id'),
  versionId: z.string().min(1).max(MAX_ID_CHARS),
});
export const Deleted = z.object({ id: z.string(), deleted: z.literal(true) });

export const promptsMeta = {
  list: rest('GET', '/v1/prompts', tag, 'List prompt templates'),
  create: rest('POST', '/v1/prompts', tag, 'Create a prompt template (with messages: version 1, published)', {
    admin: true,
    errors: [409],
    description: 'Template names are unique in a workspace: a taken name answers 409.',
  }),
  get: rest('GET', '/v1/prompts/{id}', tag, 'A template with its versions'),
  remove: rest('DELETE', '/v1/prompts/{id}', tag, 'Delete a template, its versions and rollouts', {
    admin: true,
    errors: [409],
    description: 'A template with an active rollout answers 409: promote or revert it first.',
  }),
  listVersions: rest('GET', '/v1/prompts/{id}/versions', tag, "A template's versions, newest first"),
  createVersion: rest('POST', '/v1/prompts/{id}/versions', tag, 'Add a version (draft)', { admin: true }),
  publish: rest('POST', '/v1/prompts/{id}/versions/{versionId}/publish', tag, 'Publish a version', {
    admin: true,
    errors: [409],
    description:
      'The published version is what resolves answer with outside a rollout. A template with an active rollout answers 409.',
  }),
};
