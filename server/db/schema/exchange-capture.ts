import { boolean, index, integer, jsonb, pgTable, primaryKey, real, text, timestamp } from 'drizzle-orm/pg-core';
import { createdAt, tenantId } from './columns.js';

// Opt-in capture of live exchanges (the prompt sent and the answer given), per workspace and
// sampled, for eval cases saved from the request log (and replay banks). Prompt text lives here
// only, with its own retention: never in requests or cost_logs.

export const exchangeCaptureSettings = pgTable('exchange_capture_settings', {
  tenantId: tenantId().primaryKey(),
  enabled: boolean('enabled').notNull().default(false),
  /** Share of answered chat calls captured, 0-1. */
  sampleRate: real('sample_rate').notNull().default(1),
  /** Days a captured exchange is kept. */
  retentionDays: integer('retention_days').notNull().default(30),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

export const capturedExchanges = pgTable(
  'captured_exchanges',
  {
    tenantId: tenantId(),
    requestId: text('request_id').notNull(),
    /** The chat messages sent (text parts only). */
    messages: jsonb('messages').$type<unknown[]>().notNull(),
    answer: text('answer').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: 'captured_exchanges_pk', columns: [t.tenantId, t.requestId] }),
    index('captured_exchanges_tenant_created_idx').on(t.tenantId, t.createdAt),
  ],
);

export type CapturedExchangeRow = typeof capturedExchanges.$inferSelect;
export type ExchangeCaptureSettingsRow = typeof exchangeCaptureSettings.$inferSelect;
