import type { ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../lib/logger.js';
import { GatewayError, errorBody } from '../lib/errors.js';
import { toGatewayError } from '../trpc/errors.js';
import { existingRequestId } from './request-id.js';

// Every error on every path leaves as {"error": {"type", "message"}} with the SPEC.md status.

/** Plain node API, so the hand-written fast paths and Express share it. */
export function sendError(res: ServerResponse, err: GatewayError): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = JSON.stringify(errorBody(err));
  res.statusCode = err.status;
  const requestId = existingRequestId(res);
  if (requestId !== undefined && !res.hasHeader('x-gateway-request-id')) res.setHeader('X-Gateway-Request-Id', requestId);
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

export function notFoundHandler(req: Request, res: Response): void {
  sendError(res, new GatewayError('not_found_error', `No route for ${req.method} ${req.path}`));
}

/** Express's error handler: body-parser failures (malformed JSON, too large, bad charset) and anything thrown. */
export function errorHandler(logger: Logger) {
  return (err: unknown, _req: Request, res: Response, _next: NextFunction): void => {
    const e = err as { type?: string; status?: number; message?: string };
    if (e?.type === 'entity.parse.failed') return sendError(res, new GatewayError('invalid_request_error', 'Request body is not valid JSON'));
    if (e?.type === 'entity.too.large') return sendError(res, new GatewayError('invalid_request_error', 'Request body too large', { status: 413 }));
    if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500) {
      return sendError(res, new GatewayError('invalid_request_error', e.message ?? 'Bad request', { status: e.status }));
    }
    reportError(logger, res, err);
  };
}
