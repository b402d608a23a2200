import { z } from 'zod';
import { ChatBodySchema } from '../gateway/validate.js';
import { registerOpenApiPaths } from '../trpc/openapi.js';
import { CHAT_PATH } from './chat.js';

// The hand-written chat endpoint in the OpenAPI document, next to the generated paths.

export const Gateway = z.object({
  requestId: z.string(),
  provider: z.string(),
  model: z.string(),
  latencyMs: z.number().describe('0 for cache hits; time to the last chunk for streams'),
  cached: z.boolean(),
  cacheType: z.enum(['exact', 'semantic']).optional(),
  cost: z.number().describe('USD'),
  routing: z.object({
    taskType: z.string().nullable(),
    complexity: z.string().nullable(),
    routedBy: z.enum(['classification', 'routing-hint', 'user-override', 'ab-test', 'adaptive', 'exploration']),
    usedFallback: z.boolean(),
    usedLlmFallback: z.boolean(),
    abTestId: z.string().optional(),
    variant: z.string().optional(),
  }),
});

const Completion = z.looseObject({
  id: z.string(),
  object: z.literal('chat.completion'),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(
    z.looseObject({
      index: z.number().int(),
      message: z.looseObject({ role: z.literal('assistant'), content: z.string().nullable() }),
      finish_reason: z.string().nullable(),
    }),
  ),
  usage: z.object({
    prompt_tokens: z.number().int(),
    completion_tokens: z.number().int(),
    total_tokens: z.number().int(),
  }),
  _gateway: Gateway,
});

export const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

registerOpenApiPaths({
  [CHAT_PATH]: {
    post: {
      operationId: 'chat-completions',
      tags: ['Chat'],
      summary: 'OpenAI-compatible chat completion, routed, cached, with fallback; SSE when stream is true',
      security: [{ bearerAuth: [] }],
      requestBody: { required: true, content: { 'application/json': { schema: ChatBodySchema } } },
      responses: {
        '200': {
          description:
            'A chat completion (application/json), or Server-Sent Events of chat.completion.chunk frames ending with [DONE] when stream is true; the last data frame carries _gateway',
          content: { 'application/json': { schema: Completion }, 'text/event-stream': { schema: { type: 'string' } } },
        },
        '400': errorResponse(
          'Invalid body (invalid_request_error), or input blocked by a guardrail rule (guardrail_error: the message and X-Gateway-Guardrail name the rule)',
        ),
        '401': errorResponse('Missing or invalid token (auth_error)'),
        '402': errorResponse('The token has spent its spend limit (spend_limit_error)'),
        '404': errorResponse('No registered provider serves the model (not_found_error)'),
        '413': errorResponse('Body too large'),
        '429': errorResponse('Token rate limit reached (rate_limit_error)'),
        '502': errorResponse(
          'Every provider failed (provider_error) or no structured-output capable model (no_capable_provider)',
        ),
        '503': errorResponse(
          'Shutting down, or the token cannot be checked while the database is unreachable (service_unavailable)',
        ),
      },
    },
  },
});
