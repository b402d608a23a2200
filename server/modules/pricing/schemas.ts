import { z } from 'zod';
import { rest } from '../../trpc/meta.js';

const tag = 'Providers and models';

/** A rate in USD per million tokens. */
const rate = (what: string) => z.number().min(0).max(100_000).describe(`USD per million ${what}`);

export const SetPriceOverrideInput = z
  .object({
    provider: z
      .string()
      .min(1)
      .max(100)
      .nullable()
      .optional()
      .describe('The serving provider it applies to (as in GET /v1/providers); omitted or null: any provider'),
    model: z.string().min(1).max(300).describe('The model id as the gateway logs it (cost rows, `_gateway.model`)'),
    input: rate('input tokens read afresh'),
    output: rate('output tokens (reasoning included)'),
    cachedInput: rate('input tokens read from the prompt cache')
      .nullable()
      .optional()
      .describe("Omitted: the list price's ratio to the input rate"),
    cacheWrite5m: rate('input tokens written to the prompt cache for 5 minutes')
      .nullable()
      .optional()
      .describe("Omitted: the list price's ratio to the input rate"),
    cacheWrite1h: rate('input tokens written to the prompt cache for 1 hour')
      .nullable()
      .optional()
      .describe("Omitted: the list price's ratio to the input rate"),
  })
  .strict();

export const PriceOverride = z.object({
  provider: z.string().nullable().describe('null: the model on any provider'),
  model: z.string(),
  source: z
    .enum(['workspace', 'deployment'])
    .describe('workspace: set through this API; deployment: GATEWAY_PRICE_OVERRIDES (workspace ones win)'),
  input: z.number(),
  output: z.number(),
  cachedInput: z.number().describe('The rate applied: as set, or derived from the list price'),
  cacheWrite5m: z.number(),
  cacheWrite1h: z.number(),
  asOf: z.string().describe('Date the price was set (YYYY-MM-DD)'),
  updatedAt: z.string().describe('ISO 8601 time the price was set'),
});

export const PriceOverrideList = z.object({
  items: z.array(PriceOverride).describe("The workspace's overrides, then the deployment's"),
});

export const DeletePriceOverrideInput = z
  .object({
    model: z.string().min(1).max(300),
    provider: z.string().min(1).max(100).optional().describe('Omitted: the override that applies on any provider'),
  })
  .strict();

export const DeletedPriceOverride = z.object({
  deleted: z.literal(true),
  provider: z.string().nullable(),
  model: z.string(),
});

export const pricingMeta = {
  list: rest(
    'GET',
    '/v1/models/pricing/overrides',
    tag,
    "Negotiated prices that replace list prices for this workspace's calls (the workspace's and the deployment's)",
  ),
  set: rest(
    'PUT',
    '/v1/models/pricing/overrides',
    tag,
    "Set this workspace's negotiated price for a model (applies to the next call; logged costs stay as they were)",
    { admin: true },
  ),
  remove: rest(
    'DELETE',
    '/v1/models/pricing/overrides',
    tag,
    "Remove this workspace's negotiated price for a model (the list price applies again to the next call)",
    { admin: true, errors: [404] },
  ),
};
