import { z } from 'zod';
import { rest } from '../../trpc/meta.js';

const tag = 'Provider keys';

export const ProviderKey = z.object({
  id: z.string(),
  provider: z
    .string()
    .describe('A built-in provider (GET /v1/providers names them): openai, anthropic, gemini, groq, ...'),
  baseUrl: z.string().nullable().describe("The workspace's own address for the provider; null: the deployment's"),
  maskedKey: z.string().describe('The last 4 characters of the key; the key itself is never shown again'),
  keyId: z.string().describe('The encryption key the stored key is sealed under (rotation)'),
  verified: z
    .boolean()
    .describe("The provider's models endpoint accepted the key when it was stored (false: it could not be asked)"),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const ProviderKeyList = z.object({ items: z.array(ProviderKey) });

export const CreateProviderKeyInput = z.strictObject({
  provider: z.string().min(1).max(64),
  key: z.string().trim().min(8).max(1000).describe('The API key; stored encrypted (AES-256-GCM)'),
  baseUrl: z
    .string()
    .max(2000)
    .nullish()
    .describe('Another address for the provider (a proxy, a regional endpoint); checked like a custom provider URL'),
});

export const ProviderKeyIdInput = z.strictObject({ id: z.string().min(1).max(64) });

export const DeletedProviderKey = z.object({ id: z.string(), deleted: z.literal(true) });

export const providerKeyMeta = {
  list: rest('GET', '/v1/api-keys', tag, "The workspace's own provider keys, masked"),
  create: rest('POST', '/v1/api-keys', tag, "Store the workspace's key for a provider (replacing its earlier one)", {
    admin: true,
    description:
      "The key is checked against the provider's models endpoint where it has one: a key the provider refuses is a 400. From the next call on, the workspace's calls to that provider use it.",
  }),
  remove: rest('DELETE', '/v1/api-keys/{id}', tag, "Delete a workspace's provider key", { admin: true }),
};
