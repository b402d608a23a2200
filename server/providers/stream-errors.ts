// Decides a streaming failure's final shape from whether the adapter had already yielded a chunk:
// before the first chunk the core can still fall back to another provider, after it cannot.
import { ProviderError } from './types.js';
import { ProviderAbortedError } from './http-errors.js';

export function streamFailure(provider: string, message: string, cause?: unknown): ProviderError {
  return new ProviderError({ provider, status: 0, retryable: false, kind: 'stream', message: `${provider} ${message}`, cause });
}

export function settleStreamError(err: unknown, provider: string, yielded: boolean): ProviderError {
  if (err instanceof ProviderAbortedError) return err;
  const e = err instanceof ProviderError
    ? err
    : new ProviderError({
        provider,
        status: 0,
        retryable: false,
        kind: err instanceof SyntaxError ? 'parse' : 'stream',
        message: `${provider} stream failed: ${err instanceof Error ? err.message : String(err)}`,
        cause: err,
      });
  if (yielded) {
    if (e.kind === 'stream' && !e.retryable) return e;
    return rebuild(e, 'stream', false);
  }
  // Nothing reached the client yet: a broken or cut stream is as retryable as a failed connect.
  if (e.kind === 'stream' && !e.retryable) return rebuild(e, 'stream', true);
  return e;
}

function rebuild(e: ProviderError, kind: ProviderError['kind'], retryable: boolean): ProviderError {
  const init: ConstructorParameters<typeof ProviderError>[0] = {
    provider: e.provider, status: e.status, retryable, kind, message: e.message, cause: e.cause ?? e,
  };
  if (e.retryAfterMs !== undefined) init.retryAfterMs = e.retryAfterMs;
  return new ProviderError(init);
}
