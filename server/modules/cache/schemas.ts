import { z } from 'zod';
import { rest } from '../../trpc/meta.js';

const tag = 'Cache';

export const ClearCacheInput = z
  .object({
    model: z
      .string()
      .min(3)
      .regex(/^[^/]+\/.+$/, 'use the form provider/model')
      .optional()
      .describe('provider/model: clear only the entries of this routed model (default: all)'),
  })
  .strict()
  .prefault({});

export const ClearCacheResult = z.object({
  deleted: z.number().int().describe('Semantic cache entries deleted'),
  model: z.string().nullable(),
});

export const CacheStats = z.object({
  exact: z.object({
    enabled: z.boolean(),
    ttlSeconds: z.number().int(),
    maxEntriesPerProcess: z.number().int(),
  }),
  semantic: z.object({
    enabled: z.boolean().describe('GATEWAY_SEMANTIC_CACHE_ENABLED'),
    active: z.boolean().describe('enabled and a provider serves the embedding model'),
    embeddingModel: z.string().nullable().describe('provider/model embedding the last user turns'),
    dimensions: z.number().int().nullable().describe('dimensions asked of the model (null: its own)'),
    threshold: z.number().describe('cosine similarity at or above which a stored answer is served'),
    ttlSeconds: z.number().int(),
    maxEntriesPerWorkspace: z.number().int(),
    entries: z.number().int().describe("This workspace's live entries"),
    byModel: z.array(z.object({ provider: z.string(), model: z.string(), entries: z.number().int() })),
  }),
});

export const cacheMeta = {
  stats: rest('GET', '/v1/cache/stats', tag, 'Cache settings and the semantic cache entries of this workspace'),
  clear: rest('DELETE', '/v1/cache', tag, "Clear this workspace's semantic cache (all, or one model's)", {
    admin: true,
    description: 'The exact layer is per process and keyed by hash: its entries (5 minutes at most) are not affected.',
  }),
};
