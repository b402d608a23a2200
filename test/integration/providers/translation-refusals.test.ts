// Requests OpenAI takes and Anthropic or Gemini would refuse, through the official OpenAI client
// to the simulator (which refuses them as the real APIs do): a tool history summarised without
// tools and a `parameters: {}` tool (Anthropic), penalties for gemini-2.5-flash (Gemini); and
// legacy function calling, which is refused with 400 before anything is sent.
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';

let c: ChatEnv;
beforeAll(async () => {
  c = await startChatEnv();
});
afterAll(() => c.close());

/** The body of the last request of a format the simulator received. */
function lastBody(format: 'anthropic' | 'gemini'): Record<string, unknown> {
  const reqs = c.sim.requests.filter((r) => r.format === format && r.method === 'POST');
  return reqs[reqs.length - 1]!.body as Record<string, unknown>;
}
const upstreamCalls = (): number => c.sim.requests.filter((r) => r.method === 'POST').length;

const toolLoop: ChatCompletionMessageParam[] = [
  { role: 'user', content: 'What is the weather in Oslo?' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }],
  },
  { role: 'tool', tool_call_id: 'call_1', content: 'Snowing, -3C' },
  { role: 'user', content: 'Summarise that in one line.' },
];

describe('anthropic', () => {
  it('the simulator refuses tool blocks without tools and a schema without a type, as Anthropic does', async () => {
    const post = (body: unknown) =>
      fetch(`${c.sim.baseUrls.anthropic}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
        body: JSON.stringify(body),
      });
    const noTools = await post({
      model: 'claude-sonnet-4-5',
      max_tokens: 50,
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Snowing' }] },
      ],
    });
    expect(noTools.status).toBe(400);
    expect(await noTools.json()).toEqual({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: 'Requests which include `tool_use` or `tool_result` blocks must define tools.',
      },
    });
    const typeless = await post({
      model: 'claude-sonnet-4-5',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ name: 'ping', input_schema: {} }],
    });
    expect(typeless.status).toBe(400);
    expect(((await typeless.json()) as { error: { message: string } }).error.message).toBe(
      'tools.0.custom.input_schema.type: Field required',
    );
  });

  it('answers the summary turn after a tool loop sent without tools, whole and streamed', async () => {
    const res = await c.openai().chat.completions.create({ model: 'anthropic/claude-sonnet-4-5', messages: toolLoop });
    expect(res.choices[0]!.message.content).toBeTruthy();
    expect(res.choices[0]!.message.tool_calls ?? []).toEqual([]);
    expect(lastBody('anthropic')).toMatchObject({
      tools: [{ name: 'get_weather', input_schema: { type: 'object' } }],
      tool_choice: { type: 'none' },
    });

    const stream = await c
      .openai()
      .chat.completions.create({ model: 'anthropic/claude-sonnet-4-5', messages: toolLoop, stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBeTruthy();
  });

  it('takes a tool with `parameters: {}`', async () => {
    const res = await c.openai().chat.completions.create({
      model: 'anthropic/claude-sonnet-4-5',
      messages: [{ role: 'user', content: 'Ping the server.' }],
      tools: [{ type: 'function', function: { name: 'ping', parameters: {} } }],
      tool_choice: 'required',
    });
    expect(res.choices[0]!.message.tool_calls?.[0]).toMatchObject({ type: 'function', function: { name: 'ping' } });
    expect(lastBody('anthropic')['tools']).toEqual([{ name: 'ping', input_schema: { type: 'object' } }]);
  });
});

describe('gemini', () => {
  const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Say hello.' }];

  it('the simulator refuses a penalty for gemini-2.5-flash, as Gemini does', async () => {
    const res = await fetch(`${c.sim.baseUrls.gemini}/models/gemini-2.5-flash:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': 'k' },
      body: JSON.stringify({
        contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
        generationConfig: { presencePenalty: 0.5 },
      }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: { code: 400, message: 'Penalty is not enabled for models/gemini-2.5-flash', status: 'INVALID_ARGUMENT' },
    });
  });

  it('answers a request with penalties on gemini-2.5-flash, sent without them, and passes them to gemini-2.0-flash', async () => {
    const res = await c.openai().chat.completions.create({
      model: 'gemini/gemini-2.5-flash',
      messages,
      presence_penalty: 0.5,
      frequency_penalty: 0.3,
      temperature: 0.2,
    });
    expect(res.choices[0]!.message.content).toBeTruthy();
    expect(lastBody('gemini')['generationConfig']).toEqual({ temperature: 0.2 });

    await c.openai().chat.completions.create({
      model: 'gemini/gemini-2.0-flash',
      messages,
      presence_penalty: 0.5,
      frequency_penalty: 0.3,
    });
    expect(lastBody('gemini')['generationConfig']).toEqual({ presencePenalty: 0.5, frequencyPenalty: 0.3 });
  });
});

describe('legacy function calling', () => {
  it('is refused with 400 for Anthropic and Gemini before anything is sent', async () => {
    const before = upstreamCalls();
    const fn = { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } };
    for (const model of ['anthropic/claude-sonnet-4-5', 'gemini/gemini-2.5-flash']) {
      const err = await c
        .openai()
        .chat.completions.create({ model, messages: [{ role: 'user', content: 'Weather in Oslo?' }], functions: [fn] })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(err).toBeInstanceOf(OpenAI.APIError);
      expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
      expect((err as InstanceType<typeof OpenAI.APIError>).message).toMatch(
        /functions: legacy function calling is not translated for (Anthropic|Gemini); send tools instead/,
      );
    }
    expect(upstreamCalls()).toBe(before);
  });
});
