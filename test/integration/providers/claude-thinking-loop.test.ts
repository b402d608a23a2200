import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MODELS } from '../../../server/simulator/config.js';
import { SIM_THINKING_SIGNATURE } from '../../../server/simulator/anthropic.js';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';

// A tool loop on a Claude model that thinks by default (Opus 5.5), through the official OpenAI
// client: the simulator, as Anthropic, starts the answer with a signed thinking block, refuses a
// next turn whose tool-calling assistant message does not begin with it, and refuses sampling
// settings. The client sends the assistant message back as it got it; the gateway does the rest.

const MODEL = 'anthropic/claude-opus-5-5';
const weather = {
  type: 'function' as const,
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
};
let c: ChatEnv;

beforeAll(async () => {
  c = await startChatEnv({
    sim: {
      models: { anthropic: [...DEFAULT_MODELS.anthropic, 'claude-opus-5-5', 'claude-sonnet-5-5', 'claude-sonnet-5'] },
    },
  });
  c.sim.configure({ chunkDelayMs: 0 });
});
afterAll(() => c?.close());

describe('a Claude tool loop with thinking', () => {
  it('takes the next turn: the thinking block rides on the tool call and goes back first in the turn', async () => {
    const question: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Oslo?' }];
    // temperature: left out for this model, which refuses it.
    const first = await c
      .openai()
      .chat.completions.create({ model: MODEL, messages: question, tools: [weather], temperature: 0 });
    const message = first.choices[0]!.message;
    expect(message.tool_calls![0]).toMatchObject({
      extra_content: {
        anthropic: { model: 'claude-opus-5-5', thinking: [{ type: 'thinking', signature: SIM_THINKING_SIGNATURE }] },
      },
    });

    const call = message.tool_calls![0]!;
    const second = await c.openai().chat.completions.create({
      model: MODEL,
      tools: [weather],
      messages: [...question, message, { role: 'tool', tool_call_id: call.id, content: '{"temp_c":-3}' }],
    });
    expect(second.choices[0]!.finish_reason).toBe('stop');
    const sent = c.sim.requests[c.sim.requests.length - 1]!.body as {
      messages: Array<{ role: string; content: Array<Record<string, unknown>> }>;
    };
    expect(sent.messages[1]!.content[0]).toEqual({ type: 'thinking', thinking: '', signature: SIM_THINKING_SIGNATURE });
  });

  it('continues a tool loop another model started: with thinking off where the model allows it, refused before sending where it does not', async () => {
    const question: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Tromsø?' }];
    // The tool turn came from another provider: no thinking blocks to send back.
    const foreign = {
      role: 'assistant' as const,
      content: null,
      tool_calls: [
        { id: 'call_x1', type: 'function' as const, function: { name: 'get_weather', arguments: '{"city":"Tromsø"}' } },
      ],
    };
    const history = [
      ...question,
      foreign,
      { role: 'tool' as const, tool_call_id: 'call_x1', content: '{"temp_c":-8}' },
    ];
    const sonnet = await c
      .openai()
      .chat.completions.create({ model: 'anthropic/claude-sonnet-5-5', tools: [weather], messages: history });
    expect(sonnet.choices[0]!.finish_reason).toBe('stop');
    expect((c.sim.requests[c.sim.requests.length - 1]!.body as Record<string, unknown>)['thinking']).toEqual({
      type: 'disabled',
    });
    // Opus 5.5 cannot turn thinking off: a clear 400 before anything is sent.
    const sent = c.sim.requests.length;
    await expect(
      c.openai().chat.completions.create({ model: MODEL, tools: [weather], messages: history }),
    ).rejects.toMatchObject({ status: 400 });
    expect(c.sim.requests.length).toBe(sent);
  });

  it('answers a forced tool call and JSON mode on a model that thinks by default (thinking off for them, as Anthropic requires)', async () => {
    const forced = await c.openai().chat.completions.create({
      model: 'anthropic/claude-sonnet-5',
      messages: [{ role: 'user', content: 'Weather in Bodø?' }],
      tools: [weather],
      tool_choice: 'required',
    });
    expect(forced.choices[0]!.finish_reason).toBe('tool_calls');
    const json = await c.openai().chat.completions.create({
      model: 'anthropic/claude-sonnet-5',
      messages: [{ role: 'user', content: 'A JSON object, please' }],
      response_format: { type: 'json_object' },
    });
    expect(() => JSON.parse(json.choices[0]!.message.content!)).not.toThrow();
  });

  it('streams the thinking block on the tool call, and the next turn built from the stream is taken', async () => {
    const question: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Bergen?' }];
    const stream = await c
      .openai()
      .chat.completions.create({ model: MODEL, messages: question, tools: [weather], stream: true });
    const deltas: Array<Record<string, any>> = [];
    for await (const chunk of stream)
      deltas.push(...((chunk.choices[0]?.delta?.tool_calls ?? []) as Array<Record<string, any>>));
    const opening = deltas.find((d) => d['id'])!;
    expect(opening['extra_content']).toEqual({
      anthropic: {
        model: 'claude-opus-5-5',
        thinking: [{ type: 'thinking', thinking: '', signature: SIM_THINKING_SIGNATURE }],
      },
    });
    const args = deltas.map((d) => d['function']?.arguments ?? '').join('');
    const message = {
      role: 'assistant' as const,
      content: null,
      tool_calls: [
        {
          id: opening['id'],
          type: 'function' as const,
          function: { name: 'get_weather', arguments: args },
          extra_content: opening['extra_content'],
        },
      ],
    };
    const next = await c.openai().chat.completions.create({
      model: MODEL,
      tools: [weather],
      messages: [
        ...question,
        message as OpenAI.ChatCompletionMessageParam,
        { role: 'tool', tool_call_id: opening['id'], content: '{"temp_c":4}' },
      ],
    });
    expect(next.choices[0]!.finish_reason).toBe('stop');
  });
});
