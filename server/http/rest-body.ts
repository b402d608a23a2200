import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { MAX_BODY_DEPTH, nestsDeeperThan } from '../gateway/chat-body-fast.js';
import { GatewayError } from '../lib/errors.js';
import { sendError } from './errors.js';

// The control plane's JSON bodies, parsed by Express for the REST handler and checked for what is
// wrong with the body as a whole, before the handler sees it:
// - bytes that are not UTF-8 (the parser would turn them into U+FFFD, and a name or comment would be
//   stored altered without a word);
// - nesting deeper than a chat body may (the REST layer serialises the body again, and a body of
//   some thousands of levels overflowed the stack there: a 500).
// Like malformed JSON, these are refused before authentication: they are about the body's form, not
// its data. Strings PostgreSQL cannot store are the procedures' to refuse, after authentication
// (trpc/procedures.ts).

/** express.json, refusing a body that is not UTF-8. */
export function jsonBodyParser(limit: number): RequestHandler {
  return express.json({ limit, verify: refuseInvalidUtf8 });
}

function refuseInvalidUtf8(_req: IncomingMessage, _res: unknown, body: Buffer): void {
  if (!isUtf8(body))
    throw Object.assign(new Error('Request body is not valid UTF-8'), { status: 400, type: 'entity.verify.failed' });
}

/** 400 for a parsed body nested deeper than a chat body may be. */
export function checkParsedBody(req: Request, res: Response, next: NextFunction): void {
  const body: unknown = req.body;
  if (typeof body !== 'object' || body === null) return next();
  if (nestsDeeperThan(body, MAX_BODY_DEPTH)) {
    return sendError(
      res,
      new GatewayError(
        'invalid_request_error',
        `Request body: nested more than ${MAX_BODY_DEPTH} levels deep (objects and arrays)`,
      ),
    );
  }
  next();
}

/**
 * The Content-Type's media type in lower case (`Application/JSON` is `application/json`): media
 * types are case-insensitive, and the REST layer compares them as written, answering 415.
 */
export function lowerCaseMediaType(req: Request, _res: Response, next: NextFunction): void {
  const type = req.headers['content-type'];
  if (type !== undefined && /[A-Z]/.test(type)) {
    const end = type.indexOf(';');
    req.headers['content-type'] = end < 0 ? type.toLowerCase() : type.slice(0, end).toLowerCase() + type.slice(end);
  }
  next();
}

/**
 * A POST, PUT or PATCH without a body and without a Content-Type (`curl -X POST .../reload`) is
 * taken as an empty JSON body: the procedures behind such actions take no input or only optional
 * fields, and the REST layer would otherwise answer 415 for the missing media type. A body that
 * is there keeps its Content-Type, and one that is not JSON is still refused.
 */
export function emptyBodyAsJson(req: Request, _res: Response, next: NextFunction): void {
  const method = req.method;
  if (
    (method === 'POST' || method === 'PUT' || method === 'PATCH') &&
    req.headers['content-type'] === undefined &&
    hasNoBody(req)
  ) {
    req.headers['content-type'] = 'application/json';
  }
  next();
}

function hasNoBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] === undefined && (length === undefined || length === '0');
}
