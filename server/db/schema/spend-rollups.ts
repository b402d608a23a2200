import { bigint, char, numeric, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { tenantId } from './columns.js';

// The spend rollups of `cost_logs`, kept by statement-level triggers on cost_logs (migration
// spend_rollup_triggers) in the transaction that inserts the rows, like the analytics rollups.
// Each holds two grains: 'h' rows per UTC hour and 'd' rows per UTC day, so a window of any length
// reads whole days from 'd' rows, the hours at its ends from 'h' rows and only the partial hours
// from cost_logs. '' stands for a null token, task type or complexity.

const measures = () => ({
  calls: bigint('calls', { mode: 'number' }).notNull().default(0),
  cost: numeric('cost', { mode: 'number' }).notNull().default(0),
  inputTokens: bigint('input_tokens', { mode: 'number' }).notNull().default(0),
  outputTokens: bigint('output_tokens', { mode: 'number' }).notNull().default(0),
});

/** Per tenant, grain, bucket, served (provider, model) and routing cell: spend by provider, model, cell. */
export const spendByCell = pgTable(
  'spend_by_cell',
  {
    tenantId: tenantId(),
    /** 'h': hourly bucket; 'd': daily bucket (UTC). */
    grain: char('grain', { length: 1 }).notNull(),
    bucket: timestamp('bucket', { withTimezone: true, mode: 'date' }).notNull(),
    provider: text('provider').notNull(),
    model: text('model').notNull(),
    taskType: text('task_type').notNull(),
    complexity: text('complexity').notNull(),
    ...measures(),
  },
  (t) => [
    primaryKey({
      name: 'spend_by_cell_pk',
      columns: [t.tenantId, t.grain, t.bucket, t.provider, t.model, t.taskType, t.complexity],
    }),
  ],
);

/** Per tenant, grain, bucket and API token: spend by token (and by user, until sign-in exists). */
export const spendByToken = pgTable(
  'spend_by_token',
  {
    tenantId: tenantId(),
    grain: char('grain', { length: 1 }).notNull(),
    bucket: timestamp('bucket', { withTimezone: true, mode: 'date' }).notNull(),
    tokenId: text('token_id').notNull(),
    ...measures(),
  },
  (t) => [primaryKey({ name: 'spend_by_token_pk', columns: [t.tenantId, t.grain, t.bucket, t.tokenId] })],
);
