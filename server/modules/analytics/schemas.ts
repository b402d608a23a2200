import { REQUEST_ENDPOINTS, REQUEST_STATUSES } from '../../db/schema/requests.js';
import { z } from 'zod';
import { rest } from '../../trpc/meta.js';
import { RANGES } from './time.js';

const tag = 'Analytics';

// Inputs. Query values arrive as strings over REST: numbers use z.coerce, enums list their
// accepted values in the 400 message. Every input object may be omitted over tRPC (prefault).

const Range = (def: (typeof RANGES)[number]) =>
  z
    .enum(RANGES)
    .default(def)
    .describe(
      `Window ending now: 1h, 6h, 24h (hourly buckets), 7d or 30d (daily buckets, UTC); default ${def}. The start is inclusive.`,
    );

// Strict, as every control-plane input: an unknown field (`from`, a typo) is a 400 naming it, not a
// silently different window.
export const TimeseriesInput = z
  .object({ range: Range('24h') })
  .strict()
  .prefault({});
export const ModelsCompareInput = z
  .object({ range: Range('7d') })
  .strict()
  .prefault({});

export const REQUEST_ORDER_BY = ['createdAt', 'latencyMs'] as const;
export const ListRequestsInput = z
  .object({
    endpoint: z
      .enum(['chat', 'embeddings'])
      .default('chat')
      .describe('Calls of POST /v1/chat/completions (default) or of POST /v1/embeddings'),
    orderBy: z
      .enum(REQUEST_ORDER_BY)
      .default('createdAt')
      .describe('Sort key: createdAt (default) or latencyMs; ties are broken by request id'),
    order: z.enum(['asc', 'desc']).default('desc').describe('Sort direction (default desc: newest or slowest first)'),
    limit: z.coerce.number().int().min(1).max(500).default(50).describe('Page size, 1-500 (default 50)'),
    cursor: z
      .string()
      .min(1)
      .optional()
      .describe('nextCursor of the previous page (only valid with the same orderBy and order)'),
  })
  .strict()
  .prefault({});

// Outputs.

const usd = (what: string) => z.number().describe(`${what}, USD`);
const count = (what: string) => z.number().int().describe(what);
const nullableText = (what: string) => z.string().nullable().describe(what);

export const Overview = z.object({
  totalRequests: count('Request rows of this workspace: every chat completion that got past auth, cache hits included'),
  totalCostUsd: usd('Sum of cost over every upstream call (cost_logs)'),
  avgLatencyMs: z.number().describe('Mean latency over request rows, cache hits counting as 0; 0 without requests'),
  activeProviders: count('Registered providers with at least one model after discovery'),
  tokensSaved: count('Input plus output tokens served from the cache instead of a provider'),
  tokensSavedInput: count('Input (prompt) tokens saved by cache hits'),
  tokensSavedOutput: count('Output (completion) tokens saved by cache hits'),
  cacheHits: count('Requests answered from the cache (exact and semantic)'),
  upstreamCalls: count('Real upstream provider calls (cost_logs rows), fallback attempts included'),
  errors: count('Requests that did not end with status ok (errors and client disconnects)'),
});

const CacheModelSavings = z.object({
  provider: nullableText('Provider recorded on the cached requests'),
  model: nullableText('Model recorded on the cached requests'),
  hits: count('Cache hits (exact plus semantic)'),
  exactHits: count('Exact-match cache hits'),
  semanticHits: count('Semantic cache hits'),
  tokensSavedInput: count('Input tokens saved'),
  tokensSavedOutput: count('Output tokens saved'),
  tokensSaved: count('Input plus output tokens saved'),
  estimatedSavingsUsd: usd("The saved tokens at this model's list price (0 for models without a price)"),
});

export const CacheSavings = z.object({
  totalRequests: count('All request rows of this workspace (the hit-rate denominator)'),
  hits: count('Cache hits, exact plus semantic'),
  exactHits: count('Exact-match cache hits'),
  semanticHits: count('Semantic cache hits'),
  hitRate: z.number().describe('(exact + semantic hits) / total requests, all time; 0 without requests'),
  exactHitRate: z.number().describe('Exact hits / total requests'),
  semanticHitRate: z.number().describe('Semantic hits / total requests'),
  tokensSavedInput: count('Input tokens saved by cache hits'),
  tokensSavedOutput: count('Output tokens saved by cache hits'),
  tokensSaved: count('Input plus output tokens saved'),
  estimatedSavingsUsd: usd('Sum of estimatedSavingsUsd over byModel'),
  byModel: z.array(CacheModelSavings).describe('Per (provider, model) over rows with cached = true, most hits first'),
});

const CostFigures = {
  totalCostUsd: usd('Sum of cost over the upstream calls'),
  inputTokens: count('Input tokens billed'),
  outputTokens: count('Output tokens billed'),
  upstreamCalls: count('Upstream calls (cost_logs rows), failed attempts included'),
  failedCalls: count('Upstream calls with status error'),
};

export const CostsByProvider = z.object({
  totalCostUsd: usd('All-time spend of this workspace'),
  items: z
    .array(z.object({ provider: z.string().describe('Provider name'), ...CostFigures }))
    .describe('All time, highest spend first'),
});

export const CostsByModel = z.object({
  totalCostUsd: usd('All-time spend of this workspace'),
  items: z
    .array(
      z.object({
        provider: z.string().describe('Provider name'),
        model: z.string().describe('Model id'),
        ...CostFigures,
        avgCostUsd: usd('totalCostUsd / upstreamCalls: the average per upstream call (cache hits never cost)'),
      }),
    )
    .describe('All time, highest spend first'),
});

const WindowFields = {
  range: z.enum(RANGES).describe('The requested range'),
  bucket: z.enum(['hour', 'day']).describe('Bucket size: hour for ranges up to 24h, day (UTC) otherwise'),
  start: z.string().describe('ISO 8601 start of the window (now minus the range), inclusive'),
  end: z.string().describe('ISO 8601 time the window was computed (now)'),
};

export const CostTimeseries = z.object({
  ...WindowFields,
  providers: z.array(z.string()).describe('Every provider with spend in the window; each bucket has an entry for each'),
  totalCostUsd: usd('Spend over the whole window'),
  buckets: z
    .array(
      z.object({
        bucketStart: z
          .string()
          .describe(
            'ISO 8601 start of the bucket (aligned to the UTC hour or day); the first bucket only counts rows at or after start',
          ),
        totalCostUsd: usd('Spend in the bucket'),
        byProvider: z.record(z.string(), z.number()).describe('Spend in the bucket per provider, USD (0 when none)'),
      }),
    )
    .describe('Every bucket of the window in time order, empty ones included with zeros'),
});

export const Timeseries = z.object({
  ...WindowFields,
  buckets: z
    .array(
      z.object({
        bucketStart: z
          .string()
          .describe(
            'ISO 8601 start of the bucket (aligned to the UTC hour or day); the first bucket only counts rows at or after start',
          ),
        requests: count('Request rows created in the bucket'),
        avgLatencyMs: z.number().describe('Mean latency in the bucket (cache hits count as 0); 0 for an empty bucket'),
        p50LatencyMs: z.number().describe('Approximation: the mean latency'),
        p95LatencyMs: z.number().describe('Approximation: mean + 0.8 x (max - mean)'),
        p99LatencyMs: z.number().describe('Approximation: the maximum latency'),
        totalCostUsd: usd('Spend of the upstream calls made in the bucket (cost_logs)'),
      }),
    )
    .describe('Every bucket of the window in time order, empty ones included with zeros'),
});

const RoutedByFigures = z.object({
  routedBy: z.string().describe('classification, routing-hint, user-override, ab-test, adaptive or exploration'),
  requests: count('Requests routed this way'),
  share: z.number().describe('requests / total requests'),
  avgLatencyMs: z.number().describe('Mean latency of these requests (cache hits count as 0)'),
  fallbackCount: count('Of these, requests that fell back to another target'),
  cacheHits: count('Of these, requests answered from the cache'),
});

export const RoutingStats = z.object({
  totalRequests: count('All request rows of this workspace'),
  byRoutedBy: z.array(RoutedByFigures).describe('Per routing decision source, most requests first'),
  classifiedRequests: count('Requests with a task type (the classifier ran)'),
  unclassifiedRequests: count('Requests that bypassed the classifier (task type null)'),
  classifierShare: z.number().describe('Share of requests routed by classification or a routing hint'),
  fallbackCount: count('Requests that used a fallback target'),
  fallbackRate: z.number().describe('fallbackCount / total requests'),
  llmFallbackCount: count('Requests whose classification fell back to the LLM classifier'),
  cacheHits: count('Requests answered from the cache'),
  cacheHitRate: z.number().describe('cacheHits / total requests'),
  errors: count('Requests that did not end with status ok'),
  errorRate: z.number().describe('errors / total requests'),
  explorationRate: z.number().describe('Configured exploration rate (GATEWAY_EXPLORATION_RATE)'),
});

const DistributionEntry = (key: z.ZodType, what: string) =>
  z.object({
    value: key.describe(what),
    requests: count('Requests with this value'),
    share: z.number().describe('requests / total requests'),
  });

export const RoutingDistribution = z.object({
  totalRequests: count('All request rows of this workspace'),
  byTaskType: z
    .array(DistributionEntry(z.string().nullable(), 'Task type; null when the classifier was bypassed'))
    .describe('Most requests first'),
  byComplexity: z
    .array(DistributionEntry(z.string().nullable(), 'Complexity; null when the classifier was bypassed'))
    .describe('Most requests first'),
  byRoutedBy: z.array(DistributionEntry(z.string(), 'Routing decision source')).describe('Most requests first'),
  byProvider: z
    .array(DistributionEntry(z.string().nullable(), 'Provider that served (null when none was reached)'))
    .describe('Most requests first'),
  byModel: z
    .array(
      z.object({
        provider: nullableText('Provider that served'),
        model: nullableText('Model that served'),
        requests: count('Requests served by this model'),
        share: z.number().describe('requests / total requests'),
      }),
    )
    .describe('Most requests first'),
  cells: z
    .array(
      z.object({
        taskType: nullableText('Task type (null: classifier bypassed)'),
        complexity: nullableText('Complexity (null: classifier bypassed)'),
        routedBy: z.string().describe('Routing decision source'),
        provider: nullableText('Provider that served'),
        model: nullableText('Model that served'),
        requests: count('Requests in this combination'),
        share: z.number().describe('requests / total requests'),
        avgLatencyMs: z.number().describe('Mean latency (cache hits count as 0)'),
      }),
    )
    .describe('Every (task type, complexity, routed by, provider, model) combination seen, most requests first'),
});

const Stage = z.object({
  active: z.boolean().describe('Whether the stage currently takes part in routing'),
  count: count('Requests that went through (or were decided by) this stage'),
  avgLatencyMs: z.number().describe('Mean latency of those requests (cache hits count as 0); 0 without requests'),
});

export const Pipeline = z.object({
  totalRequests: count('All request rows of this workspace'),
  stages: z
    .object({
      classifier: Stage.describe('routed_by classification or routing-hint; always active'),
      userOverride: Stage.describe('routed_by user-override (an explicit provider/model); always active'),
      abTest: Stage.describe('routed_by ab-test; active while any A/B test has status active'),
      adaptive: Stage.describe('routed_by adaptive; active once any feedback has been submitted'),
      exploration: Stage.describe('routed_by exploration; active when the exploration rate is above 0'),
      fallback: Stage.describe('Requests with used_fallback; always active'),
      providers: Stage.describe(
        'The final upstream call: requests not answered from the cache that reached a provider; always active',
      ),
    })
    .describe('Per routing stage'),
  explorationRate: z.number().describe('Configured exploration rate (GATEWAY_EXPLORATION_RATE)'),
  activeAbTests: count('A/B tests with status active'),
  feedbackCount: count('Feedback rows of this workspace, kept when log retention deletes the requests they rate'),
  active_ab_tests: count('Same as activeAbTests (the name SPEC.md uses)'),
  feedback_count: count('Same as feedbackCount (the name SPEC.md uses)'),
});

export const ModelsCompare = z.object({
  range: z.enum(RANGES).describe('The requested range'),
  start: z.string().describe('ISO 8601 start of the window (now minus the range), inclusive'),
  end: z.string().describe('ISO 8601 time the window was computed (now)'),
  items: z
    .array(
      z.object({
        provider: nullableText('Provider'),
        model: nullableText('Model'),
        requests: count('Request rows served by this model in the window (cache hits included)'),
        avgLatencyMs: z.number().describe('Mean latency of those requests (cache hits count as 0); 0 without requests'),
        totalCostUsd: usd('Spend of upstream calls to this model in the window'),
        upstreamCalls: count('Upstream calls to this model in the window'),
        avgScore: z.number().nullable().describe('Mean feedback score (1-5) on those requests; null without feedback'),
        feedbackCount: count('Feedback rows on those requests'),
      }),
    )
    .describe('Every (provider, model) with requests or spend in the window, most requests first'),
});

export const RequestItem = z.object({
  id: z.string().describe('Request id (X-Gateway-Request-Id)'),
  createdAt: z.string().describe('ISO 8601 time the request arrived'),
  provider: nullableText('Provider that served (or was tried last)'),
  model: nullableText('Model that served (or was tried last)'),
  taskType: nullableText('Task type; null when the classifier was bypassed'),
  complexity: nullableText('Complexity; null when the classifier was bypassed'),
  routedBy: z.string().describe('Routing decision source'),
  usedFallback: z.boolean().describe('Whether a fallback target served'),
  cached: z.boolean().describe('Answered from the cache'),
  cacheType: nullableText('exact or semantic when cached'),
  streamed: z.boolean().describe('Streaming response'),
  status: z.enum(REQUEST_STATUSES).describe('ok, error or client_closed'),
  errorType: nullableText('error.type sent to the client when status is not ok'),
  latencyMs: count('Milliseconds; 0 for cache hits; time to the last chunk for streams'),
  inputTokens: count('Input tokens of the served call'),
  outputTokens: count('Output tokens of the served call'),
  tokensSaved: count('Input plus output tokens saved (cache hits only)'),
  costUsd: usd("Sum of the cost of this request's upstream calls"),
  abTestId: nullableText('A/B test that routed it'),
  variant: nullableText('A/B variant'),
  endpoint: z.enum(REQUEST_ENDPOINTS).describe('The endpoint called'),
});

export const RequestPage = z.object({
  items: z.array(RequestItem).describe('One page in the requested order'),
  nextCursor: z
    .string()
    .nullable()
    .describe('Pass as cursor (with the same orderBy and order) for the next page; null at the end'),
});

export const analyticsMeta = {
  overview: rest(
    'GET',
    '/v1/analytics/overview',
    tag,
    'Totals: requests, cost, average latency, active providers, tokens saved',
  ),
  cacheSavings: rest(
    'GET',
    '/v1/analytics/cache/savings',
    tag,
    'Cache hit rates (exact and semantic) and savings by model',
  ),
  costsByProvider: rest(
    'GET',
    '/v1/analytics/costs/by-provider',
    tag,
    'All-time spend, tokens and upstream calls per provider',
  ),
  costsByModel: rest(
    'GET',
    '/v1/analytics/costs/by-model',
    tag,
    'All-time spend, tokens, upstream calls and average cost per (provider, model)',
  ),
  costTimeseries: rest(
    'GET',
    '/v1/analytics/timeseries/cost-by-provider',
    tag,
    'Spend per bucket per provider over a range',
  ),
  timeseries: rest(
    'GET',
    '/v1/analytics/timeseries',
    tag,
    'Per bucket: requests, average and approximate percentile latency, spend',
  ),
  routingStats: rest(
    'GET',
    '/v1/analytics/routing/stats',
    tag,
    'Routing statistics: decision sources, fallback, cache and classifier shares',
  ),
  routingDistribution: rest(
    'GET',
    '/v1/analytics/routing/distribution',
    tag,
    'Requests grouped by task type, complexity, routed by, provider and model',
  ),
  pipeline: rest(
    'GET',
    '/v1/analytics/pipeline',
    tag,
    'Per routing stage: whether active, request count and average latency',
  ),
  modelsCompare: rest(
    'GET',
    '/v1/analytics/models/compare',
    tag,
    'Per (provider, model) over a range: requests, latency, spend and feedback quality',
  ),
  requests: rest(
    'GET',
    '/v1/analytics/requests',
    tag,
    "Request log, keyset-paged, ordered by createdAt or latencyMs, with each request's cost",
  ),
};
