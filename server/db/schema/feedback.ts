import { check, index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, isOneOf, tenantId } from './columns.js';

/** user: submitted through the API; judge: the LLM judge. */
export const FEEDBACK_SOURCES = ['user', 'judge'] as const;
export type FeedbackSource = (typeof FEEDBACK_SOURCES)[number];

// Quality feedback on a request, from a user or the LLM judge. The request's routing cell and
// target are copied in at write time, so the adaptive loop and quality reports need no join.
export const feedback = pgTable(
  'feedback',
  {
    id: text('id').primaryKey(),
    tenantId: tenantId(),
    requestId: text('request_id').notNull(),
    /** 1-5. Thumbs up/down are stored as 5/1. */
    score: integer('score').notNull(),
    source: text('source', { enum: FEEDBACK_SOURCES }).notNull(),
    comment: text('comment'),
    provider: text('provider'),
    model: text('model'),
    /** Null when the request bypassed the classifier; such rows are skipped by adaptive learning. */
    taskType: text('task_type'),
    complexity: text('complexity'),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('feedback_tenant_request_source_idx').on(t.tenantId, t.requestId, t.source),
    index('feedback_tenant_created_idx').on(t.tenantId, t.createdAt.desc()),
    index('feedback_tenant_cell_idx').on(t.tenantId, t.taskType, t.complexity, t.provider, t.model),
    check('feedback_source_check', isOneOf(t.source, FEEDBACK_SOURCES)),
  ],
);

export type FeedbackRow = typeof feedback.$inferSelect;
