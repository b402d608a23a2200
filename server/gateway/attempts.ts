import type { CancelSignal } from '../lib/cancel-signal.js';
import { GatewayError, type GatewayErrorOptions } from '../lib/errors.js';
import { isAbortedError } from '../providers/http-errors.js';
import { ProviderError } from '../providers/types.js';
import type { AttemptPermit, CircuitBreakers } from './breaker.js';
import type { Target, TargetRole, UpstreamErrorSummary } from './types.js';

// What happens to one failed upstream attempt, shared by the JSON and streaming paths.

export class ClientClosedError extends Error {
  /** `providerAccepted`: the provider had taken the request (its success head was in), so its prompt is billed. */
  constructor(readonly providerAccepted = false) {
    super('client closed the request');
    this.name = 'ClientClosedError';
  }
}

export interface AttemptFailure {
  summary: UpstreamErrorSummary;
  /** Try the next candidate: the provider is at fault (retryable, a rejected key, a broken answer). */
  fallBack: boolean;
  /** The provider answered (an HTTP status), so the attempt counts as a real upstream call. */
  answered: boolean;
}

/**
 * Classifies a failed attempt and feeds the provider's circuit breaker. A client that went away
 * is not the provider's fault: it surfaces as ClientClosedError and no failure is counted. When
 * the attempt was the circuit's probe (`permit`), an end that says nothing about the provider
 * (the client left, the request was refused, a gateway bug) releases the probe for the next request.
 *
 * A refusal of the request itself ends the call with a 400 only when it says something about the
 * request the caller made (`role`, who chose the target):
 * - one the adapter cannot build for its provider (kind 'request': say n > 1 for Anthropic) ends it
 *   for the target the caller named; for one the router or a fallback chose, it only rules that
 *   target out, and the next candidate may take the request;
 * - one the provider answers (400, 404, 422) ends it for the decision's own target, named or
 *   routed; from a fallback, tried because that target failed, it says only that the fallback
 *   cannot serve this request (a parameter that model lacks), and the next candidate is tried.
 *   When none serves, the answer is the 502 that lists every attempt.
 */
export function classifyFailure(
  err: unknown,
  target: Target,
  breakers: CircuitBreakers,
  signal: CancelSignal,
  permit: AttemptPermit = 'free',
  role: TargetRole = 'named',
): AttemptFailure {
  const clientGone = signal.aborted || isAbortedError(err);
  const providerFault = !clientGone && err instanceof ProviderError && !rejectsRequest(err);
  if (providerFault) breakers.failure(target.provider, (err as ProviderError).retryAfterMs);
  else if (permit === 'probe') breakers.release(target.provider);
  if (clientGone) throw new ClientClosedError(isAbortedError(err) && err.accepted);
  if (!(err instanceof ProviderError)) throw err;
  const summary: UpstreamErrorSummary = {
    provider: target.provider,
    model: target.model,
    status: err.status,
    kind: err.kind,
    message: err.message,
  };
  if (err.retryAfterMs !== undefined) summary.retryAfterMs = err.retryAfterMs;
  if (err.code !== undefined) summary.code = err.code;
  if (err.param !== undefined) summary.param = err.param;
  return {
    summary,
    fallBack: providerFault || (err.kind === 'request' ? role !== 'named' : role === 'fallback'),
    answered: err.status > 0,
  };
}

/**
 * Whether the provider refused the request itself (a 4xx such as 400, 404 or 422: bad parameters
 * for that model), which another target would refuse too. Everything else is the provider's
 * fault: a retryable failure, the provider account refused (a rejected key, 401 or 403; no credit
 * left, 402), or a broken answer to a good request (a 200 whose body is not JSON or holds no answer).
 */
function rejectsRequest(err: ProviderError): boolean {
  if (err.kind === 'request') return true;
  return err.kind === 'http' && !err.retryable && !ACCOUNT_REFUSED.has(err.status);
}

/** Statuses that refuse the provider account, not the request. */
const ACCOUNT_REFUSED: ReadonlySet<number> = new Set([401, 402, 403]);

/** An attempt that would fail the same way if made again now: its account refused, or a request that target cannot take. */
const refusedForGood = (e: UpstreamErrorSummary): boolean =>
  e.kind === 'request' || (e.kind === 'http' && ACCOUNT_REFUSED.has(e.status));

/**
 * The error the client sees when no attempt succeeded. The OpenAI SDKs retry a 502 (twice by
 * default), each time running the whole fallback chain again: the answer tells them when that may
 * help. Retry-After is the shortest wait a provider asked for; `x-should-retry: false` when every
 * attempt was refused for good (a rejected key, no credit left), which waiting does not change.
 */
export function exhaustedError(errors: UpstreamErrorSummary[]): GatewayError {
  const detail = errors.map((e) => `${e.provider}/${e.model}: ${e.status || e.kind} ${e.message}`).join('; ');
  const options: GatewayErrorOptions = { details: { attempts: errors } };
  const waits = errors.flatMap((e) => (e.retryAfterMs !== undefined ? [e.retryAfterMs] : []));
  if (waits.length > 0) options.retryAfterMs = Math.min(...waits);
  if (errors.length > 0 && errors.every(refusedForGood)) options.retryable = false;
  return new GatewayError('provider_error', `All providers failed: ${detail}`.slice(0, 2000), options);
}

/** A non-retryable upstream rejection of the request itself (bad parameters for that model). */
export function rejectedError(summary: UpstreamErrorSummary): GatewayError {
  // Refused before it left (a body this process could not serialise): no provider said anything.
  if (summary.kind === 'request')
    return new GatewayError(
      'invalid_request_error',
      `The request could not be sent to ${summary.provider}: ${summary.message}`,
    );
  // The provider's code and param, as OpenAI's error body has them: clients branch on them
  // (`err.code === 'context_length_exceeded'` to trim a history).
  const details: Record<string, unknown> = { upstreamStatus: summary.status };
  if (summary.code !== undefined) details['code'] = summary.code;
  if (summary.param !== undefined) details['param'] = summary.param;
  return new GatewayError('invalid_request_error', `${summary.provider} rejected the request: ${summary.message}`, {
    details,
  });
}
