import { z } from 'zod';
import { rest } from '../../trpc/meta.js';
import { PriceOverride } from '../pricing/schemas.js';

const tag = 'Providers and models';

export const Provider = z.object({
  name: z.string().describe('Registry name, usable as the provider part of `provider/model`'),
  family: z.enum(['openai-compatible', 'anthropic', 'gemini']).describe('Wire format spoken upstream'),
  source: z
    .enum(['env', 'local', 'simulator', 'workspace', 'custom'])
    .describe(
      "env: credential from the environment; local: a local model server; simulator: the built-in simulator; workspace: the workspace's own key (POST /v1/api-keys); custom: the workspace's own provider (POST /v1/admin/providers)",
    ),
  simulated: z
    .boolean()
    .describe(
      'Played by the built-in simulator: with no provider key set it stands in for openai, anthropic and gemini under their names',
    ),
  baseUrl: z.string(),
  active: z.boolean().describe('Has at least one model after discovery (a local server that is down has none)'),
  modelCount: z.number().int(),
  models: z.array(z.string()),
  discoveredAt: z.string().describe('ISO 8601 time of the last discovery'),
  discoveryError: z
    .string()
    .nullable()
    .describe('Why discovery fell back to the built-in list (or found the server down)'),
  circuit: z.object({
    state: z
      .enum(['closed', 'open', 'half-open'])
      .describe('open: skipped after repeated failures until its cool-down ends'),
    consecutiveFailures: z.number().int(),
    openUntil: z.string().nullable(),
  }),
});

export const ProviderList = z.object({
  items: z.array(Provider),
  activeCount: z.number().int().describe('Providers with at least one model (SPEC.md Analytics semantics 4)'),
});

/** Every rate of one price, USD per million tokens of each kind. */
const RateSet = z.object({
  inputPerMillionUsd: z.number().describe('USD per million input tokens read afresh'),
  outputPerMillionUsd: z.number().describe('USD per million output tokens (reasoning included)'),
  cachedInputPerMillionUsd: z.number().describe("USD per million input tokens read from the provider's prompt cache"),
  cacheWrite5mPerMillionUsd: z
    .number()
    .describe('USD per million input tokens written to the prompt cache for 5 minutes'),
  cacheWrite1hPerMillionUsd: z.number().describe('USD per million input tokens written to the prompt cache for 1 hour'),
});

export const ModelPricing = z.object({
  model: z.string(),
  ...RateSet.shape,
  longContext: RateSet.extend({
    aboveTokens: z.number().int().describe('Prompts longer than this (every input kind together) bill these rates'),
  })
    .nullable()
    .describe('Rates for long prompts, where the provider prices by prompt length'),
  serviceTiers: z
    .record(z.string(), RateSet)
    .describe(
      "Rates per service tier the provider reports (OpenAI's flex, priority); other tiers bill the standard rates",
    ),
  asOf: z.string().describe('Date these rates were taken (YYYY-MM-DD)'),
  tier: z.enum(['small', 'medium', 'large']).nullable(),
  vision: z.boolean(),
  tools: z.boolean(),
  json: z.boolean(),
  structuredOutputReliable: z
    .boolean()
    .describe('In STRUCTURED_OUTPUT_RELIABLE: eligible for structured-output routing'),
});

export const PricingTable = z.object({
  asOf: z.string().describe('Date the list prices were last reviewed'),
  items: z.array(ModelPricing),
  overrides: z
    .array(PriceOverride)
    .describe("Negotiated prices that replace these for this workspace's calls (GET /v1/models/pricing/overrides)"),
});

export const ModelStats = z.object({
  provider: z.string(),
  model: z.string(),
  requests: z.number().int().describe('Request rows served by this model (cache hits included)'),
  errors: z.number().int().describe('Requests that ended in an error'),
  cacheHits: z.number().int(),
  avgLatencyMs: z.number().nullable().describe('Mean latency over request rows (cache hits count as 0)'),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  upstreamCalls: z.number().int().describe('cost_logs rows: real upstream calls, fallback attempts included'),
  totalCostUsd: z.number(),
  cachedInputTokens: z.number().int().describe("Input tokens read from the provider's prompt cache (cost_logs)"),
  cacheWriteTokens: z
    .number()
    .int()
    .describe('Input tokens written to the prompt cache, 5-minute and 1-hour (cost_logs)'),
  promptCacheSavingsUsd: z
    .number()
    .describe(
      "What prompt caching saved at this workspace's current rates: cached reads at the input rate less what they cost, less the cache writes' premium (negative when writes cost more than reads saved)",
    ),
  lastUsedAt: z.string().nullable(),
});

export const ModelStatsList = z.object({ items: z.array(ModelStats) });

export const OpenAiModel = z.object({
  id: z.string().describe('`provider/model`; the bare model id works too'),
  object: z.literal('model'),
  created: z.number().int(),
  owned_by: z.string().describe('The provider serving it'),
});

export const OpenAiModelList = z.object({
  object: z.literal('list'),
  data: z.array(OpenAiModel),
});

export const ReloadResult = ProviderList;

export const providerMeta = {
  list: rest('GET', '/v1/providers', tag, 'Registered providers, their models and circuit state'),
  reload: rest(
    'POST',
    '/v1/providers/reload',
    tag,
    "Re-read provider credentials and rediscover models, without a restart. Single-tenant mode only: in multi-tenant mode the deployment's providers are the operator's (SIGHUP), and this answers 403",
    { admin: true },
  ),
  stats: rest(
    'GET',
    '/v1/models/stats',
    tag,
    'Per (provider, model): traffic, errors, latency, tokens and cost of this workspace',
  ),
  pricing: rest(
    'GET',
    '/v1/models/pricing',
    tag,
    "The pricing table (USD per million tokens of each kind, with their date), capability flags and this workspace's negotiated prices",
  ),
  model: rest(
    'GET',
    '/v1/models/{model}',
    tag,
    'One model of GET /v1/models, by `provider/model` (its slash URL-encoded, as the OpenAI SDKs send it) or a bare model id',
  ),
  models: rest(
    'GET',
    '/v1/models',
    tag,
    'OpenAI-compatible list of every model the providers serve (chat, embeddings and others; pin one as provider/model)',
  ),
};
