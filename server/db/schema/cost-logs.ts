import {
  bigint,
  check,
  index,
  integer,
  numeric,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { isOneOf, tenantId } from './columns.js';

/** ok: the provider answered; error: it failed (a failed attempt that was still billed or counted). */
export const COST_STATUSES = ['ok', 'error'] as const;
export type CostStatus = (typeof COST_STATUSES)[number];

// One row per real upstream provider call (an attempt that got an answer from the provider,
// failed ones included), never for cache hits. cost = each kind of token x its rate (pricing.ts):
// input_tokens counts every input token, of which cached_input_tokens were read from the
// provider's prompt cache and cache_write_5m/1h_tokens written to it (the rest read afresh), each
// billed at its own rate, at the service tier's rates when service_tier names one.
export const costLogs = pgTable(
  'cost_logs',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId(),
    /** The gateway request id (req_...), or eval-<runId>-<caseIndex> for eval runs. */
    requestId: text('request_id').notNull(),
    /** The API token the call was made with; null for the gateway's own calls (judge, evals). */
    tokenId: text('token_id'),
    provider: text('provider').notNull(),
    model: text('model').notNull(),
    inputTokens: integer('input_tokens').notNull(),
    outputTokens: integer('output_tokens').notNull(),
    /** Of input_tokens, those read from the provider's prompt cache. */
    cachedInputTokens: integer('cached_input_tokens').notNull().default(0),
    /** Of input_tokens, those written to the prompt cache for 5 minutes (Anthropic). */
    cacheWrite5mTokens: integer('cache_write_5m_tokens').notNull().default(0),
    /** Of input_tokens, those written to the prompt cache for 1 hour (Anthropic). */
    cacheWrite1hTokens: integer('cache_write_1h_tokens').notNull().default(0),
    /** The service tier the provider reported (OpenAI's default, flex, priority; Anthropic's standard, priority). */
    serviceTier: text('service_tier'),
    /** USD. */
    cost: numeric('cost', { precision: 20, scale: 12, mode: 'number' }).notNull(),
    status: text('status', { enum: COST_STATUSES }).notNull().default('ok'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    /**
     * The row's position among its call's cost rows (0, 1, 2... in the order the upstream calls were
     * made), set by the log writer. Null only for rows inserted by other means (hand-written SQL).
     */
    seq: smallint('seq'),
    /** The routing cell of the request the call served (null: not classified, or the gateway's own call). */
    taskType: text('task_type'),
    complexity: text('complexity'),
  },
  (t) => [
    index('cost_logs_tenant_created_idx').on(t.tenantId, t.createdAt.desc()),
    // The idempotency key of a cost row: a log batch retried after its commit went through but its
    // acknowledgement was lost inserts nothing twice (on conflict do nothing). created_at is part of
    // it because cost-only calls (the judge) reuse their request id when a sample is graded again.
    uniqueIndex('cost_logs_call_idx').on(t.tenantId, t.requestId, t.createdAt, t.seq),
    check('cost_logs_status_check', isOneOf(t.status, COST_STATUSES)),
  ],
);

export type CostLogRow = typeof costLogs.$inferInsert;

// Analytics rollups of `cost_logs`, kept by statement-level triggers on cost_logs (migration
// analytics_rollup_triggers) in the transaction that inserts the rows.
const costMeasures = () => ({
  /** cost_logs rows: real upstream calls. */
  calls: bigint('calls', { mode: 'number' }).notNull().default(0),
  errors: bigint('errors', { mode: 'number' }).notNull().default(0),
  cost: numeric('cost', { mode: 'number' }).notNull().default(0),
  inputTokens: bigint('input_tokens', { mode: 'number' }).notNull().default(0),
  outputTokens: bigint('output_tokens', { mode: 'number' }).notNull().default(0),
});

/** Per tenant, UTC hour (of the cost row's created_at), provider and model. */
export const analyticsCostHourly = pgTable(
  'analytics_cost_hourly',
  {
    tenantId: tenantId(),
    bucket: timestamp('bucket', { withTimezone: true, mode: 'date' }).notNull(),
    provider: text('provider').notNull(),
    model: text('model').notNull(),
    ...costMeasures(),
  },
  (t) => [primaryKey({ name: 'analytics_cost_hourly_pk', columns: [t.tenantId, t.bucket, t.provider, t.model] })],
);

/** All-time per tenant, provider and model. */
export const analyticsCostTotals = pgTable(
  'analytics_cost_totals',
  {
    tenantId: tenantId(),
    provider: text('provider').notNull(),
    model: text('model').notNull(),
    ...costMeasures(),
  },
  (t) => [primaryKey({ name: 'analytics_cost_totals_pk', columns: [t.tenantId, t.provider, t.model] })],
);
