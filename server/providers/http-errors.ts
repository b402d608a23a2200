// Turns every way an upstream call can fail into one ProviderError, so the gateway core can make
// retry/fallback decisions from `kind`, `status`, `retryable` and `retryAfterMs` alone.
import { ProviderError } from './types.js';
import type { CallScope } from './call-scope.js';

/**
 * Thrown when the caller's signal fired (client went away, or the core gave up).
 * ProviderError has no 'aborted' kind, so this subclass carries `aborted: true` and the
 * conventional name 'AbortError'; it is never retryable.
 */
export class ProviderAbortedError extends ProviderError {
  readonly aborted = true;
  /**
   * `accepted`: the provider had answered with a success head before the caller left (a stream
   * under way, its first content not in yet): it has taken the request, and bills its prompt.
   */
  constructor(
    provider: string,
    cause?: unknown,
    readonly accepted = false,
  ) {
    super({
      provider,
      status: 0,
      retryable: false,
      kind: 'connection',
      message: `${provider}: request aborted by caller`,
      cause,
    });
    this.name = 'AbortError';
  }
}

export function isAbortedError(err: unknown): err is ProviderAbortedError {
  return err instanceof ProviderAbortedError;
}

const MAX_MESSAGE = 500;
/** The status a refused provider credential is reported with, whatever the provider answered. */
export const AUTH_FAILURE_STATUS = 401;

export function isRetryableStatus(status: number): boolean {
  // 408: the provider timed out reading the request; 409: a conflict on its side (OpenAI's SDKs
  // retry both, with 429 and 5xx); 498: Groq's flex tier out of capacity ("back off and retry").
  return status === 408 || status === 409 || status === 429 || status === 498 || status >= 500;
}

/** Retry-After as milliseconds: `retry-after-ms`, then `retry-after` in seconds or as an HTTP date. */
export function parseRetryAfter(
  headers: Record<string, string | string[] | undefined>,
  now = Date.now(),
): number | undefined {
  const ms = first(headers['retry-after-ms']);
  if (ms !== undefined) {
    const n = Number(ms);
    if (Number.isFinite(n) && n >= 0) return Math.round(n);
  }
  const raw = first(headers['retry-after']);
  if (raw === undefined || raw.trim() === '') return undefined;
  const secs = Number(raw);
  if (Number.isFinite(secs)) return secs >= 0 ? Math.round(secs * 1000) : undefined;
  const at = Date.parse(raw);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

interface UpstreamError {
  message: string;
  retryDelayMs?: number;
  /**
   * Set when a 400's body says the provider refused the account, not the request: the status that
   * says so (401 a rejected key, 402 no credit left, 403 the account may not use the API).
   */
  accountRefusal?: number;
  /** A 403 that refuses the request's content, not the account (OpenRouter's moderation: "Your input was flagged"). */
  flaggedInput?: boolean;
  /** A 403 that names a model that does not exist (Fireworks: "The model name may be incorrect"). */
  modelMissing?: boolean;
  /** OpenAI's `code` (`context_length_exceeded`, ...), also given for other providers' words for an over-long prompt. */
  code?: string;
  /** OpenAI's `param`: the request field the error is about. */
  param?: string;
}

/**
 * Pulls the provider's own message out of an error body. Handles OpenAI `{error:{message}}`,
 * Anthropic `{type:'error',error:{type,message}}`, Gemini `{error:{code,message,status,details}}`
 * (also wrapped in an array), Mistral `{object:'error',message}` and FastAPI `{detail}`.
 */
export function parseUpstreamError(text: string): UpstreamError {
  const trimmed = text.trim();
  if (trimmed === '') return { message: '' };
  let json: unknown;
  try {
    json = JSON.parse(trimmed);
  } catch {
    return { message: trimmed };
  }
  if (Array.isArray(json)) json = json[0];
  if (!isObject(json)) return { message: trimmed };
  const err = json['error'];
  // xAI: {"code": "...", "error": "Incorrect API key provided: ..."}, with a 400.
  if (typeof err === 'string')
    return BAD_KEY.test(err) ? { message: err, accountRefusal: AUTH_FAILURE_STATUS } : { message: err };
  if (isObject(err)) {
    const parts: string[] = [];
    const label =
      typeof err['type'] === 'string' ? err['type'] : typeof err['status'] === 'string' ? err['status'] : undefined;
    if (label) parts.push(label);
    if (typeof err['message'] === 'string') parts.push(err['message']);
    else if (err['message'] !== undefined) parts.push(JSON.stringify(err['message']));
    const out: UpstreamError = { message: parts.length ? parts.join(': ') : JSON.stringify(err) };
    const delay = geminiRetryDelay(err['details']);
    if (delay !== undefined) out.retryDelayMs = delay;
    const refusal = accountRefusalOf(err);
    if (refusal !== undefined) out.accountRefusal = refusal;
    const code =
      typeof err['code'] === 'string' && err['code'] !== ''
        ? err['code']
        : TOO_LONG.test(out.message)
          ? 'context_length_exceeded'
          : undefined;
    if (code !== undefined) out.code = code.slice(0, 100);
    if (typeof err['param'] === 'string' && err['param'] !== '') out.param = err['param'].slice(0, 200);
    const metadata = err['metadata'];
    if ((isObject(metadata) && metadata['flagged_input'] !== undefined) || FLAGGED.test(out.message))
      out.flaggedInput = true;
    if (MODEL_MISSING.test(out.message)) out.modelMissing = true;
    return out;
  }
  const msg = json['message'] ?? json['detail'];
  if (typeof msg === 'string') return { message: msg };
  if (msg !== undefined) return { message: JSON.stringify(msg) };
  return { message: trimmed };
}

/**
 * An over-long prompt in the words of the providers without OpenAI's `context_length_exceeded`
 * code: Anthropic ("prompt is too long: 210000 tokens > 200000 maximum") and Gemini ("The input
 * token count (1200000) exceeds the maximum number of tokens allowed (1048576)").
 */
const TOO_LONG = /\bprompt is too long\b|\binput token count\b.*\bexceeds the maximum\b/i;

// Gemini puts the back-off in a google.rpc.RetryInfo detail ("retryDelay": "37s") instead of a header.
function geminiRetryDelay(details: unknown): number | undefined {
  if (!Array.isArray(details)) return undefined;
  for (const d of details) {
    if (isObject(d) && typeof d['retryDelay'] === 'string') {
      const secs = Number.parseFloat(d['retryDelay']);
      if (Number.isFinite(secs) && secs >= 0) return Math.round(secs * 1000);
    }
  }
  return undefined;
}

/**
 * Gemini refuses an invalid or expired API key with 400 INVALID_ARGUMENT, not 401: the body's
 * google.rpc.ErrorInfo detail names the reason (API_KEY_INVALID), and its message reads
 * "API key not valid. Please pass a valid API key.". Older answers may carry the message alone.
 */
export function isGoogleKeyRejection(err: Record<string, unknown>): boolean {
  const details = err['details'];
  if (Array.isArray(details)) {
    for (const d of details) {
      if (isObject(d) && typeof d['reason'] === 'string' && d['reason'].startsWith('API_KEY_')) return true;
    }
  }
  return (
    err['status'] === 'INVALID_ARGUMENT' && typeof err['message'] === 'string' && /\bAPI key\b/i.test(err['message'])
  );
}

/**
 * Providers that answer an account problem with a 400, which would otherwise read as the caller's
 * bad request (no fallback, the provider's circuit never told):
 * - Gemini: a rejected key (above); FAILED_PRECONDITION, its answer for an account that may not
 *   use the API as set up ("free tier is not available in your country. Please enable billing",
 *   "User location is not supported");
 * - Anthropic: an empty credit balance, sent as invalid_request_error ("Your credit balance is too
 *   low to access the Anthropic API").
 */
export function accountRefusalOf(err: Record<string, unknown>): number | undefined {
  if (isGoogleKeyRejection(err)) return AUTH_FAILURE_STATUS;
  if (typeof err['message'] === 'string' && BAD_KEY.test(err['message'])) return AUTH_FAILURE_STATUS;
  if (err['status'] === 'FAILED_PRECONDITION') return 403;
  if (
    err['type'] === 'invalid_request_error' &&
    typeof err['message'] === 'string' &&
    /\bcredit balance is too low\b/i.test(err['message'])
  )
    return 402;
  return undefined;
}

/** OpenAI's and xAI's words for a wrong key (xAI sends them with a 400). */
const BAD_KEY = /^Incorrect API key provided\b/i;
const FLAGGED = /\binput was flagged\b/i;
const MODEL_MISSING = /\bmodel name may be incorrect\b|\bmodel\b.*\b(?:does not exist|not found)\b/i;

/**
 * The status an error answer means where its HTTP status misleads (undefined where it does not):
 * - a 400 that refuses the account (accountRefusalOf): 401, 402 or 403;
 * - a 403 that refuses the request's content (OpenRouter's moderation): 400, the request's fault,
 *   not the account's: it must not be sent to another provider, nor count against the circuit;
 * - a 403 for a model that does not exist (Fireworks): 404;
 * - a 412, an account suspended (Fireworks): 403.
 */
function statusMeant(status: number, upstream: UpstreamError): number | undefined {
  if (status === 400) return upstream.accountRefusal;
  if (status === 403 && upstream.flaggedInput) return 400;
  if (status === 403 && upstream.modelMissing) return 404;
  if (status === 412) return 403;
  return undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * `message` without any of `secrets` (an upstream error that echoes the caller's key, as some
 * proxies and providers do), as written, in another case or URL-encoded, then bounded.
 */
export function redact(message: string, secrets: readonly string[]): string {
  let out = message;
  for (const s of secrets) {
    if (s.length < 8) continue;
    for (const form of new Set([s, encodeURIComponent(s)]))
      out = out.replace(new RegExp(escapeRegExp(form), 'gi'), '***');
  }
  return out.length > MAX_MESSAGE ? `${out.slice(0, MAX_MESSAGE)}…` : out;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function httpStatusError(
  provider: string,
  status: number,
  headers: Record<string, string | string[] | undefined>,
  bodyText: string,
  secrets: readonly string[],
): ProviderError {
  const upstream = parseUpstreamError(bodyText);
  const retryAfterMs = parseRetryAfter(headers) ?? upstream.retryDelayMs;
  const detail = upstream.message ? `: ${upstream.message}` : '';
  // Reported with the status that says what it means (statusMeant): an account refused with a 400
  // is the provider's configuration, not the caller's request, and the core falls back and counts
  // it against the provider, as for any 401, 402 or 403; a 403 for the request's content is the
  // caller's, and is not sent elsewhere.
  const meant = statusMeant(status, upstream);
  const account = meant !== undefined && meant >= 401 && meant <= 403;
  const what =
    meant === AUTH_FAILURE_STATUS ? 'rejected the API key' : account ? 'refused the account' : 'refused the request';
  const init: ConstructorParameters<typeof ProviderError>[0] = {
    provider,
    status: meant ?? status,
    retryable: isRetryableStatus(status),
    kind: 'http',
    message: redact(
      meant !== undefined
        ? `${provider} ${what} (HTTP ${status})${detail}`
        : `${provider} returned HTTP ${status}${detail}`,
      secrets,
    ),
  };
  if (retryAfterMs !== undefined) init.retryAfterMs = retryAfterMs;
  if (upstream.code !== undefined) init.code = upstream.code;
  if (upstream.param !== undefined) init.param = upstream.param;
  return new ProviderError(init);
}

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/**
 * Maps a thrown error (undici, socket, abort, or the request failing to serialise) to a
 * ProviderError. `streamStarted` is true once a stream has delivered an event: failures after
 * that can no longer be retried transparently.
 */
export function toProviderError(
  err: unknown,
  scope: CallScope,
  provider: string,
  streamStarted = false,
  accepted = false,
): ProviderError {
  if (err instanceof ProviderError) return err;
  if (scope.callerAborted) return new ProviderAbortedError(provider, err, accepted);
  if (!streamStarted && !scope.timedOut && isRequestBuildError(err)) return requestBuildError(provider, err);
  const code = typeof (err as { code?: unknown })?.code === 'string' ? (err as { code: string }).code : undefined;
  const detail = err instanceof Error ? err.message : String(err);
  const timedOut = scope.timedOut || (code !== undefined && TIMEOUT_CODES.has(code));
  if (streamStarted) {
    const what = timedOut
      ? `timed out after ${scope.timeoutMs} ms`
      : `was interrupted: ${detail}${code ? ` (${code})` : ''}`;
    return new ProviderError({
      provider,
      status: 0,
      retryable: false,
      kind: 'stream',
      message: `${provider} stream ${what}`,
      cause: err,
    });
  }
  if (timedOut) {
    return new ProviderError({
      provider,
      status: 0,
      retryable: true,
      kind: 'timeout',
      message: `${provider} did not answer within ${scope.timeoutMs} ms`,
      cause: err,
    });
  }
  return new ProviderError({
    provider,
    status: 0,
    retryable: true,
    kind: 'connection',
    message: `${provider} connection failed: ${detail}${code ? ` (${code})` : ''}`,
    cause: err,
  });
}

/**
 * A RangeError or TypeError with no `code` was thrown by this process while it built or
 * serialised the request (a body too deep for JSON.stringify overflows the stack), not by the
 * network: socket and undici errors all carry a `code`.
 */
function isRequestBuildError(err: unknown): err is RangeError | TypeError {
  return (err instanceof RangeError || err instanceof TypeError) && (err as { code?: unknown }).code === undefined;
}

/**
 * The request's fault, not the provider's (which never saw it): the core answers 400
 * invalid_request_error, tries no other target, logs no upstream call and leaves the circuit alone.
 */
function requestBuildError(provider: string, err: RangeError | TypeError): ProviderError {
  return new ProviderError({
    provider,
    status: 0,
    retryable: false,
    kind: 'request',
    message: `the request could not be built: ${err.message}`,
    cause: err,
  });
}
