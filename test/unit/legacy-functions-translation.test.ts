// OpenAI's deprecated function calling (`functions`, `function_call`, role 'function' messages and
// assistant `function_call`) is not translated for Anthropic or Gemini: sent without it the model
// would answer in text, so it is refused (a 'request' ProviderError, answered 400) before anything
// is sent.
import { describe, expect, it } from 'vitest';
import { toAnthropicRequest } from '../../server/providers/anthropic/request.js';
import { toGeminiRequest } from '../../server/providers/gemini/request.js';
import { ProviderError, type ChatMessage, type ChatRequest } from '../../server/providers/types.js';

const translators = [
  {
    name: 'Anthropic',
    model: 'claude-sonnet-4-5',
    translate: (r: ChatRequest) => toAnthropicRequest(r, 'eu-route').body,
  },
  { name: 'Gemini', model: 'gemini-2.5-flash', translate: (r: ChatRequest) => toGeminiRequest(r, 'eu-route') },
];

const weatherFn = {
  name: 'get_weather',
  description: 'Weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
};

function refusal(translate: (r: ChatRequest) => unknown, req: ChatRequest): ProviderError {
  try {
    translate(req);
  } catch (e) {
    expect(e).toBeInstanceOf(ProviderError);
    const err = e as ProviderError;
    expect(err.kind).toBe('request');
    expect(err.retryable).toBe(false);
    expect(err.provider).toBe('eu-route');
    return err;
  }
  throw new Error('expected the request to be refused');
}

describe.each(translators)('legacy function calling for $name', ({ name, model, translate }) => {
  const ask: ChatMessage = { role: 'user', content: 'Weather in Paris?' };

  it('refuses `functions`', () => {
    expect(refusal(translate, { model, messages: [ask], functions: [weatherFn] }).message).toBe(
      `functions: legacy function calling is not translated for ${name}; send tools instead`,
    );
    expect(
      refusal(translate, { model, messages: [ask], functions: [weatherFn], function_call: 'auto' }).message,
    ).toMatch(/^functions: /);
  });

  it('refuses a `function_call` naming a function', () => {
    expect(refusal(translate, { model, messages: [ask], function_call: { name: 'get_weather' } }).message).toBe(
      `function_call: legacy function calling is not translated for ${name}; send tool_choice instead`,
    );
  });

  it('refuses role function messages and assistant function_call, without crashing', () => {
    const call: ChatMessage = {
      role: 'assistant',
      content: null,
      function_call: { name: 'get_weather', arguments: '{"city":"Paris"}' },
    };
    const result: ChatMessage = { role: 'function', name: 'get_weather', content: '18C' };
    const refusedAs = (i: number) =>
      `messages.${i}: legacy function calling (role 'function', assistant function_call) is not translated for ${name}; send tool_calls and role 'tool' results instead`;
    expect(refusal(translate, { model, messages: [ask, call] }).message).toBe(refusedAs(1));
    expect(
      refusal(translate, { model, messages: [ask, { role: 'assistant', content: 'Checking.' }, result] }).message,
    ).toBe(refusedAs(2));
    const nullResult: ChatMessage = { role: 'function', name: 'get_weather', content: null };
    expect(refusal(translate, { model, messages: [ask, nullResult] }).message).toBe(refusedAs(1));
  });

  it('takes what is harmless: empty functions, function_call none or auto, and function_call: null on an echoed assistant message', () => {
    const echoed = { role: 'assistant', content: 'Hello.', function_call: null } as unknown as ChatMessage;
    const body = translate({
      model,
      messages: [ask, echoed, { role: 'user', content: 'Again?' }],
      functions: [],
      function_call: 'none',
    });
    expect(JSON.stringify(body)).not.toMatch(/function_call|functions/);
    expect(() => translate({ model, messages: [ask], function_call: 'auto' })).not.toThrow();
  });
});
