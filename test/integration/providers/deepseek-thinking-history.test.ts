import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdapter } from '../../../server/providers/factory.js';
import { closeHttp } from '../../../server/providers/http.js';
import type { ChatMessage, ProviderAdapter } from '../../../server/providers/types.js';
import { callOptions as opts } from '../../support/adapter-calls.js';
import { StandIns } from '../../support/stand-in.js';

// DeepSeek V4 thinks unless told not to, and then needs the reasoning_content of every assistant
// turn that called a tool; a history whose tool turns another provider answered has none. Such a
// request goes with thinking off; one DeepSeek answered itself goes as it is. Checked on what a
// stand-in DeepSeek receives.

const standIns = new StandIns();
const received: Array<Record<string, unknown>> = [];
let adapter: ProviderAdapter;

beforeAll(async () => {
  const baseUrl = await standIns.startJson((body, _req, res) => {
    received.push(body);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'c1',
        object: 'chat.completion',
        created: 1,
        model: 'deepseek-flash',
        choices: [{ index: 0, message: { role: 'assistant', content: '12 °C in Oslo' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 30, completion_tokens: 5, total_tokens: 35 },
      }),
    );
  });
  adapter = createAdapter({
    name: 'deepseek',
    family: 'openai-compatible',
    baseUrl,
    apiKey: 'sk-deepseek-test-0123456789',
    builtinModels: ['deepseek-flash'],
  });
});
afterAll(async () => {
  await closeHttp();
  await standIns.closeAll();
});

const history = (assistant: Partial<ChatMessage>): ChatMessage[] => [
  { role: 'user', content: 'Weather in Oslo?' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }],
    ...assistant,
  } as ChatMessage,
  { role: 'tool', tool_call_id: 'call_1', content: '{"temp_c":12}' },
];

describe('DeepSeek thinking and tool histories', () => {
  it('turns thinking off for a history whose tool turn has no reasoning_content, and leaves the others alone', async () => {
    await adapter.chat({ model: 'deepseek-flash', messages: history({}) }, opts());
    expect(received.at(-1)!['thinking']).toEqual({ type: 'disabled' });

    await adapter.chat(
      {
        model: 'deepseek-flash',
        messages: history({ reasoning_content: 'The user wants the weather.' } as Partial<ChatMessage>),
      },
      opts(),
    );
    expect(received.at(-1)).not.toHaveProperty('thinking');

    await adapter.chat(
      { model: 'deepseek-v4-pro', messages: history({}), thinking: { type: 'enabled' } } as never,
      opts(),
    );
    expect(received.at(-1)!['thinking']).toEqual({ type: 'enabled' });

    await adapter.chat({ model: 'deepseek-flash', messages: [{ role: 'user', content: 'Hi' }] }, opts());
    expect(received.at(-1)).not.toHaveProperty('thinking');
  });

  it('turns thinking off for reasoning_effort "none", which DeepSeek\'s effort lacks, and sends the other efforts on', async () => {
    await adapter.chat(
      { model: 'deepseek-flash', messages: [{ role: 'user', content: 'Hi' }], reasoning_effort: 'none' },
      opts(),
    );
    expect(received.at(-1)!['thinking']).toEqual({ type: 'disabled' });
    expect(received.at(-1)).not.toHaveProperty('reasoning_effort');
    await adapter.chat(
      { model: 'deepseek-flash', messages: [{ role: 'user', content: 'Hi' }], reasoning_effort: 'low' },
      opts(),
    );
    expect(received.at(-1)).toMatchObject({ reasoning_effort: 'low' });
    expect(received.at(-1)).not.toHaveProperty('thinking');
  });
});
