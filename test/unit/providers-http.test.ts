import { describe, expect, it } from 'vitest';
import {
  httpStatusError,
  parseRetryAfter,
  parseUpstreamError,
  ProviderAbortedError,
} from '../../server/providers/http-errors.js';
import { settleStreamError } from '../../server/providers/stream-errors.js';
import { countChatPromptTokens, countTokens, estimateTokens } from '../../server/providers/token-count.js';
import { OpenAIStreamNormalizer } from '../../server/providers/openai-compatible/stream.js';
import { ProviderError } from '../../server/providers/types.js';

describe('upstream error bodies', () => {
  it('extracts the message from each provider format', () => {
    expect(
      parseUpstreamError(
        '{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}',
      ).message,
    ).toBe('invalid_request_error: Incorrect API key provided.');
    expect(
      parseUpstreamError('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}').message,
    ).toBe('overloaded_error: Overloaded');
    expect(
      parseUpstreamError('{"error":{"code":429,"message":"Resource has been exhausted","status":"RESOURCE_EXHAUSTED"}}')
        .message,
    ).toBe('RESOURCE_EXHAUSTED: Resource has been exhausted');
    expect(parseUpstreamError('[{"error":{"code":400,"message":"Bad","status":"INVALID_ARGUMENT"}}]').message).toBe(
      'INVALID_ARGUMENT: Bad',
    );
    expect(
      parseUpstreamError('{"object":"error","message":"Extra inputs are not permitted","type":"invalid_request_error"}')
        .message,
    ).toBe('Extra inputs are not permitted');
    expect(parseUpstreamError('<html>Bad Gateway</html>').message).toBe('<html>Bad Gateway</html>');
  });

  it('reads the Gemini RetryInfo delay', () => {
    const body =
      '{"error":{"code":429,"message":"Quota exceeded","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"37s"}]}}';
    expect(parseUpstreamError(body).retryDelayMs).toBe(37_000);
    expect(httpStatusError('gemini', 429, {}, body, []).retryAfterMs).toBe(37_000);
  });
});

describe('Retry-After', () => {
  it('parses seconds, HTTP dates and retry-after-ms', () => {
    expect(parseRetryAfter({ 'retry-after': '7' })).toBe(7000);
    expect(parseRetryAfter({ 'retry-after': '1.5' })).toBe(1500);
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter({ 'retry-after': 'Wed, 01 Jan 2025 00:00:30 GMT' }, now)).toBe(30_000);
    expect(parseRetryAfter({ 'retry-after': 'Tue, 31 Dec 2024 00:00:30 GMT' }, now)).toBe(0);
    expect(parseRetryAfter({ 'retry-after-ms': '250', 'retry-after': '9' })).toBe(250);
    expect(parseRetryAfter({ 'retry-after': 'soon' })).toBeUndefined();
    expect(parseRetryAfter({})).toBeUndefined();
  });
});

describe('HTTP status mapping', () => {
  it('makes 429 and 5xx retryable and other 4xx not', () => {
    const e429 = httpStatusError(
      'openai',
      429,
      { 'retry-after': '2' },
      '{"error":{"message":"Rate limit reached"}}',
      [],
    );
    expect(e429).toMatchObject({ kind: 'http', status: 429, retryable: true, retryAfterMs: 2000, provider: 'openai' });
    expect(e429.message).toContain('Rate limit reached');
    expect(httpStatusError('anthropic', 529, {}, '', []).retryable).toBe(true);
    expect(httpStatusError('x', 503, {}, '', []).retryable).toBe(true);
    expect(httpStatusError('x', 400, {}, '', []).retryable).toBe(false);
    expect(httpStatusError('x', 401, {}, '', []).retryable).toBe(false);
  });

  it('never includes the API key', () => {
    const key = 'sk-live-abcdefghijklmnop';
    const e = httpStatusError('openai', 401, {}, `{"error":{"message":"Incorrect API key provided: ${key}"}}`, [key]);
    expect(e.message).not.toContain(key);
  });

  it('never includes the API key in another case or URL-encoded, nor in an in-stream error or a frame it could not parse', () => {
    const key = 'sk-live-abc/def+ghijklmnop';
    for (const echoed of [key.toUpperCase(), encodeURIComponent(key), key]) {
      const e = httpStatusError('openai', 500, {}, `{"error":{"message":"bad key ${echoed}"}}`, [key]);
      expect(e.message.toLowerCase()).not.toContain(key.toLowerCase());
      expect(e.message.toLowerCase()).not.toContain(encodeURIComponent(key).toLowerCase());
      expect(e.message).toContain('***');
    }
    const norm = new OpenAIStreamNormalizer('deepseek', 'deepseek-chat', [key]);
    const inStream = (() => {
      try {
        norm.push({ data: JSON.stringify({ error: { message: `quota exceeded for key ${key}`, code: 429 } }) });
      } catch (err) {
        return err as Error;
      }
    })();
    expect(inStream?.message).toContain('***');
    expect(inStream?.message).not.toContain(key);
    let syntax: unknown;
    try {
      JSON.parse(`${key} is not json`);
    } catch (err) {
      syntax = err;
    }
    expect(settleStreamError(syntax, 'deepseek', true).message).not.toContain(key.slice(0, 6));
  });
});

describe('stream error settling', () => {
  const cut = new ProviderError({ provider: 'p', status: 0, retryable: false, kind: 'stream', message: 'cut' });
  it('makes a cut retryable before the first chunk, and never after', () => {
    expect(settleStreamError(cut, 'p', false)).toMatchObject({ kind: 'stream', retryable: true });
    expect(settleStreamError(cut, 'p', true)).toMatchObject({ kind: 'stream', retryable: false });
    const e429 = new ProviderError({
      provider: 'p',
      status: 429,
      retryable: true,
      kind: 'http',
      message: 'x',
      retryAfterMs: 5,
    });
    expect(settleStreamError(e429, 'p', false)).toBe(e429);
    expect(settleStreamError(e429, 'p', true)).toMatchObject({ kind: 'stream', retryable: false, status: 429 });
    const aborted = new ProviderAbortedError('p');
    expect(settleStreamError(aborted, 'p', true)).toBe(aborted);
  });
});

describe('token counting', () => {
  it('counts with the tokenizer and estimates cheaply', async () => {
    expect(await countTokens('Hello world')).toBe(2);
    expect(await countTokens('')).toBe(0);
    expect(await countTokens('<|endoftext|>')).toBeGreaterThan(1);
    expect(estimateTokens('abcdefgh')).toBe(2);
    const n = await countChatPromptTokens([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hello world' },
    ]);
    expect(n).toBeGreaterThan(10);
    expect(n).toBeLessThan(30);
  });

  it('counts long text in slices: the same count as whole, within a token per slice', async () => {
    const { countTokens: whole } = await import('gpt-tokenizer/encoding/o200k_base');
    const words = Array.from(
      { length: 3_000 },
      (_, i) => ['the', 'gateway', 'routes', 'each', 'request,', 'caches\n', 'and', 'logs', 'cost.'][i % 9],
    ).join(' ');
    const exact = whole(words);
    const counted = await countTokens(words);
    expect(Math.abs(counted - exact)).toBeLessThanOrEqual(Math.ceil(words.length / 512));
  });

  it('counts a run without spaces (quadratic to count whole: seconds for 40,000 characters) slice by slice, to about the whole count', async () => {
    // 'x' * 20,000 is 2,500 tokens counted whole.
    const n = await countTokens('x'.repeat(20_000));
    expect(Math.abs(n - 2_500)).toBeLessThanOrEqual(Math.ceil(20_000 / 512));
    // A megabyte and more is counted up to its first MB and extrapolated.
    expect(await countTokens('x'.repeat(1_500_000))).toBeCloseTo(187_500, -3);
  });
});
