// Requests written for gpt-4o, through the official OpenAI client, to models and providers that
// refuse parts of them: o3-mini on the simulator (which refuses what OpenAI refuses for reasoning
// models), Grok 4 on xAI, a Mistral model and Groq (all played by the simulator's OpenAI format, with the
// body they were sent checked). What only renames or hints is adapted, whole and streamed; stop
// sequences and logprobs get a 400 before any upstream call; other models get every field unchanged.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MODELS } from '../../../server/simulator/config.js';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';

let c: ChatEnv;
beforeAll(async () => {
  c = await startChatEnv({
    xai: true,
    mistral: true,
    groq: true,
    sim: { models: { openai: [...DEFAULT_MODELS.openai, 'grok-4', 'grok-3', 'mistral-small-latest'] } },
  });
});
afterAll(() => c.close());

const messages = [{ role: 'user' as const, content: 'Think it through: what is 17 times 23?' }];

/** The body of the last chat request the simulator received. */
function lastUpstreamBody(): Record<string, unknown> {
  const chats = c.sim.requests.filter((r) => r.path.endsWith('/chat/completions'));
  return chats[chats.length - 1]!.body as Record<string, unknown>;
}
const upstreamChats = (): number => c.sim.requests.filter((r) => r.path.endsWith('/chat/completions')).length;

describe('an OpenAI reasoning model', () => {
  it('the simulator refuses max_tokens and a temperature for it, as OpenAI does', async () => {
    const res = await fetch(`${c.sim.baseUrls.openai}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
      body: JSON.stringify({ model: 'o3-mini', messages, max_tokens: 50 }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: unknown }).error).toMatchObject({
      param: 'max_tokens',
      code: 'unsupported_parameter',
    });
  });

  it('serves a request with max_tokens and sampling settings, sending max_completion_tokens and leaving the settings out', async () => {
    const res = await c.openai().chat.completions.create({
      model: 'openai/o3-mini',
      messages,
      max_tokens: 64,
      temperature: 0.7,
      top_p: 0.9,
      presence_penalty: 0.2,
    });
    expect(res.choices[0]!.message.content).toBeTruthy();
    const sent = lastUpstreamBody();
    expect(sent).toMatchObject({ model: 'o3-mini', max_completion_tokens: 64 });
    for (const k of ['max_tokens', 'temperature', 'top_p', 'presence_penalty']) expect(sent).not.toHaveProperty(k);

    const stream = await c
      .openai()
      .chat.completions.create({ model: 'openai/o3-mini', messages, max_tokens: 64, temperature: 0.3, stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBeTruthy();
    expect(lastUpstreamBody()).toMatchObject({ model: 'o3-mini', max_completion_tokens: 64, stream: true });
    expect(lastUpstreamBody()).not.toHaveProperty('temperature');
  });

  it('refuses stop sequences and logprobs with 400 before calling it', async () => {
    const before = upstreamChats();
    for (const extra of [{ stop: ['\n\n'] }, { logprobs: true }]) {
      const err = await c
        .openai()
        .chat.completions.create({ model: 'openai/o3-mini', messages, ...extra })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(err).toBeInstanceOf(OpenAI.APIError);
      expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
      expect((err as InstanceType<typeof OpenAI.APIError>).message).toMatch(/o3-mini is a reasoning model/);
    }
    expect(upstreamChats()).toBe(before);
  });

  it('leaves other models their max_tokens, sampling settings and stop sequences', async () => {
    const withDeveloper = [{ role: 'developer' as const, content: 'Be brief.' }, ...messages];
    await c.openai().chat.completions.create({
      model: 'openai/gpt-4o-mini',
      messages: withDeveloper,
      max_tokens: 64,
      temperature: 0.7,
      stop: ['END'],
    });
    expect(lastUpstreamBody()).toMatchObject({
      model: 'gpt-4o-mini',
      messages: withDeveloper,
      max_tokens: 64,
      temperature: 0.7,
      stop: ['END'],
    });
    expect(lastUpstreamBody()).not.toHaveProperty('max_completion_tokens');
  });
});

describe('xAI Grok 4', () => {
  it('is sent without the penalties and reasoning_effort it refuses, and stop sequences are refused', async () => {
    await c.openai().chat.completions.create({
      model: 'xai/grok-4',
      messages,
      max_tokens: 64,
      temperature: 0.5,
      presence_penalty: 0.1,
      frequency_penalty: 0.1,
      reasoning_effort: 'low',
    });
    const sent = lastUpstreamBody();
    expect(sent).toMatchObject({ model: 'grok-4', max_tokens: 64, temperature: 0.5 });
    for (const k of ['presence_penalty', 'frequency_penalty', 'reasoning_effort']) expect(sent).not.toHaveProperty(k);

    const before = upstreamChats();
    const err = await c
      .openai()
      .chat.completions.create({ model: 'xai/grok-4', messages, stop: ['END'] })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
    expect(upstreamChats()).toBe(before);

    await c.openai().chat.completions.create({ model: 'xai/grok-3', messages, presence_penalty: 0.1, stop: ['END'] });
    expect(lastUpstreamBody()).toMatchObject({ model: 'grok-3', presence_penalty: 0.1, stop: ['END'] });
  });
});

describe('Mistral, which refuses fields it does not define', () => {
  it('gets only its own fields, whole and streamed: max_completion_tokens and seed renamed, the rest left out', async () => {
    const history = [
      { role: 'developer' as const, content: 'Be brief.' },
      { role: 'user' as const, content: 'hi', name: 'ana' },
      { role: 'assistant' as const, content: 'Hello.', refusal: null },
      ...messages,
    ];
    await c.openai().chat.completions.create({
      model: 'mistral/mistral-small-latest',
      messages: history,
      max_completion_tokens: 64,
      seed: 7,
      store: false,
      user: 'u-1',
      temperature: 0.2,
    });
    const sent = lastUpstreamBody();
    expect(sent).toEqual({
      model: 'mistral-small-latest',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'Hello.' },
        ...messages,
      ],
      max_tokens: 64,
      random_seed: 7,
      temperature: 0.2,
    });

    const stream = await c.openai().chat.completions.create({
      model: 'mistral/mistral-small-latest',
      messages,
      max_completion_tokens: 64,
      stream: true,
      stream_options: { include_usage: true },
    });
    let usage: unknown;
    for await (const chunk of stream) usage = chunk.usage ?? usage;
    expect(usage).toBeTruthy();
    expect(lastUpstreamBody()).toEqual({ model: 'mistral-small-latest', messages, max_tokens: 64, stream: true });
  });
});

describe('Groq, which refuses a few OpenAI fields', () => {
  it('is sent no logit_bias, message names or developer role, and logprobs or n > 1 are refused before calling it', async () => {
    await c.openai().chat.completions.create({
      model: 'groq/gpt-4o-mini',
      messages: [
        { role: 'developer', content: 'Be brief.' },
        { role: 'user', content: 'hi', name: 'ana' },
      ],
      logit_bias: { '1': 2 },
      seed: 3,
    });
    // Only OpenAI knows the developer role: elsewhere it goes as system.
    expect(lastUpstreamBody()).toEqual({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hi' },
      ],
      seed: 3,
    });

    const before = upstreamChats();
    for (const extra of [{ logprobs: true }, { n: 2 }]) {
      const err = await c
        .openai()
        .chat.completions.create({ model: 'groq/gpt-4o-mini', messages, ...extra })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
    }
    expect(upstreamChats()).toBe(before);
  });
});

describe("OpenAI's deprecated function calling", () => {
  const functions = [{ name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }];
  const history = [
    { role: 'user' as const, content: 'Weather in Oslo?' },
    { role: 'assistant' as const, content: null, function_call: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
    { role: 'function' as const, name: 'get_weather', content: '{"temp":3}' },
  ];

  it('goes to OpenAI as it was sent: functions, function_call and function messages', async () => {
    await c
      .openai()
      .chat.completions.create({ model: 'openai/gpt-4o-mini', messages: history, functions, function_call: 'auto' });
    expect(lastUpstreamBody()).toMatchObject({
      model: 'gpt-4o-mini',
      messages: history,
      functions,
      function_call: 'auto',
    });
  });

  it('is refused with 400 before calling a provider that would drop it (Mistral), and a function message needs its name', async () => {
    const before = upstreamChats();
    for (const body of [{ messages, functions }, { messages: history }]) {
      const err = await c
        .openai()
        .chat.completions.create({ model: 'mistral/mistral-small-latest', ...body })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
      expect((err as InstanceType<typeof OpenAI.APIError>).message).toMatch(
        /deprecated function calling|'function' messages/,
      );
    }
    const unnamed = await fetch(`${c.env.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${c.tenant.token}` },
      body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'function', content: '{}' }] }),
    });
    expect(unnamed.status).toBe(400);
    expect(((await unnamed.json()) as { error: { message: string } }).error.message).toMatch(
      /messages\.0\.name: required for role function/,
    );
    expect(upstreamChats()).toBe(before);
  });
});
