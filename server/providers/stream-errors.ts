// Decides a streaming failure's final shape from whether the adapter had already yielded a chunk:
// before the first chunk the core can still fall back to another provider, after it cannot.
//
// A stream fails this way only once the provider has answered 200 (a refusal or a failed
// connection is the HTTP layer's error), so its status is 200, as for a whole answer that is
// broken: the attempt was a real upstream call, and gets its cost row.
import { ProviderError } from './types.js';
import { ProviderAbortedError } from './http-errors.js';

const ANSWERED = 200;

export function streamFailure(provider: string, message: string, cause?: unknown): ProviderError {
  return new ProviderError({
    provider,
    status: ANSWERED,
    retryable: false,
    kind: 'stream',
    message: `${provider} ${message}`,
    cause,
  });
}

export function settleStreamError(err: unknown, provider: string, yielded: boolean): ProviderError {
  if (err instanceof ProviderAbortedError) return err;
  const e =
    err instanceof ProviderError
      ? err
      : new ProviderError({
          provider,
          status: ANSWERED,
          retryable: false,
          kind: err instanceof SyntaxError ? 'parse' : 'stream',
          // A parse error quotes the frame it choked on, which is the provider's text: not repeated.
          message:
            err instanceof SyntaxError
              ? `${provider} sent a stream frame that is not JSON`
              : `${provider} stream failed: ${err instanceof Error ? err.message : String(err)}`,
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
    provider: e.provider,
    status: e.status,
    retryable,
    kind,
    message: e.message,
    cause: e.cause ?? e,
  };
  if (e.retryAfterMs !== undefined) init.retryAfterMs = e.retryAfterMs;
  return new ProviderError(init);
}
