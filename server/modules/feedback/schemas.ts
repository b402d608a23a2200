import { FEEDBACK_SOURCES } from '../../db/schema/feedback.js';
import { MAX_ID_CHARS } from '../../lib/ids.js';
import { z } from 'zod';
import { rest } from '../../trpc/meta.js';

const tag = 'Feedback and quality';

export const SubmitFeedbackInput = z
  .object({
    requestId: z
      .string()
      .min(1)
      .max(MAX_ID_CHARS)
      .optional()
      .describe('The X-Gateway-Request-Id of the call being rated (or give it as request_id)'),
    request_id: z
      .string()
      .min(1)
      .max(MAX_ID_CHARS)
      .optional()
      .describe('The same id under the name SPEC gives it; give requestId or request_id'),
    score: z.number().int().min(1).max(5).optional().describe('Quality score 1-5'),
    thumbs: z.enum(['up', 'down']).optional().describe('Alternative to score: up counts as 5, down as 1'),
    comment: z.string().max(2000).optional(),
  })
  .strict()
  .refine((v) => v.requestId !== undefined || v.request_id !== undefined, {
    message: 'give the request id as requestId or request_id',
    path: ['requestId'],
  })
  .refine((v) => v.requestId === undefined || v.request_id === undefined || v.requestId === v.request_id, {
    message: 'requestId and request_id name different requests: give one of them',
    path: ['request_id'],
  })
  .refine((v) => (v.score === undefined) !== (v.thumbs === undefined), {
    message: 'give exactly one of score (1-5) or thumbs (up|down)',
    path: ['score'],
  });

export const Feedback = z.object({
  id: z.string(),
  requestId: z.string(),
  score: z.number().int().describe('1-5'),
  source: z.enum(FEEDBACK_SOURCES).describe('user: submitted through the API; judge: the LLM judge'),
  comment: z.string().nullable(),
  provider: z.string().nullable().describe('Provider that served the rated request'),
  model: z.string().nullable(),
  taskType: z
    .string()
    .nullable()
    .describe('Routing cell of the request; null when the classifier was bypassed (such feedback is not learned from)'),
  complexity: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const ListFeedbackInput = z
  .object({
    limit: z.coerce.number().int().min(1).max(500).default(100),
    cursor: z.string().optional(),
    requestId: z.string().max(MAX_ID_CHARS).optional(),
    source: z.enum(FEEDBACK_SOURCES).optional(),
  })
  .strict();
export const FeedbackPage = z.object({ items: z.array(Feedback), nextCursor: z.string().nullable() });

const QualityRow = z.object({
  avgScore: z.number().nullable().describe('Average score 1-5; null without feedback'),
  feedbackCount: z.number().int(),
  userCount: z.number().int(),
  judgeCount: z.number().int(),
});
export const QualityByModel = z.object({
  items: z.array(QualityRow.extend({ provider: z.string(), model: z.string() })),
});
export const QualityByCell = z.object({
  items: z.array(
    QualityRow.extend({ taskType: z.string(), complexity: z.string(), provider: z.string(), model: z.string() }),
  ),
  minSamples: z
    .number()
    .int()
    .describe("Feedback count from which a model's own scores drive adaptive routing in a cell"),
});
export const TrendInput = z
  .object({
    range: z.enum(['24h', '7d', '30d']).default('7d').describe('24h: hourly buckets; 7d, 30d: daily buckets'),
    provider: z.string().optional(),
    model: z.string().optional(),
  })
  .strict();
export const QualityTrend = z.object({
  range: z.string(),
  bucket: z.enum(['hour', 'day']),
  points: z.array(
    z.object({ bucketStart: z.string(), avgScore: z.number().nullable(), feedbackCount: z.number().int() }),
  ),
});

export const JudgeConfig = z.object({
  enabled: z.boolean().describe('Whether the judge scores a sample of live traffic'),
  model: z.string().nullable().describe('`provider/model` of the grader; null picks the cheapest available model'),
  sampleRate: z.number().min(0).max(1).describe('Share of eligible live requests sent to the judge'),
  effectiveModel: z.string().nullable().describe('The model the judge would use now'),
});
export const UpdateJudgeConfigInput = z
  .object({
    enabled: z.boolean().optional(),
    model: z.string().min(3).nullable().optional(),
    sampleRate: z.number().min(0).max(1).optional(),
  })
  .strict();

export const feedbackMeta = {
  submit: rest(
    'POST',
    '/v1/feedback',
    tag,
    'Rate a request 1-5 (or thumbs up/down); rating the same request again replaces the score',
    {
      errors: [404],
      description: "A request id that is not one of this workspace's answers 404.",
    },
  ),
  list: rest('GET', '/v1/feedback', tag, 'List feedback, newest first'),
  byModel: rest('GET', '/v1/feedback/quality/by-model', tag, 'Average score and count per (provider, model)'),
  byCell: rest('GET', '/v1/feedback/quality/by-cell', tag, 'Average score and count per routing cell and model'),
  trend: rest('GET', '/v1/feedback/quality/trend', tag, 'Average score over time'),
  getJudge: rest('GET', '/v1/feedback/judge/config', tag, 'LLM judge configuration'),
  putJudge: rest('PUT', '/v1/feedback/judge/config', tag, 'Change the LLM judge configuration', {
    admin: true,
    errors: [404],
    description: 'A pinned `model` that no provider serves answers 404.',
  }),
};
