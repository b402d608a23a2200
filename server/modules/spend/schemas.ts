import { z } from 'zod';
import { rest } from '../../trpc/meta.js';
import { SPEND_RANGES } from './window.js';

const tag = 'Spend';

export const SPEND_DIMENSIONS = ['provider', 'model', 'cell', 'token', 'user'] as const;
export type SpendDimension = (typeof SPEND_DIMENSIONS)[number];

// Inputs. Strict: an unknown query parameter is a 400 naming it.

const windowFields = {
  range: z
    .enum(SPEND_RANGES)
    .optional()
    .describe('Window ending now: 24h, 7d, 30d or 90d (default 30d). Give either range or from/to.'),
  from: z.string().min(1).optional().describe('Window start, ISO 8601, inclusive (default: to minus 30 days)'),
  to: z.string().min(1).optional().describe('Window end, ISO 8601, exclusive (default: now)'),
};

export const SpendByInput = z
  .object({
    dimension: z
      .enum(SPEND_DIMENSIONS)
      .describe('provider, model, cell (task type/complexity), token, or user (per token until sign-in exists)'),
    ...windowFields,
  })
  .strict();

export const RecommendationsInput = z
  .object({
    tolerance: z.coerce
      .number()
      .min(0)
      .max(4)
      .default(0.25)
      .describe('How far below the current model judged quality (1-5 scale) a cheaper model may score: default 0.25'),
    minSamples: z.coerce
      .number()
      .int()
      .min(1)
      .max(100_000)
      .optional()
      .describe('Judged samples each model needs on the cell (default: GATEWAY_MIN_SAMPLES)'),
  })
  .strict()
  .prefault({});

export const EXPORT_FORMATS = ['csv', 'json'] as const;
export const SpendExportInput = z
  .object({ format: z.enum(EXPORT_FORMATS).default('csv').describe('csv (default) or json'), ...windowFields })
  .strict();

// Outputs.

const usd = (what: string) => z.number().describe(`${what}, USD`);
const Period = z.object({
  from: z.string().describe('Inclusive, ISO 8601'),
  to: z.string().describe('Exclusive, ISO 8601'),
});

export const SpendItem = z.object({
  key: z.string().describe("The dimension's value: provider, provider/model, taskType/complexity, or token id"),
  label: z.string().nullable().describe('A readable name where the key is an id (the token name)'),
  spendUsd: usd('Cost of the calls in the window'),
  calls: z.number().int().describe('Upstream calls (cost_logs rows)'),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  share: z.number().describe('Fraction of the window total, 0-1'),
  previousSpendUsd: usd('Cost in the previous window of equal length'),
  changePct: z.number().nullable().describe('Change against the previous window, percent; null when it had none'),
});

export const SpendBy = z.object({
  dimension: z.enum(SPEND_DIMENSIONS),
  period: Period,
  previousPeriod: Period,
  totalUsd: usd('Total of the window'),
  previousTotalUsd: usd('Total of the previous window'),
  items: z.array(SpendItem).describe('Largest spend first'),
  note: z.string().nullable().describe('How the dimension is counted, where that needs saying'),
});

export const Trajectory = z.object({
  month: z.string().describe('The UTC month, YYYY-MM'),
  monthToDateUsd: usd('Spend since the start of the month'),
  days: z.array(z.object({ date: z.string().describe('YYYY-MM-DD (UTC)'), spendUsd: z.number() })),
  projection: z.object({
    method: z.string().describe('How the projection is made, in words'),
    projectedMonthUsd: usd('Projected spend for the whole month'),
    lowUsd: usd('Lower end of the ~95% band'),
    highUsd: usd('Upper end of the ~95% band'),
    daysElapsed: z.number().describe('Days of the month passed, fractional'),
    daysRemaining: z.number().describe('Days of the month left, fractional'),
  }),
  budget: z
    .object({
      monthlyUsd: z.number(),
      projectedShare: z.number().describe('Projected month spend / budget'),
      spentShare: z.number().describe('Month to date / budget'),
    })
    .nullable()
    .describe('The workspace budget when one is set'),
});

const DriftItem = z.object({
  key: z.string().describe('provider/model, or taskType/complexity'),
  spendUsd: usd('Last 7 days'),
  previousSpendUsd: usd('The 7 days before'),
  changeUsd: usd('spendUsd - previousSpendUsd'),
  calls: z.number().int(),
  previousCalls: z.number().int(),
  volumeUsd: usd('Part of the change from the number of calls, at the earlier cost per call'),
  priceOrMixUsd: usd(
    'Part of the change from the cost per call (price, prompt sizes, or for a cell the mix of models); volumeUsd + priceOrMixUsd = changeUsd',
  ),
});

export const Drift = z.object({
  period: Period,
  previousPeriod: Period,
  byModel: z.array(DriftItem).describe('Largest absolute change first'),
  byCell: z.array(DriftItem).describe('Largest absolute change first'),
});

const ModelEvidence = z.object({
  provider: z.string(),
  model: z.string(),
  avgScore: z.number().describe('Mean judged score on the cell, 1-5'),
  samples: z.number().int().describe('Scores behind avgScore'),
  avgCostPerCallUsd: z.number(),
});

export const Recommendations = z.object({
  tolerance: z.number(),
  minSamples: z.number().int(),
  items: z
    .array(
      z.object({
        taskType: z.string(),
        complexity: z.string(),
        current: ModelEvidence.extend({ callsLast30d: z.number().int() }),
        recommended: ModelEvidence,
        estimatedMonthlySavingsUsd: usd('callsLast30d x (current - recommended cost per call)'),
      }),
    )
    .describe('Largest savings first; cells without enough judged samples on both models are left out'),
});

export const spendMeta = {
  by: rest('GET', '/v1/spend/by', tag, 'Spend by provider, model, routing cell, token or user', {
    errors: [402],
    description: 'Team tier and above; dimension token or user needs Enterprise.',
  }),
  trajectory: rest('GET', '/v1/spend/trajectory', tag, 'Month-to-date spend per day and a month-end projection', {
    errors: [402],
    description: 'Team tier and above.',
  }),
  drift: rest('GET', '/v1/spend/drift', tag, 'Week-over-week spend change per model and cell, split by cause', {
    errors: [402],
    description: 'Enterprise tier and above.',
  }),
  recommendations: rest('GET', '/v1/spend/recommendations', tag, 'Cheaper models with equal judged quality per cell', {
    errors: [402],
    description: 'Enterprise tier and above.',
  }),
};
