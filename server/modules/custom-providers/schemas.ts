import { z } from 'zod';
import { rest } from '../../trpc/meta.js';

const tag = 'Custom providers';

const usd = z.number().min(0).max(100_000);

export const CustomModelInput = z.strictObject({
  id: z.string().trim().min(1).max(200).describe('The model id the provider takes'),
  inputPerMillionUsd: usd.nullish().describe('USD per million input tokens; unset: unpriced (costed at 0)'),
  outputPerMillionUsd: usd.nullish().describe('USD per million output tokens'),
  vision: z.boolean().default(false),
  tools: z.boolean().default(false),
  json: z.boolean().default(false),
});

const CustomModel = z.object({
  id: z.string(),
  inputPerMillionUsd: z.number().nullable(),
  outputPerMillionUsd: z.number().nullable(),
  vision: z.boolean(),
  tools: z.boolean(),
  json: z.boolean(),
});

export const CustomProvider = z.object({
  id: z.string(),
  name: z.string().describe('The provider part of `provider/model` in chat calls'),
  family: z.enum(['openai-compatible', 'anthropic', 'gemini']).describe('Wire format the endpoint speaks'),
  baseUrl: z.string(),
  maskedKey: z.string().nullable().describe('The last 4 characters of its key; null: no key'),
  models: z.array(CustomModel).describe('Models listed for it, with their prices and capabilities'),
  discover: z.boolean().describe('Its models endpoint is asked for the models it serves'),
  active: z.boolean().describe('It serves at least one model now (on this node)'),
  servedModels: z.array(z.string()).describe('What it serves now: the listed models, or the discovered ones'),
  discoveryError: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const CustomProviderList = z.object({ items: z.array(CustomProvider) });

const Name = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9_-]{0,39}$/,
    'lower-case letters, digits, _ and -, at most 40, starting with a letter or digit',
  );

export const CreateCustomProviderInput = z.strictObject({
  name: Name,
  family: z.enum(['openai-compatible', 'anthropic', 'gemini']).default('openai-compatible'),
  baseUrl: z.string().min(1).max(2000).describe('Where the API is, e.g. https://llm.example.com/v1'),
  key: z.string().trim().min(1).max(1000).nullish().describe('Its API key; stored encrypted (AES-256-GCM)'),
  models: z.array(CustomModelInput).max(500).default([]),
  discover: z.boolean().default(false),
});

export const UpdateCustomProviderInput = z.strictObject({
  id: z.string().min(1).max(64),
  baseUrl: z.string().min(1).max(2000).optional(),
  key: z.string().trim().min(1).max(1000).nullable().optional().describe('null removes the key'),
  models: z.array(CustomModelInput).max(500).optional(),
  discover: z.boolean().optional(),
});

export const CustomProviderIdInput = z.strictObject({ id: z.string().min(1).max(64) });

export const DeletedCustomProvider = z.object({ id: z.string(), deleted: z.literal(true) });

export const customProviderMeta = {
  list: rest('GET', '/v1/admin/providers', tag, "The workspace's own providers"),
  get: rest('GET', '/v1/admin/providers/{id}', tag, 'One custom provider'),
  create: rest(
    'POST',
    '/v1/admin/providers',
    tag,
    'Add an OpenAI-, Anthropic- or Gemini-format endpoint as a provider',
    {
      admin: true,
      errors: [409],
      description:
        'Its base URL must not be a loopback, private, link-local or metadata address (checked again on every connection) unless the operator allows them (GATEWAY_ALLOW_PRIVATE_PROVIDER_URLS).',
    },
  ),
  update: rest(
    'PATCH',
    '/v1/admin/providers/{id}',
    tag,
    "Change a custom provider's address, key, models or discovery",
    {
      admin: true,
    },
  ),
  remove: rest('DELETE', '/v1/admin/providers/{id}', tag, 'Delete a custom provider', { admin: true }),
};
