import { boolean, index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { tenantId } from './columns.js';

// One row per /v1/chat/completions call that got past auth and validation, cache hits included.
// Narrow on purpose (it grows with every request): no prompt or completion text here.
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
    /** ok | error | client_closed */
    status: text('status').notNull(),
    /** The error.type sent to the client when status is not ok. */
    errorType: text('error_type'),
    abTestId: text('ab_test_id'),
    variant: text('variant'),
    promptVersionId: text('prompt_version_id'),
  },
  (t) => [index('requests_tenant_created_idx').on(t.tenantId, t.createdAt.desc())],
);

export type RequestRow = typeof requests.$inferInsert;
