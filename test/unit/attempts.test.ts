import { describe, expect, it } from 'vitest';
import { classifyFailure, ClientClosedError, rejectedError } from '../../server/gateway/attempts.js';
import { CircuitBreakers } from '../../server/gateway/breaker.js';
import { Cancellation } from '../../server/lib/cancel-signal.js';
import { errorBody } from '../../server/lib/errors.js';
import { httpStatusError } from '../../server/providers/http-errors.js';
import { ProviderError } from '../../server/providers/types.js';

// Which failed attempts fall back and count against the provider's circuit.

const target = { provider: 'openai', model: 'gpt-4o-mini' };
const failure = (init: Partial<ConstructorParameters<typeof ProviderError>[0]>) =>
  new ProviderError({ provider: 'openai', status: 500, retryable: true, kind: 'http', message: 'failed', ...init });

function classify(err: unknown) {
  const breakers = new CircuitBreakers();
  const result = classifyFailure(err, target, breakers, new Cancellation());
  return { ...result, counted: breakers.snapshot().openai?.consecutiveFailures ?? 0 };
}

describe('classifyFailure', () => {
  it('falls back on a broken 200 answer and counts it against the provider', () => {
    const notJson = classify(
      failure({ status: 200, retryable: false, kind: 'parse', message: 'openai returned a body that is not JSON' }),
    );
    expect(notJson).toMatchObject({ fallBack: true, answered: true, counted: 1 });
    // A stream whose first event is not JSON: answered 200, nothing reached the client yet.
    expect(classify(failure({ status: 200, retryable: true, kind: 'parse' }))).toMatchObject({
      fallBack: true,
      answered: true,
      counted: 1,
    });
  });

  it('falls back on retryable failures and rejected provider keys', () => {
    expect(classify(failure({ status: 503 }))).toMatchObject({ fallBack: true, counted: 1 });
    expect(classify(failure({ status: 0, kind: 'connection' }))).toMatchObject({
      fallBack: true,
      answered: false,
      counted: 1,
    });
    expect(classify(failure({ status: 401, retryable: false }))).toMatchObject({ fallBack: true, counted: 1 });
    expect(classify(failure({ status: 403, retryable: false }))).toMatchObject({ fallBack: true, counted: 1 });
  });

  it('does not fall back on, nor count, the provider refusing the request itself', () => {
    for (const status of [400, 404, 422]) {
      expect(classify(failure({ status, retryable: false }))).toMatchObject({
        fallBack: false,
        answered: true,
        counted: 0,
      });
    }
  });

  it("refuses a request this process could not build as the request's fault: no fallback, no count, no upstream call", () => {
    const unbuildable = failure({
      status: 0,
      retryable: false,
      kind: 'request',
      message: 'the request could not be built: Maximum call stack size exceeded',
    });
    const result = classify(unbuildable);
    expect(result).toMatchObject({ fallBack: false, answered: false, counted: 0 });
    const err = rejectedError(result.summary);
    expect(err).toMatchObject({
      type: 'invalid_request_error',
      message:
        'The request could not be sent to openai: the request could not be built: Maximum call stack size exceeded',
    });
  });

  it('rules out, without counting it, a target the router or a fallback chose that cannot take the request', () => {
    const breakers = new CircuitBreakers();
    const cannotTake = failure({
      status: 0,
      retryable: false,
      kind: 'request',
      message: 'n: Anthropic returns one choice per request',
    });
    for (const role of ['routed', 'fallback'] as const) {
      expect(classifyFailure(cannotTake, target, breakers, new Cancellation(), 'free', role)).toMatchObject({
        fallBack: true,
        answered: false,
      });
    }
    expect(classifyFailure(cannotTake, target, breakers, new Cancellation(), 'free', 'named')).toMatchObject({
      fallBack: false,
    });
    expect(breakers.snapshot().openai).toBeUndefined();
  });

  it("ends the call on a provider's refusal of the decision's own target, and tries the next after a fallback's", () => {
    const breakers = new CircuitBreakers();
    const refused = failure({ status: 400, retryable: false, message: 'n must be 1' });
    expect(classifyFailure(refused, target, breakers, new Cancellation(), 'free', 'named')).toMatchObject({
      fallBack: false,
      answered: true,
    });
    expect(classifyFailure(refused, target, breakers, new Cancellation(), 'free', 'routed')).toMatchObject({
      fallBack: false,
    });
    expect(classifyFailure(refused, target, breakers, new Cancellation(), 'free', 'fallback')).toMatchObject({
      fallBack: true,
      answered: true,
    });
    // Not the provider's fault either way: its circuit is not counted against.
    expect(breakers.snapshot().openai).toBeUndefined();
  });

  it('turns a client that went away into ClientClosedError, and rethrows what is not a provider failure', () => {
    const gone = new Cancellation();
    gone.abort();
    expect(() => classifyFailure(failure({}), target, new CircuitBreakers(), gone)).toThrow(ClientClosedError);
    const bug = new TypeError('bug');
    expect(() => classify(bug)).toThrow(bug);
  });
});

describe('a provider rejecting the request', () => {
  const rejected = (provider: string, body: unknown) => {
    const err = httpStatusError(provider, 400, {}, JSON.stringify(body), []);
    return errorBody(
      rejectedError(classifyFailure(err, { provider, model: 'm' }, new CircuitBreakers(), new Cancellation()).summary),
    ).error;
  };

  it("passes on OpenAI's code and param, as OpenAI's own error body has them", () => {
    expect(
      rejected('openai', {
        error: {
          message: "This model's maximum context length is 128000 tokens.",
          type: 'invalid_request_error',
          param: 'messages',
          code: 'context_length_exceeded',
        },
      }),
    ).toMatchObject({
      type: 'invalid_request_error',
      code: 'context_length_exceeded',
      param: 'messages',
      upstreamStatus: 400,
    });
  });

  it('names an over-long prompt context_length_exceeded in the words of Anthropic and Gemini too', () => {
    expect(
      rejected('anthropic', {
        type: 'error',
        error: { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' },
      }).code,
    ).toBe('context_length_exceeded');
    expect(
      rejected('gemini', {
        error: {
          code: 400,
          message: 'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
          status: 'INVALID_ARGUMENT',
        },
      }).code,
    ).toBe('context_length_exceeded');
    // Other rejections carry neither field.
    const other = rejected('anthropic', {
      type: 'error',
      error: { type: 'invalid_request_error', message: 'messages: roles must alternate' },
    });
    expect(other).not.toHaveProperty('code');
    expect(other).not.toHaveProperty('param');
  });
});
