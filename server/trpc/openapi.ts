import { generateOpenApiDocument } from 'trpc-to-openapi';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { VERSION } from '../../contracts/version.js';
import { appRouter } from './router.js';

// The OpenAPI document: every generated REST path plus the hand-written ones (chat, live tap),
// with every error response pointed at the one error body.

const ErrorBody = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['type', 'message'],
      properties: {
        type: {
          type: 'string',
          description: 'auth_error, invalid_request_error, not_found_error, conflict_error, insufficient_tier, ...',
        },
        message: { type: 'string' },
      },
      additionalProperties: true,
    },
  },
} as const;

let extraPaths: ZodOpenApiPathsObject = {};

/** Hand-written routes register their path items here at import time. */
export function registerOpenApiPaths(paths: ZodOpenApiPathsObject): void {
  extraPaths = { ...extraPaths, ...paths };
}

let cached: unknown;

export function openApiDocument(baseUrl = '/'): unknown {
  if (cached) return cached;
  const doc = generateOpenApiDocument(appRouter, {
    title: 'LLM Gateway API',
    description:
      'OpenAI-compatible chat completions with routing, plus the control plane. Errors are {"error": {"type", "message"}}.',
    version: VERSION,
    baseUrl,
    paths: extraPaths,
    securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } },
  }) as {
    components?: { schemas?: Record<string, unknown> };
    paths?: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
  };
  // Point the generated error responses at our error body instead of the library's default.
  doc.components = { ...doc.components, schemas: { ...doc.components?.schemas, Error: ErrorBody } };
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item)) {
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        if (!/^[45]/.test(status) && status !== 'default') continue;
        const description = (response as { description?: string }).description ?? 'Error';
        op.responses![status] = {
          description,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        };
      }
    }
  }
  // Operations that start background work answer 202 (server/http/rest.ts sets the status).
  const accepted = doc.paths?.['/v1/evals/runs']?.post?.responses;
  if (accepted?.['200']) {
    accepted['202'] = accepted['200'];
    delete accepted['200'];
  }
  cached = doc;
  return doc;
}
