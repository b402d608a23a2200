import { z } from 'zod';
import { SpendBy, SpendExportInput } from '../modules/spend/schemas.js';
import { registerOpenApiPaths } from '../trpc/openapi.js';
import { errorResponse } from './chat-openapi.js';
import { SPEND_EXPORT_PATH } from './spend-export.js';

// The hand-written spend export in the OpenAPI document.

registerOpenApiPaths({
  [SPEND_EXPORT_PATH]: {
    get: {
      operationId: 'spend-export',
      tags: ['Spend'],
      summary: 'The /v1/spend/by figures of every dimension, as CSV or JSON (a download)',
      description:
        'Team tier and above; the token and user dimensions are included on Enterprise and above. CSV columns: dimension, key, label, spend_usd, calls, input_tokens, output_tokens, share, previous_spend_usd, change_pct, period_from, period_to.',
      security: [{ bearerAuth: [] }],
      requestParams: { query: SpendExportInput },
      responses: {
        '200': {
          description: 'The export, with Content-Disposition: attachment; filename="spend-<from>-<to>.<format>"',
          content: {
            'text/csv': { schema: z.string() },
            'application/json': {
              schema: z.object({
                period: z.object({ from: z.string(), to: z.string() }),
                dimensions: z.array(SpendBy),
              }),
            },
          },
        },
        '400': errorResponse('A bad query parameter (invalid_request_error)'),
        '401': errorResponse('Missing or invalid token (auth_error)'),
        '402': errorResponse('The workspace tier does not include spend (insufficient_tier)'),
        '500': errorResponse('An unexpected failure (internal_error)'),
        '503': errorResponse('Shutting down, or the token cannot be checked (service_unavailable)'),
      },
    },
  },
});
