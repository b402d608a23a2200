import type { CancelSignal } from '../lib/cancel-signal.js';
import { GatewayError } from '../lib/errors.js';
import { isAbortedError } from '../providers/http-errors.js';
import { ProviderError } from '../providers/types.js';
import type { CircuitBreakers } from './breaker.js';
import type { Target, UpstreamErrorSummary } from './types.js';

// What happens to one failed upstream attempt, shared by the JSON and streaming paths.

export class ClientClosedError extends Error {
  constructor() {
    super('client closed the request');
    this.name = 'ClientClosedError';
  }
}

export interface AttemptFailure {
  summary: UpstreamErrorSummary;
  /** Try the next candidate (retryable, or a provider-side problem such as a rejected key). */
  fallBack: boolean;
  /** The provider answered (an HTTP status), so the attempt counts as a real upstream call. */
  answered: boolean;
}

/**
 * Classifies a failed attempt and feeds the provider's circuit breaker. A client that went away
 * is not the provider's fault: it surfaces as ClientClosedError and the breaker is left alone.
 */
export function classifyFailure(err: unknown, target: Target, breakers: CircuitBreakers, signal: CancelSignal): AttemptFailure {
  if (signal.aborted || isAbortedError(err)) throw new ClientClosedError();
  if (!(err instanceof ProviderError)) throw err;
  const providerSide = err.status === 401 || err.status === 403;
  if (err.retryable || providerSide) breakers.failure(target.provider, err.retryAfterMs);
  return {
    summary: { provider: target.provider, model: target.model, status: err.status, kind: err.kind, message: err.message },
    fallBack: err.retryable || providerSide,
    answered: err.status > 0,
  };
}

/** The error the client sees when no attempt succeeded. */
export function exhaustedError(errors: UpstreamErrorSummary[]): GatewayError {
  const detail = errors.map((e) => `${e.provider}/${e.model}: ${e.status || e.kind} ${e.message}`).join('; ');
  return new GatewayError('provider_error', `All providers failed: ${detail}`.slice(0, 2000), { details: { attempts: errors } });
}

/** A non-retryable upstream rejection of the request itself (bad parameters for that model). */
export function rejectedError(summary: UpstreamErrorSummary): GatewayError {
  return new GatewayError('invalid_request_error', `${summary.provider} rejected the request: ${summary.message}`, { details: { upstreamStatus: summary.status } });
}
