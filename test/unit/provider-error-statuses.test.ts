import { describe, expect, it } from 'vitest';
import { httpStatusError, parseUpstreamError } from '../../server/providers/http-errors.js';

// Gemini answers a wrong API key with 400 INVALID_ARGUMENT (reason API_KEY_INVALID), not 401.
// The gateway core treats 401/403 as provider-side (fall back, count against the breaker) and any
// other 4xx as the caller's mistake, so the refusal must come out as a 401.

const INVALID_KEY_BODY = JSON.stringify({
  error: {
    code: 400,
    message: 'API key not valid. Please pass a valid API key.',
    status: 'INVALID_ARGUMENT',
    details: [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'API_KEY_INVALID',
        domain: 'googleapis.com',
        metadata: { service: 'generativelanguage.googleapis.com' },
      },
      {
        '@type': 'type.googleapis.com/google.rpc.LocalizedMessage',
        locale: 'en-US',
        message: 'API key not valid. Please pass a valid API key.',
      },
    ],
  },
});

describe('gemini key refusals', () => {
  it('classifies 400 API_KEY_INVALID as an authentication failure, with the provider message', () => {
    const e = httpStatusError('gemini', 400, {}, INVALID_KEY_BODY, ['AIza-the-configured-key']);
    expect(e).toMatchObject({ provider: 'gemini', status: 401, retryable: false, kind: 'http' });
    expect(e.message).toBe(
      'gemini rejected the API key (HTTP 400): INVALID_ARGUMENT: API key not valid. Please pass a valid API key.',
    );
    expect(parseUpstreamError(INVALID_KEY_BODY).accountRefusal).toBe(401);
  });

  it('recognises the other key reasons and a bare INVALID_ARGUMENT about the key', () => {
    const expired = JSON.stringify({
      error: {
        code: 400,
        message: 'API key expired. Please renew the API key.',
        status: 'INVALID_ARGUMENT',
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_EXPIRED' }],
      },
    });
    expect(httpStatusError('gemini', 400, {}, expired, []).status).toBe(401);
    const bare = JSON.stringify({
      error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT' },
    });
    expect(httpStatusError('gemini', 400, {}, bare, []).status).toBe(401);
    // Also in the streamed JSON array form.
    expect(httpStatusError('gemini', 400, {}, `[${INVALID_KEY_BODY}]`, []).status).toBe(401);
  });

  it('reads an account the provider refuses with a 400 (billing, location, no credit) as provider-side', () => {
    const billing = JSON.stringify({
      error: {
        code: 400,
        message:
          'Gemini API free tier is not available in your country. Please enable billing on your project in Google AI Studio.',
        status: 'FAILED_PRECONDITION',
      },
    });
    expect(httpStatusError('gemini', 400, {}, billing, [])).toMatchObject({
      status: 403,
      retryable: false,
      message: expect.stringMatching(
        /^gemini refused the account \(HTTP 400\): FAILED_PRECONDITION: Gemini API free tier/,
      ),
    });
    const location = JSON.stringify({
      error: { code: 400, message: 'User location is not supported for the API use.', status: 'FAILED_PRECONDITION' },
    });
    expect(httpStatusError('gemini', 400, {}, location, []).status).toBe(403);
    const credit = JSON.stringify({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message:
          'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.',
      },
    });
    expect(httpStatusError('anthropic', 400, {}, credit, [])).toMatchObject({
      status: 402,
      message: expect.stringContaining('anthropic refused the account (HTTP 400)'),
    });
    // Anthropic's other 400s are the request's.
    const tooLong = JSON.stringify({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' },
    });
    expect(httpStatusError('anthropic', 400, {}, tooLong, []).status).toBe(400);
  });

  it('leaves real request errors and other statuses alone', () => {
    const invalid = JSON.stringify({
      error: {
        code: 400,
        message: '* GenerateContentRequest.contents: contents is not specified',
        status: 'INVALID_ARGUMENT',
      },
    });
    expect(httpStatusError('gemini', 400, {}, invalid, [])).toMatchObject({ status: 400, retryable: false });
    const simulated = JSON.stringify({
      error: { code: 400, message: 'Invalid request (simulated).', status: 'INVALID_ARGUMENT' },
    });
    expect(httpStatusError('gemini', 400, {}, simulated, []).status).toBe(400);
    const denied = JSON.stringify({
      error: { code: 403, message: "Method doesn't allow unregistered callers", status: 'PERMISSION_DENIED' },
    });
    expect(httpStatusError('gemini', 403, {}, denied, []).status).toBe(403);
    // OpenAI's wording is not Google's error shape: its 401 stays a 401, its 400s stay 400s.
    expect(
      httpStatusError(
        'openai',
        400,
        {},
        '{"error":{"message":"Invalid API key format in tool name","type":"invalid_request_error"}}',
        [],
      ).status,
    ).toBe(400);
  });

  it('never puts the key in the message', () => {
    const key = 'AIzaSyD-the-configured-key-0123';
    const echoing = JSON.stringify({
      error: {
        code: 400,
        message: `API key not valid: ${key}`,
        status: 'INVALID_ARGUMENT',
        details: [{ reason: 'API_KEY_INVALID' }],
      },
    });
    const e = httpStatusError('gemini', 400, {}, echoing, [key]);
    expect(e.status).toBe(401);
    expect(e.message).toContain('API key not valid');
    expect(e.message).not.toContain(key);
  });
});

describe('statuses that mislead, from the OpenAI-compatible providers', () => {
  it("reads xAI's 400 for a wrong key as a rejected key", () => {
    const xai = JSON.stringify({
      code: 'Client specified an invalid argument',
      error: 'Incorrect API key provided: xa***23. You can obtain an API key from https://console.x.ai.',
    });
    expect(httpStatusError('xai', 400, {}, xai, [])).toMatchObject({
      status: 401,
      message: expect.stringContaining('xai rejected the API key (HTTP 400)'),
    });
  });

  it("retries Groq's 498 (flex capacity exceeded), as its docs say", () => {
    const groq = JSON.stringify({
      error: { message: 'flex tier capacity exceeded', type: 'capacity_exceeded', code: 'capacity_exceeded' },
    });
    expect(httpStatusError('groq', 498, {}, groq, [])).toMatchObject({ status: 498, retryable: true });
  });

  it("reads Fireworks' 412 as a refused account and its 403 for a missing model as a 404", () => {
    const suspended = JSON.stringify({
      error: { object: 'error', type: 'invalid_request_error', message: 'Account suspended: please contact support' },
    });
    expect(httpStatusError('fireworks', 412, {}, suspended, [])).toMatchObject({
      status: 403,
      message: expect.stringContaining('refused the account (HTTP 412)'),
    });
    const missing = JSON.stringify({
      error: {
        object: 'error',
        type: 'invalid_request_error',
        message: 'The model name may be incorrect, or the model does not exist',
      },
    });
    expect(httpStatusError('fireworks', 403, {}, missing, [])).toMatchObject({ status: 404, retryable: false });
  });

  it("reads OpenRouter's 403 for flagged input as the request refused, not the account", () => {
    const flagged = JSON.stringify({
      error: {
        code: 403,
        message: 'openai/gpt-4o requires moderation on OpenRouter. Your input was flagged for "harassment".',
        metadata: { reasons: ['harassment'], flagged_input: '...' },
      },
    });
    expect(httpStatusError('openrouter', 403, {}, flagged, [])).toMatchObject({
      status: 400,
      message: expect.stringContaining('openrouter refused the request (HTTP 403)'),
    });
    // A 403 without those words is still the account's.
    const denied = JSON.stringify({ error: { code: 403, message: 'Key not allowed' } });
    expect(httpStatusError('openrouter', 403, {}, denied, []).status).toBe(403);
  });
});
