import { sql } from 'drizzle-orm';
import { check, index, integer, jsonb, pgTable, real, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, isOneOf, tenantId, updatedAt } from './columns.js';

/** published: what resolves answer with; retired: published before; rejected: a reverted canary. */
export const PROMPT_VERSION_STATUSES = ['draft', 'published', 'retired', 'rejected'] as const;
export type PromptVersionStatus = (typeof PROMPT_VERSION_STATUSES)[number];
export const PROMPT_ROLLOUT_STATUSES = ['active', 'promoted', 'reverted'] as const;

// Prompt templates, their numbered versions, and canary rollouts of a version. A template has at
// most one published version (the one resolves answer with outside a rollout).

export const promptTemplates = pgTable(
  'prompt_templates',
  {
    id: text('id').primaryKey(),
    tenantId: tenantId(),
    name: text('name').notNull(),
    description: text('description'),
    publishedVersionId: text('published_version_id'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('prompt_templates_tenant_name_idx').on(t.tenantId, t.name),
    index('prompt_templates_tenant_created_idx').on(t.tenantId, t.createdAt.desc()),
  ],
);

export const promptVersions = pgTable(
  'prompt_versions',
  {
    id: text('id').primaryKey(),
    tenantId: tenantId(),
    templateId: text('template_id')
      .notNull()
      .references(() => promptTemplates.id, { onDelete: 'cascade' }),
    /** 1, 2, 3... within the template. */
    version: integer('version').notNull(),
    /** Chat messages whose text may hold {{variables}}. */
    messages: jsonb('messages').$type<unknown[]>().notNull(),
    variables: jsonb('variables').$type<string[]>().notNull(),
    note: text('note'),
    status: text('status', { enum: PROMPT_VERSION_STATUSES }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('prompt_versions_tenant_template_version_idx').on(t.tenantId, t.templateId, t.version),
    check('prompt_versions_status_check', isOneOf(t.status, PROMPT_VERSION_STATUSES)),
  ],
);

export const promptRollouts = pgTable(
  'prompt_rollouts',
  {
    id: text('id').primaryKey(),
    tenantId: tenantId(),
    templateId: text('template_id')
      .notNull()
      .references(() => promptTemplates.id, { onDelete: 'cascade' }),
    stableVersionId: text('stable_version_id').notNull(),
    canaryVersionId: text('canary_version_id').notNull(),
    rolloutPct: real('rollout_pct').notNull(),
    minSamples: integer('min_samples').notNull(),
    windowHours: real('window_hours').notNull(),
    maxAvgScoreDelta: real('max_avg_score_delta').notNull(),
    status: text('status', { enum: PROMPT_ROLLOUT_STATUSES }).notNull(),
    /** Why it ended: the job's figures, or a manual promote or revert. */
    completionReason: text('completion_reason'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    completedAt: timestamp('completed_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    index('prompt_rollouts_tenant_created_idx').on(t.tenantId, t.createdAt.desc()),
    // Only one active rollout per template, whatever two nodes do at once.
    uniqueIndex('prompt_rollouts_one_active_idx').on(t.tenantId, t.templateId).where(sql`status = 'active'`),
    check('prompt_rollouts_status_check', isOneOf(t.status, PROMPT_ROLLOUT_STATUSES)),
  ],
);

export type PromptTemplateRow = typeof promptTemplates.$inferSelect;
export type PromptVersionRow = typeof promptVersions.$inferSelect;
export type PromptRolloutRow = typeof promptRollouts.$inferSelect;
