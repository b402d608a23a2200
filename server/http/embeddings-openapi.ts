import { z } from 'zod';
import { EmbeddingsBodySchema } from '../gateway/embeddings.js';
import { registerOpenApiPaths } from '../trpc/openapi.js';
import { errorResponse, Gateway } from './chat-openapi.js';
import { EMBEDDINGS_PATH } from './embeddings.js';

// The hand-written embeddings endpoint in the OpenAPI document.

const Embeddings = z.looseObject({
  object: z.literal('list'),
  data: z.array(
    z.object({
      object: z.literal('embedding'),
      index: z.number().int(),
      embedding: z
        .union([z.array(z.number()), z.string()])
        .describe('numbers, or base64 of little-endian float32 when encoding_format is base64'),
    }),
  ),
  model: z.string(),
  usage: z.object({ prompt_tokens: z.number().int(), total_tokens: z.number().int() }),
  _gateway: Gateway,
});

registerOpenApiPaths({
  [EMBEDDINGS_PATH]: {
    post: {
      operationId: 'embeddings',
      tags: ['Embeddings'],
      summary:
        'OpenAI-compatible embeddings from any provider with an embeddings endpoint, with fallback to another provider serving the model',
      security: [{ bearerAuth: [] }],
      requestBody: { required: true, content: { 'application/json': { schema: EmbeddingsBodySchema } } },
      responses: {
        '200': {
          description: 'The embeddings, with _gateway',
          content: { 'application/json': { schema: Embeddings } },
        },
        '400': errorResponse(
          'Invalid body, or a provider without embeddings (invalid_request_error), or input blocked by a guardrail rule (guardrail_error)',
        ),
        '401': errorResponse('Missing or invalid token (auth_error)'),
        '402': errorResponse('The token has spent its spend limit (spend_limit_error)'),
        '404': errorResponse('No registered provider serves the model (not_found_error)'),
        '413': errorResponse('Body too large'),
        '429': errorResponse('Token rate limit reached (rate_limit_error)'),
        '502': errorResponse('Every provider failed (provider_error)'),
        '503': errorResponse(
          'Shutting down, or the token cannot be checked while the database is unreachable (service_unavailable)',
        ),
      },
    },
  },
});
