// One error type for the whole service. `type` is the SPEC.md error.type; the status follows the
// SPEC.md error table. Causes are kept for the log and never sent to the client.

export const ERROR_STATUS = {
  invalid_request_error: 400,
  guardrail_error: 400,
  auth_error: 401,
  insufficient_tier: 402,
  budget_exceeded: 402,
  spend_limit_error: 402,
  permission_error: 403,
  not_found_error: 404,
  conflict_error: 409,
  rate_limit_error: 429,
  quota_exhausted: 429,
  internal_error: 500,
  provider_error: 502,
  no_capable_provider: 502,
  service_unavailable: 503,
} as const;

export type ErrorType = keyof typeof ERROR_STATUS;

export interface GatewayErrorOptions {
  status?: number;
  cause?: unknown;
  /** Extra fields sent in the error body next to type and message (e.g. an upgrade payload). */
  details?: Record<string, unknown>;
  /** When asking again may succeed: sent as Retry-After (seconds) and retry-after-ms. */
  retryAfterMs?: number;
  /**
   * False when asking again cannot help (nothing on the gateway's side will change by itself): sent
   * as `x-should-retry: false`, which the OpenAI SDKs obey instead of retrying every 5xx.
   */
  retryable?: boolean;
}

export class GatewayError extends Error {
  readonly type: ErrorType;
  readonly status: number;
  readonly details?: Record<string, unknown>;
  readonly retryAfterMs?: number;
  readonly retryable?: boolean;

  constructor(type: ErrorType, message: string, options: GatewayErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = 'GatewayError';
    this.type = type;
    this.status = options.status ?? ERROR_STATUS[type];
    if (options.details) this.details = options.details;
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
    if (options.retryable !== undefined) this.retryable = options.retryable;
  }
}

export const INTERNAL_MESSAGE = 'Internal server error';

/** The one REST error body: {"error": {"type", "message", ...details}}. Internal errors never leak. */
export function errorBody(err: GatewayError): { error: Record<string, unknown> } {
  const message = err.type === 'internal_error' ? INTERNAL_MESSAGE : err.message;
  return { error: { type: err.type, message, ...err.details } };
}

export const notFound = (what: string, id: string) => new GatewayError('not_found_error', `${what} '${id}' not found`);
