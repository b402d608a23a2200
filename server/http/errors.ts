import type { ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../lib/logger.js';
import { GatewayError, errorBody } from '../lib/errors.js';
import { toGatewayError } from '../trpc/errors.js';
import { openApiDocument } from '../trpc/openapi.js';
import { existingRequestId, setRequestIdHeaders } from './request-id.js';

// Every error outside the /trpc transport (which has its own format) leaves as {"error": {"type",
// "message"}} with the SPEC.md status.

/** Plain node API, so the hand-written fast paths and Express share it. */
export function sendError(res: ServerResponse, err: GatewayError): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = JSON.stringify(errorBody(err));
  res.statusCode = err.status;
  const requestId = existingRequestId(res);
  if (requestId !== undefined) setRequestIdHeaders(res, requestId);
  if (err.retryAfterMs !== undefined) {
    res.setHeader('retry-after', String(Math.max(1, Math.ceil(err.retryAfterMs / 1000))));
    res.setHeader('retry-after-ms', String(Math.round(err.retryAfterMs)));
  }
  if (err.retryable === false) res.setHeader('x-should-retry', 'false');
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(body));
  res.end(body);
}

/** Logs internal errors with their cause (never the request body) and answers with the typed body. */
export function reportError(logger: Logger, res: ServerResponse, raw: unknown): void {
  const err = toGatewayError(raw);
  if (err.status >= 500) logger.error({ err: err.cause ?? err, requestId: existingRequestId(res) }, 'request failed');
  sendError(res, err);
}

/** The last handler: 405 with `Allow` for a known path called with another method, 404 otherwise. */
export function notFoundHandler(req: Request, res: Response): void {
  const allowed = allowedMethods(req.path);
  // A documented method that still got here (a malformed path parameter, say) is not a method problem.
  if (allowed.length === 0 || allowed.includes(req.method))
    return sendError(res, new GatewayError('not_found_error', `No route for ${req.method} ${req.path}`));
  res.setHeader('Allow', allowed.join(', '));
  sendError(
    res,
    new GatewayError(
      'invalid_request_error',
      `Method ${req.method} is not allowed on ${req.path} (allowed: ${allowed.join(', ')})`,
      { status: 405 },
    ),
  );
}

interface KnownPath {
  pattern: RegExp;
  methods: string[];
}

/** Served by Express itself, outside the OpenAPI document. */
const UNDOCUMENTED_PATHS: Record<string, string[]> = { '/openapi.json': ['GET'] };

let knownPaths: KnownPath[] | undefined;

/** Every path of the OpenAPI document (generated and hand-written routes alike), built on first use. */
function loadKnownPaths(): KnownPath[] {
  const doc = openApiDocument() as { paths?: Record<string, Record<string, unknown>> };
  const methodsByPath: Record<string, string[]> = { ...UNDOCUMENTED_PATHS };
  for (const [path, item] of Object.entries(doc.paths ?? {}))
    methodsByPath[path] = Object.keys(item).map((m) => m.toUpperCase());
  return Object.entries(methodsByPath).map(([path, methods]) => ({ pattern: pathPattern(path), methods }));
}

/** `/v1/ab-tests/{id}` as a regular expression where each parameter is one path segment. */
function pathPattern(path: string): RegExp {
  const source = path
    .split(/\{[^}]+\}/)
    .map((literal) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^/]+');
  return new RegExp(`^${source}$`);
}

function allowedMethods(path: string): string[] {
  knownPaths ??= loadKnownPaths();
  const methods = new Set<string>();
  for (const known of knownPaths) if (known.pattern.test(path)) for (const m of known.methods) methods.add(m);
  return [...methods];
}

/** Express's error handler: body-parser failures (malformed JSON, too large, bad charset) and anything thrown. */
export function errorHandler(logger: Logger) {
  return (err: unknown, _req: Request, res: Response, _next: NextFunction): void => {
    const e = err as { type?: string; status?: number; message?: string };
    if (e?.type === 'entity.parse.failed')
      return sendError(res, new GatewayError('invalid_request_error', 'Request body is not valid JSON'));
    if (e?.type === 'entity.too.large')
      return sendError(res, new GatewayError('invalid_request_error', 'Request body too large', { status: 413 }));
    if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500) {
      return sendError(
        res,
        new GatewayError('invalid_request_error', e.message ?? 'Bad request', { status: e.status }),
      );
    }
    reportError(logger, res, err);
  };
}
