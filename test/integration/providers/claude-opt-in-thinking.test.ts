import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MODELS } from '../../../server/simulator/config.js';
import { SIM_THINKING_SIGNATURE, SIM_THINKING_TEXT } from '../../../server/simulator/anthropic.js';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';

// reasoning_effort on the Claude models that think only when asked, through the official OpenAI
// client: the simulator checks thinking as Anthropic does (a budget below max_tokens and only where
// the model takes one, adaptive thinking only where it has it, no sampling settings while
// thinking, thinking blocks back first in a tool loop's next turn). The model's thinking comes back
// as reasoning_content, whole and streamed.

let c: ChatEnv;
const weather = {
  type: 'function' as const,
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
};
const question: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'What is 17 times 23?' }];
const lastSent = () => c.sim.requests[c.sim.requests.length - 1]!.body as Record<string, unknown>;
type WithReasoning = { reasoning_content?: string };

beforeAll(async () => {
  c = await startChatEnv({
    sim: { models: { anthropic: [...DEFAULT_MODELS.anthropic, 'claude-sonnet-4-6', 'claude-haiku-4-5'] } },
  });
  c.sim.configure({ chunkDelayMs: 0 });
});
afterAll(() => c?.close());

describe('thinking asked for with reasoning_effort on Claude', () => {
  it('thinks within a budget on Sonnet 4.5 (its temperature left out), and shows the thinking as reasoning_content', async () => {
    const res = await c.openai().chat.completions.create({
      model: 'anthropic/claude-sonnet-4-5',
      messages: question,
      reasoning_effort: 'medium',
      temperature: 0.3,
    });
    expect(lastSent()).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 4_096 }, max_tokens: 8_192 });
    expect(lastSent()).not.toHaveProperty('temperature');
    const message = res.choices[0]!.message as OpenAI.ChatCompletionMessage & WithReasoning;
    expect(message.content).toBeTruthy();
    expect(message.reasoning_content).toBe(SIM_THINKING_TEXT);
  });

  it('thinks adaptively on Sonnet 4.6, streamed: reasoning_content deltas before the answer', async () => {
    const stream = await c.openai().chat.completions.create({
      model: 'anthropic/claude-sonnet-4-6',
      messages: question,
      reasoning_effort: 'high',
      stream: true,
    });
    let reasoning = '';
    let text = '';
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as (OpenAI.ChatCompletionChunk.Choice.Delta & WithReasoning) | undefined;
      reasoning += delta?.reasoning_content ?? '';
      if (delta?.content) {
        expect(reasoning).toBe(SIM_THINKING_TEXT);
        text += delta.content;
      }
    }
    expect(reasoning).toBe(SIM_THINKING_TEXT);
    expect(text).not.toBe('');
    expect(lastSent()).toMatchObject({ thinking: { type: 'adaptive' }, output_config: { effort: 'high' } });
  });

  it("takes a tool loop's next turn with the thinking blocks sent back first, whole and streamed", async () => {
    for (const stream of [false, true]) {
      const ask = (messages: OpenAI.ChatCompletionMessageParam[]): Promise<OpenAI.ChatCompletion> => {
        const params = {
          model: 'anthropic/claude-haiku-4-5',
          messages,
          tools: [weather],
          reasoning_effort: 'low' as const,
        };
        return stream
          ? c.openai().chat.completions.stream(params).finalChatCompletion()
          : c.openai().chat.completions.create(params);
      };
      const first = await ask([{ role: 'user', content: 'Weather in Oslo?' }]);
      const message = first.choices[0]!.message;
      const call = message.tool_calls![0]!;
      expect(call).toMatchObject({
        extra_content: {
          anthropic: { model: 'claude-haiku-4-5', thinking: [{ type: 'thinking', signature: SIM_THINKING_SIGNATURE }] },
        },
      });
      const second = await ask([
        { role: 'user', content: 'Weather in Oslo?' },
        message,
        { role: 'tool', tool_call_id: call.id, content: '{"temp_c":-3}' },
      ]);
      expect(second.choices[0]!.finish_reason).toBe('stop');
      expect(lastSent()['thinking']).toEqual({ type: 'enabled', budget_tokens: 1_024 });
      expect(
        (lastSent()['messages'] as Array<{ content: Array<Record<string, unknown>> }>)[1]!.content[0],
      ).toMatchObject({ type: 'thinking', signature: SIM_THINKING_SIGNATURE });
    }
  });
});
