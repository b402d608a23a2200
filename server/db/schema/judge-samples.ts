import { index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt, tenantId } from './columns.js';

// Live exchanges sampled for the LLM judge, waiting to be graded. Kept apart from the analytics
// tables (they hold prompt text) and deleted as soon as they are graded.
export const judgeSamples = pgTable(
  'judge_samples',
  {
    requestId: text('request_id').primaryKey(),
    tenantId: tenantId(),
    /** The chat messages sent (text parts only). */
    prompt: jsonb('prompt').notNull(),
    answer: text('answer').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('judge_samples_tenant_created_idx').on(t.tenantId, t.createdAt)],
);

export type JudgeSampleRow = typeof judgeSamples.$inferSelect;
