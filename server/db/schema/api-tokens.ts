import {
  bigint,
  boolean,
  check,
  index,
  integer,
  numeric,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { createdAt, isOneOf, tenantId } from './columns.js';

export const SPEND_LIMIT_PERIODS = ['all_time', 'monthly'] as const;
export type SpendLimitPeriod = (typeof SPEND_LIMIT_PERIODS)[number];

// Bearer tokens. Only the SHA-256 hash of the secret is stored; `prefix` is for display.
export const apiTokens = pgTable(
  'api_tokens',
  {
    id: text('id').primaryKey(),
    tenantId: tenantId(),
    name: text('name').notNull(),
    prefix: text('prefix').notNull(),
    hash: text('hash').notNull(),
    enabled: boolean('enabled').notNull().default(true),
    /** Admin tokens may manage tokens and other workspace configuration. */
    admin: boolean('admin').notNull().default(false),
    /** The member the token belongs to (multi-tenant mode; null: the workspace's own, e.g. its first admin token). */
    userId: text('user_id'),
    spendLimitUsd: numeric('spend_limit_usd', { precision: 14, scale: 4, mode: 'number' }),
    /** What spendLimitUsd counts: all_time, or monthly (the UTC calendar month, resetting at its start). */
    spendLimitPeriod: text('spend_limit_period', { enum: SPEND_LIMIT_PERIODS }).notNull().default('all_time'),
    rateLimitPerMinute: integer('rate_limit_per_minute'),
    createdAt: createdAt(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    uniqueIndex('api_tokens_hash_idx').on(t.hash),
    index('api_tokens_tenant_idx').on(t.tenantId, t.createdAt),
    check('api_tokens_spend_limit_period_check', isOneOf(t.spendLimitPeriod, SPEND_LIMIT_PERIODS)),
  ],
);

export type ApiTokenRow = typeof apiTokens.$inferSelect;

/**
 * What each token has spent, all time: one row per token that has made a paid call, kept by a
 * statement-level trigger on cost_logs (migration token_spend) in the transaction that inserts the
 * cost rows, so it is exact whichever process logged them. Read with the token to enforce
 * spendLimitUsd. Apart from api_tokens so that the spend upserts and the last-used updates never
 * wait for each other's row locks.
 */
export const tokenSpend = pgTable('token_spend', {
  tokenId: text('token_id').primaryKey(),
  tenantId: tenantId(),
  /** USD. */
  spentUsd: numeric('spent_usd', { precision: 20, scale: 12, mode: 'number' }).notNull().default(0),
  /** cost_logs rows counted. */
  calls: bigint('calls', { mode: 'number' }).notNull().default(0),
});
