import type { NextFunction, Request, Response } from 'express';
import type { ServerResponse } from 'node:http';
import { newTimeOrderedId } from '../lib/ids.js';

// Every response carries X-Gateway-Request-Id, and the same id as X-Request-Id: the header the
// OpenAI SDKs read for a response's `_request_id` and an error's `requestID` (the id a feedback
// call or a support question names). The id is made before anything else so the chat path can use
// it for its log row and the error path for the log line.
const REQUEST_ID = Symbol('gatewayRequestId');
type WithId = ServerResponse & { [REQUEST_ID]?: string };

export function assignRequestId(res: ServerResponse): string {
  const id = reserveRequestId(res);
  setRequestIdHeaders(res, id);
  return id;
}

/** Both request id headers, where they were not set yet. */
export function setRequestIdHeaders(res: ServerResponse, id: string): void {
  if (res.hasHeader('x-gateway-request-id')) return;
  res.setHeader('X-Gateway-Request-Id', id);
  res.setHeader('X-Request-Id', id);
}

/**
 * The id without its header, for a path that writes the header with its response head. A header
 * set before writeHead() sends every header of the response through setHeader() one by one; the
 * chat path passes them all to writeHead() at once. Error answers add it (sendError).
 */
export function reserveRequestId(res: ServerResponse): string {
  const id = newTimeOrderedId('req');
  (res as WithId)[REQUEST_ID] = id;
  return id;
}

/** The id of a response, if one was made for it. */
export function existingRequestId(res: ServerResponse): string | undefined {
  return (res as WithId)[REQUEST_ID];
}

export function requestIdOf(res: ServerResponse): string {
  return (res as WithId)[REQUEST_ID] ?? assignRequestId(res);
}

export function requestIdMiddleware(_req: Request, res: Response, next: NextFunction): void {
  assignRequestId(res);
  next();
}
