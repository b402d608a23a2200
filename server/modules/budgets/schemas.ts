import { z } from 'zod';
import { rest } from '../../trpc/meta.js';

const tag = 'Spend';

const Thresholds = z
  .array(z.number().int().min(1).max(1000))
  .max(10)
  .describe(
    'Percentages of the budget whose first crossing each month is recorded in the audit log (e.g. 50, 80, 100)',
  );

export const Budget = z.object({
  monthlyUsd: z.number().nullable().describe('Monthly budget in USD (UTC calendar month); null: no budget'),
  alertThresholds: Thresholds,
  hardStop: z
    .boolean()
    .describe('Refuse chat and embeddings calls with 402 budget_exceeded once the month reaches the budget'),
  month: z.string().describe('The current month, YYYY-MM (UTC)'),
  spentUsd: z
    .number()
    .describe(
      "The month's spend so far: every cost row of the workspace (streamed calls and fallback attempts included)",
    ),
  alertsCrossed: z
    .array(z.object({ thresholdPct: z.number().int(), spentUsd: z.number(), at: z.string() }))
    .describe('Thresholds crossed this month, first crossing each'),
});

export const PutBudgetInput = z.strictObject({
  monthlyUsd: z.number().min(0.0001).max(1e9).nullable().describe('USD per month; null removes the budget'),
  alertThresholds: Thresholds.default([50, 80, 100]),
  hardStop: z.boolean().default(true),
});

export const budgetMeta = {
  get: rest('GET', '/v1/spend/budgets', tag, "The workspace's monthly budget and the month's spend", {
    errors: [402],
    description: 'Needs the team tier or above.',
  }),
  put: rest('PUT', '/v1/spend/budgets', tag, 'Set or remove the monthly budget, its alert thresholds and hard stop', {
    admin: true,
    errors: [402],
    description: 'Needs the team tier or above. Applies to the next call on every node.',
  }),
};
