import { z } from 'zod';
import { MAX_ID_CHARS } from '../../lib/ids.js';
import { rest } from '../../trpc/meta.js';

const tag = 'Cost migrations';

export const OptInInput = z
  .strictObject({
    enabled: z.boolean().optional().describe('On or off; omitted: the opposite of the current state (a toggle)'),
  })
  .optional();
export const OptInState = z.object({ enabled: z.boolean() });

export const CostMigrationStatus = z.object({
  enabled: z.boolean().describe('Whether the cycle may migrate cells of this workspace'),
  activeMigrations: z.number().int(),
  projectedMonthlySavingsUsd: z
    .number()
    .describe(
      "Sum over active migrations: the previous model's calls of the last 30 days times the saving per call, less exploration's share",
    ),
  toleranceScore: z.number().describe('How far below the previous model a migrated model may be judged (1-5 scale)'),
  graceDays: z.number(),
});

const Target = z.object({ provider: z.string(), model: z.string() });
export const CostMigration = z.object({
  id: z.string(),
  taskType: z.string(),
  complexity: z.string(),
  from: Target,
  to: Target,
  status: z.enum(['active', 'rolled_back']),
  evidence: z.object({
    fromAvgScore: z.number(),
    fromSamples: z.number(),
    fromCostPerCallUsd: z.number(),
    fromCallsLast30d: z.number(),
    toAvgScore: z.number(),
    toSamples: z.number(),
    toCostPerCallUsd: z.number(),
    tolerance: z.number(),
  }),
  projectedMonthlySavingsUsd: z.number(),
  inGrace: z.boolean().describe('In its grace period: boosted, and rolled back if its judged quality falls'),
  graceUntil: z.string(),
  createdAt: z.string(),
  rolledBackAt: z.string().nullable(),
  rollbackKind: z.enum(['auto', 'manual']).nullable(),
  rollbackReason: z.string().nullable(),
});
export const CostMigrationList = z.object({ items: z.array(CostMigration) });

export const CycleResult = z.object({
  migrated: z.array(CostMigration),
  rolledBack: z.array(CostMigration),
  graceEnded: z.array(z.string()).describe('Ids of migrations whose grace period ended (boost cleared)'),
});

export const RollbackInput = z.strictObject({
  id: z.string().min(1).max(MAX_ID_CHARS),
  reason: z.string().trim().min(1).max(1_000).optional(),
});

export const costMigrationsMeta = {
  optIn: rest('POST', '/v1/cost-migrations/opt-in', tag, 'Turn automatic cost migrations on or off', {
    admin: true,
    description:
      'With a body {"enabled": true|false} sets the state; with none, toggles it. Turning it off leaves active migrations in force (roll them back one by one).',
  }),
  status: rest('GET', '/v1/cost-migrations/status', tag, 'Opt-in state and projected monthly savings'),
  list: rest('GET', '/v1/cost-migrations', tag, 'Active and rolled-back migrations, newest first'),
  run: rest('POST', '/v1/cost-migrations/run', tag, 'Run one migration cycle now', {
    admin: true,
    errors: [409],
    description:
      'Reviews migrations in grace (rolling back any whose judged quality fell below the tolerance) and migrates every cell whose spend recommendation is strong enough. 409 when the workspace has not opted in.',
  }),
  rollback: rest('POST', '/v1/cost-migrations/{id}/rollback', tag, 'Roll a migration back', {
    admin: true,
    errors: [409],
    description: 'Restores the routing the cell had and clears the grace boost. 409 when it is already rolled back.',
  }),
};
