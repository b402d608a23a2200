import { z } from 'zod';
import { MAX_ID_CHARS } from '../../lib/ids.js';
import { rest } from '../../trpc/meta.js';

const tag = 'Regression detection';

export const OptInInput = z
  .strictObject({
    enabled: z.boolean().optional().describe('On or off; omitted: the opposite of the current state (a toggle)'),
  })
  .optional();
export const OptInState = z.object({ enabled: z.boolean() });

export const RegressionStatus = z.object({
  enabled: z.boolean().describe('Whether the regression-replay job replays this workspace'),
  captureEnabled: z.boolean().describe('Whether exchange capture, which fills the replay bank, is on'),
  replayBankSize: z.number().int().describe('Captured exchanges in the bank (the most recent per cell, up to the cap)'),
  bankCapPerCell: z.number().int(),
  samplePerCell: z.number().int().describe('Exchanges replayed per cell on each run'),
  weeklyReplaySpendUsd: z.number().describe('Cost of the replays and their grading, last 7 days'),
  weeklyReplayCalls: z.number().int(),
  threshold: z.number().describe('Judged drop (1-5 scale) beyond which a cell and model regressed'),
  minSamples: z.number().int(),
});

export const RegressionEvent = z.object({
  id: z.string(),
  taskType: z.string(),
  complexity: z.string(),
  provider: z.string(),
  model: z.string(),
  sampleCount: z.number().int(),
  originalAvgScore: z.number(),
  replayAvgScore: z.number(),
  scoreDelta: z.number().describe('Replay minus original, mean judged score'),
  severity: z.enum(['warning', 'critical']),
  exampleRequestIds: z.array(z.string()).describe('Replayed exchanges that dropped the most'),
  createdAt: z.string(),
  resolved: z.boolean(),
  resolvedAt: z.string().nullable(),
  resolutionNote: z.string().nullable(),
});
export const ListEventsInput = z
  .strictObject({
    unresolvedOnly: z
      .enum(['true', 'false'])
      .optional()
      .transform((v) => v === 'true')
      .describe('true: only unresolved events'),
  })
  .optional();
export const RegressionEventList = z.object({ items: z.array(RegressionEvent) });

export const ResolveInput = z.strictObject({
  id: z.string().min(1).max(MAX_ID_CHARS),
  note: z.string().trim().min(1, 'a note is required').max(2_000),
});

export const regressionMeta = {
  optIn: rest('POST', '/v1/regression/opt-in', tag, 'Turn regression detection on or off', {
    admin: true,
    description:
      'With a body {"enabled": true|false} sets the state; with none, toggles it. Replays draw on captured exchanges: exchange capture (PUT /v1/captures/settings) fills the bank.',
  }),
  status: rest(
    'GET',
    '/v1/regression/status',
    tag,
    'Opt-in state, replay bank size and the weekly spend of the replays',
  ),
  events: rest('GET', '/v1/regression/events', tag, 'Regression events, newest first'),
  resolve: rest('POST', '/v1/regression/events/{id}/resolve', tag, 'Resolve an event, with a note', {
    admin: true,
    errors: [409],
    description: '409 when the event is already resolved.',
  }),
};
