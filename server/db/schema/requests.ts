import { bigint, boolean, check, index, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { isOneOf, tenantId } from './columns.js';

/** ok: answered; error: no answer (the error sent instead); client_closed: the client left first. */
export const REQUEST_STATUSES = ['ok', 'error', 'client_closed'] as const;
export type RequestStatus = (typeof REQUEST_STATUSES)[number];
/** The endpoint a request row is of: the analytics count chat rows only. */
export const REQUEST_ENDPOINTS = ['chat', 'embeddings'] as const;
export type RequestEndpoint = (typeof REQUEST_ENDPOINTS)[number];

// One row per /v1/chat/completions call that got past auth and validation, cache hits included,
// and one per /v1/embeddings call (endpoint 'embeddings'), which the analytics leave out: SPEC.md's
// request figures are of chat completions. Narrow on purpose (it grows with every request): no
// prompt or completion text here.
export const requests = pgTable(
  'requests',
  {
    id: text('id').primaryKey(),
    tenantId: tenantId(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    tokenId: text('token_id'),
    /** Milliseconds; 0 for cache hits; time to the last chunk for streams. */
    latencyMs: integer('latency_ms').notNull(),
    /** Null when the classifier was bypassed (user override, A/B test, classification failure). */
    taskType: text('task_type'),
    complexity: text('complexity'),
    routedBy: text('routed_by').notNull(),
    /** The provider and model that served the request (the last one tried when all failed). */
    provider: text('provider'),
    model: text('model'),
    usedFallback: boolean('used_fallback').notNull().default(false),
    usedLlmFallback: boolean('used_llm_fallback').notNull().default(false),
    cached: boolean('cached').notNull().default(false),
    /** exact | semantic, when cached. */
    cacheType: text('cache_type'),
    tokensSavedInput: integer('tokens_saved_input').notNull().default(0),
    tokensSavedOutput: integer('tokens_saved_output').notNull().default(0),
    inputTokens: integer('input_tokens').notNull().default(0),
    outputTokens: integer('output_tokens').notNull().default(0),
    streamed: boolean('streamed').notNull().default(false),
    status: text('status', { enum: REQUEST_STATUSES }).notNull(),
    /** The error.type sent to the client when status is not ok. */
    errorType: text('error_type'),
    abTestId: text('ab_test_id'),
    variant: text('variant'),
    promptVersionId: text('prompt_version_id'),
    /** The endpoint called. */
    endpoint: text('endpoint', { enum: REQUEST_ENDPOINTS }).notNull().default('chat'),
  },
  (t) => [
    index('requests_tenant_created_idx').on(t.tenantId, t.createdAt.desc()),
    // GET /v1/analytics/requests?orderBy=latencyMs walks this index (keyset on latency, id).
    index('requests_tenant_latency_idx').on(t.tenantId, t.latencyMs, t.id),
    check('requests_status_check', isOneOf(t.status, REQUEST_STATUSES)),
    check('requests_endpoint_check', isOneOf(t.endpoint, REQUEST_ENDPOINTS)),
  ],
);

export type RequestRow = typeof requests.$inferInsert;

// Analytics rollups of `requests` (and of `feedback`, attributed to the request it rates). They are
// kept by statement-level triggers on requests and feedback (migration analytics_rollup_triggers),
// so the log writer's batch insert maintains them in the same transaction and analytics reads a
// few hundred rows instead of millions. '' stands for a null provider, model, task type or complexity.
const count = (name: string) => bigint(name, { mode: 'number' }).notNull().default(0);

/** Per tenant, UTC hour (of the request's created_at) and served (provider, model). */
export const analyticsRequestHourly = pgTable(
  'analytics_request_hourly',
  {
    tenantId: tenantId(),
    bucket: timestamp('bucket', { withTimezone: true, mode: 'date' }).notNull(),
    provider: text('provider').notNull(),
    model: text('model').notNull(),
    requests: count('requests'),
    latencySum: count('latency_sum'),
    /** Never lowered when rows are deleted. */
    latencyMax: integer('latency_max').notNull().default(0),
    cacheHits: count('cache_hits'),
    errors: count('errors'),
    feedbackCount: count('feedback_count'),
    feedbackScoreSum: count('feedback_score_sum'),
  },
  (t) => [primaryKey({ name: 'analytics_request_hourly_pk', columns: [t.tenantId, t.bucket, t.provider, t.model] })],
);

/** All-time per tenant and routing cell: served (provider, model), routed_by, task type, complexity. */
export const analyticsRequestTotals = pgTable(
  'analytics_request_totals',
  {
    tenantId: tenantId(),
    provider: text('provider').notNull(),
    model: text('model').notNull(),
    routedBy: text('routed_by').notNull(),
    taskType: text('task_type').notNull(),
    complexity: text('complexity').notNull(),
    requests: count('requests'),
    latencySum: count('latency_sum'),
    fallbackCount: count('fallback_count'),
    fallbackLatencySum: count('fallback_latency_sum'),
    llmFallbackCount: count('llm_fallback_count'),
    exactHits: count('exact_hits'),
    semanticHits: count('semantic_hits'),
    tokensSavedInput: count('tokens_saved_input'),
    tokensSavedOutput: count('tokens_saved_output'),
    inputTokens: count('input_tokens'),
    outputTokens: count('output_tokens'),
    errors: count('errors'),
    streamed: count('streamed'),
    feedbackCount: count('feedback_count'),
    feedbackScoreSum: count('feedback_score_sum'),
  },
  (t) => [
    primaryKey({
      name: 'analytics_request_totals_pk',
      columns: [t.tenantId, t.provider, t.model, t.routedBy, t.taskType, t.complexity],
    }),
  ],
);
