import { z } from 'zod';
import { MAX_ID_CHARS } from '../../lib/ids.js';
import { rest } from '../../trpc/meta.js';

const tag = 'Prompt rollouts';

/** The tolerated drop of the canary's average score against stable (1-5 scale) when criteria leave it out. */
export const DEFAULT_MAX_AVG_SCORE_DELTA = 0.25;
export const DEFAULT_MIN_SAMPLES = 20;
export const DEFAULT_WINDOW_HOURS = 24;

export const RolloutStatus = z.enum(['active', 'promoted', 'reverted']);

export const Criteria = z.object({
  min_samples: z.number().int().describe('Scored requests each arm needs before an automatic decision'),
  max_avg_score_delta: z.number().describe('Tolerated drop of the canary average score versus stable (1-5 scale)'),
  window_hours: z.number().describe('Rolling window for sample counting'),
});

export const CriteriaInput = z
  .strictObject({
    min_samples: z.number().int().min(1).max(100_000).default(DEFAULT_MIN_SAMPLES),
    max_avg_score_delta: z.number().min(0).max(4).default(DEFAULT_MAX_AVG_SCORE_DELTA),
    window_hours: z
      .number()
      .positive()
      .max(24 * 90)
      .default(DEFAULT_WINDOW_HOURS),
  })
  .describe(
    `Defaults: min_samples ${DEFAULT_MIN_SAMPLES}, max_avg_score_delta ${DEFAULT_MAX_AVG_SCORE_DELTA}, window_hours ${DEFAULT_WINDOW_HOURS}`,
  );

export const Rollout = z.object({
  id: z.string().describe('Rollout id (ro_...)'),
  templateId: z.string(),
  stableVersionId: z.string().describe('The version published when the rollout started'),
  canaryVersionId: z.string(),
  rolloutPct: z.number().describe('Percent of resolves sent to the canary'),
  criteria: Criteria,
  status: RolloutStatus,
  completionReason: z.string().nullable(),
  createdAt: z.string(),
  completedAt: z.string().nullable(),
});

export const Arm = z.object({
  versionId: z.string(),
  samples: z.number().int().describe('Requests with feedback in the window that carried this prompt_version_id'),
  avgScore: z.number().nullable(),
});
export const RolloutDetail = Rollout.extend({
  windowStart: z.string().describe('Samples count from here: the later of the rollout start and now - window_hours'),
  stable: Arm,
  canary: Arm,
});
export const RolloutList = z.object({ items: z.array(Rollout) });

export const CreateRolloutInput = z.strictObject({
  templateId: z.string().min(1).max(MAX_ID_CHARS),
  canaryVersionId: z.string().min(1).max(MAX_ID_CHARS),
  rolloutPct: z.number().gt(0).lt(100).describe('Percent of resolves sent to the canary: more than 0, less than 100'),
  criteria: CriteriaInput.default({
    min_samples: DEFAULT_MIN_SAMPLES,
    max_avg_score_delta: DEFAULT_MAX_AVG_SCORE_DELTA,
    window_hours: DEFAULT_WINDOW_HOURS,
  }),
});
export const ListRolloutsInput = z
  .strictObject({ status: RolloutStatus.optional().describe('Only rollouts in this state') })
  .optional();
export const IdInput = z.object({ id: z.string().min(1).max(MAX_ID_CHARS) });
export const ResolveInput = z.strictObject({
  templateId: z.string().min(1).max(MAX_ID_CHARS),
  variables: z
    .record(z.string().max(200), z.string().max(100_000))
    .optional()
    .describe('Values for the {{variables}} of the messages (those left out stay as written)'),
});
export const Resolved = z.object({
  versionId: z.string().describe('Pass it as prompt_version_id on the chat call'),
  messages: z.array(z.unknown()),
  rolloutId: z.string().optional(),
  variant: z.enum(['stable', 'canary']).optional(),
});

export const rolloutsMeta = {
  create: rest('POST', '/v1/rollouts', tag, 'Start a canary rollout of a prompt version', {
    admin: true,
    errors: [404, 409],
    description:
      'The stable arm is the published version. A template with an active rollout, or without a published version, answers 409.',
  }),
  list: rest('GET', '/v1/rollouts', tag, 'Rollouts, newest first, with their completion reasons'),
  get: rest('GET', '/v1/rollouts/{id}', tag, 'A rollout with per-arm sample counts and average scores in its window'),
  resolve: rest(
    'POST',
    '/v1/rollouts/resolve/{templateId}',
    tag,
    'The prompt to send now: canary or stable by weight',
    {
      errors: [409],
      description:
        'Without an active rollout: the published version. A template without a published version answers 409. Pass the versionId as prompt_version_id on the chat call.',
    },
  ),
  promote: rest('POST', '/v1/rollouts/{id}/promote', tag, 'Promote the canary now (it becomes the published version)', {
    admin: true,
    errors: [409],
  }),
  revert: rest('POST', '/v1/rollouts/{id}/revert', tag, 'Revert now (the canary is rejected; stable stays published)', {
    admin: true,
    errors: [409],
  }),
};
