import { boolean, index, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { createdAt, tenantId, updatedAt } from './columns.js';

// Guardrail rules of a workspace: the four built-in jailbreak rules (seeded on the first
// GET /v1/guardrails, builtin_key set) and custom regex rules.
export const guardrailRules = pgTable(
  'guardrail_rules',
  {
    id: text('id').primaryKey(),
    tenantId: tenantId(),
    name: text('name').notNull(),
    /** 'Jailbreak Detection' for the built-ins; free text for custom rules. */
    group: text('group').notNull(),
    /** builtin | regex */
    type: text('type').notNull(),
    /** Which built-in (instruction_override, ...); null for custom rules. */
    builtinKey: text('builtin_key'),
    pattern: text('pattern').notNull(),
    /** block | flag */
    action: text('action').notNull(),
    enabled: boolean('enabled').notNull(),
    /** js (proved free of catastrophic backtracking) | re2 (linear-time engine); decided when the pattern is saved. */
    engine: text('engine').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('guardrail_rules_tenant_idx').on(t.tenantId, t.createdAt),
    uniqueIndex('guardrail_rules_tenant_builtin_idx')
      .on(t.tenantId, t.builtinKey)
      .where(sql`${t.builtinKey} is not null`),
  ],
);

export type GuardrailRuleRow = typeof guardrailRules.$inferSelect;

// One row per rule that fired on a call (block or flag). Holds the matched snippet (at most 200
// characters), never the prompt.
export const guardrailLogs = pgTable(
  'guardrail_logs',
  {
    id: text('id').primaryKey(),
    tenantId: tenantId(),
    ruleId: text('rule_id').notNull(),
    ruleName: text('rule_name').notNull(),
    /** block | flag */
    action: text('action').notNull(),
    snippet: text('snippet').notNull(),
    requestId: text('request_id').notNull(),
    tokenId: text('token_id'),
    /** chat | embeddings */
    endpoint: text('endpoint').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [index('guardrail_logs_tenant_created_idx').on(t.tenantId, t.createdAt.desc(), t.id.desc())],
);

export type GuardrailLogRow = typeof guardrailLogs.$inferSelect;
