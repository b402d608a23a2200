import { boolean, pgTable, real, text } from 'drizzle-orm/pg-core';
import { tenantId, updatedAt } from './columns.js';

// Per-workspace LLM-judge settings: which model grades (pinned, or the cheapest available when
// null) and what share of live traffic it samples.
export const judgeConfig = pgTable('judge_config', {
  tenantId: tenantId().primaryKey(),
  enabled: boolean('enabled').notNull().default(false),
  /** `provider/model`, or null for the cheapest available model. */
  model: text('model'),
  sampleRate: real('sample_rate').notNull().default(0.05),
  updatedAt: updatedAt(),
});

export type JudgeConfigRow = typeof judgeConfig.$inferSelect;
