import { TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import { ZodError, type core } from 'zod';
import { GatewayError } from '../lib/errors.js';
import { describeZodError } from '../lib/zod-errors.js';

// The one conversion point between GatewayError, tRPC errors and validation errors.

const CODE_BY_STATUS: Record<number, TRPC_ERROR_CODE_KEY> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  402: 'PAYMENT_REQUIRED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_SUPPORTED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'TOO_MANY_REQUESTS',
  502: 'BAD_GATEWAY',
  503: 'SERVICE_UNAVAILABLE',
};

export function toTrpcError(err: GatewayError): TRPCError {
  return new TRPCError({
    code: CODE_BY_STATUS[err.status] ?? 'INTERNAL_SERVER_ERROR',
    message: err.message,
    cause: err,
  });
}

/** Any error seen by tRPC or the REST layer, as the GatewayError the client should see. */
export function toGatewayError(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  if (err instanceof TRPCError) {
    const cause = err.cause;
    if (cause instanceof GatewayError) return cause;
    if (cause instanceof ZodError) return new GatewayError('invalid_request_error', describeInputError(cause));
    switch (err.code) {
      case 'BAD_REQUEST':
        return new GatewayError('invalid_request_error', err.message);
      case 'PARSE_ERROR':
        return new GatewayError('invalid_request_error', 'Request body is not valid JSON');
      case 'UNSUPPORTED_MEDIA_TYPE':
        return new GatewayError('invalid_request_error', 'Content-Type must be application/json', { status: 415 });
      case 'PAYLOAD_TOO_LARGE':
        return new GatewayError('invalid_request_error', 'Request body too large', { status: 413 });
      case 'NOT_FOUND':
        return new GatewayError('not_found_error', err.message === 'Not found' ? 'Not found' : err.message);
      case 'METHOD_NOT_SUPPORTED':
        return new GatewayError('invalid_request_error', 'Method not allowed', { status: 405 });
      case 'UNAUTHORIZED':
        return new GatewayError('auth_error', err.message);
      default:
        return refusedInputValue(err) ?? new GatewayError('internal_error', err.message, { cause: err });
    }
  }
  if (err instanceof ZodError) return new GatewayError('invalid_request_error', describeInputError(err));
  return refusedInputValue(err) ?? new GatewayError('internal_error', 'unexpected error', { cause: err });
}

/** Zod's message, with each unknown field named like every other field ("admin: unknown field"). */
function describeInputError(err: ZodError): string {
  if (!err.issues.some((i) => i.code === 'unrecognized_keys')) return describeZodError(err);
  const issues = err.issues.flatMap((i): core.$ZodIssue[] =>
    i.code === 'unrecognized_keys'
      ? i.keys.map((key) => ({ ...i, keys: [key], path: [...i.path, key], message: 'unknown field' }))
      : [i],
  );
  return describeZodError(new ZodError(issues));
}

// PostgreSQL data exceptions (SQLSTATE class 22) that only a value sent by the client can cause.
// The database's own message may quote SQL or the value, so each gets a fixed one.
const REFUSED_VALUE_MESSAGES: Record<string, string> = {
  '22001': 'a value is too long',
  '22003': 'a number is out of range',
  '22007': 'a date or time is not valid',
  '22008': 'a date or time is out of range',
  '22009': 'a date or time is not valid',
  '22021': 'a string contains a NUL character (\\u0000) or invalid text',
  '22P02': 'a value has an invalid format',
  '22P05': 'a string contains a character that cannot be stored (such as \\u0000)',
};

/** A 400 for a value the database refused, found anywhere in the error's cause chain. */
function refusedInputValue(err: unknown): GatewayError | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    const message = typeof code === 'string' ? REFUSED_VALUE_MESSAGES[code] : undefined;
    if (message)
      return new GatewayError('invalid_request_error', `The request was refused: ${message}`, { cause: err });
  }
  return undefined;
}
