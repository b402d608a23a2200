import { z } from 'zod';
import { rest } from '../../trpc/meta.js';

const tag = 'Exchange capture';

export const CaptureSettings = z.object({
  enabled: z.boolean().describe('Capture answered chat calls of this workspace (off by default)'),
  sampleRate: z.number().describe('Share of answered calls captured, 0-1'),
  retentionDays: z.number().int().describe('Days a captured exchange is kept'),
});
export const UpdateCaptureSettingsInput = z.strictObject({
  enabled: z.boolean().optional(),
  sampleRate: z.number().min(0).max(1).optional(),
  retentionDays: z.number().int().min(1).max(3_650).optional(),
});

export const CapturedExchange = z.object({
  requestId: z.string(),
  messages: z.array(z.unknown()).describe('The chat messages sent (text parts)'),
  answer: z.string().describe('The answer given'),
  createdAt: z.string(),
});
export const ListCapturesInput = z
  .strictObject({ limit: z.coerce.number().int().min(1).max(100).default(20) })
  .optional();
export const CaptureList = z.object({ items: z.array(CapturedExchange) });

export const capturesMeta = {
  getSettings: rest('GET', '/v1/captures/settings', tag, 'Exchange capture settings of the workspace'),
  updateSettings: rest(
    'PUT',
    '/v1/captures/settings',
    tag,
    'Turn exchange capture on or off, set its sampling and retention',
    {
      admin: true,
      description:
        'Captured exchanges (messages and answer of answered chat calls) are kept in their own table for retentionDays, never in the request or cost logs. They can become eval cases (POST /v1/evals/datasets/{id}/cases/from-requests).',
    },
  ),
  list: rest('GET', '/v1/captures', tag, 'The latest captured exchanges', { admin: true }),
};
