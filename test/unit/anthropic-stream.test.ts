import { describe, expect, it } from 'vitest';
import { JSON_TOOL_NAME } from '../../server/providers/anthropic/request.js';
import { fromAnthropicResponse } from '../../server/providers/anthropic/response.js';
import { AnthropicStreamTranslator } from '../../server/providers/anthropic/stream.js';
import { ProviderError, type ChatChunk } from '../../server/providers/types.js';
import type { SseEvent } from '../../server/providers/http.js';

function events(list: Array<Record<string, unknown>>): SseEvent[] {
  return list.map((e) => ({ event: String(e['type']), data: JSON.stringify(e) }));
}

function run(evs: SseEvent[], jsonTool = false): ChatChunk[] {
  const tr = new AnthropicStreamTranslator('anthropic', 'claude-sonnet-4-5', jsonTool);
  const out: ChatChunk[] = [];
  for (const ev of evs) {
    const c = tr.push(ev);
    if (c) out.push(c);
  }
  tr.end();
  return out;
}

/** Arguments of each streamed tool call, joined the way OpenAI clients join them. */
function streamedArguments(chunks: ChatChunk[]): string[] {
  const args: string[] = [];
  for (const c of chunks) {
    for (const tc of c.choices[0]?.delta.tool_calls ?? [])
      args[tc.index] = (args[tc.index] ?? '') + (tc.function?.arguments ?? '');
  }
  return args;
}

const start = {
  type: 'message_start',
  message: {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [],
    stop_reason: null,
    usage: { input_tokens: 50, output_tokens: 1 },
  },
};
const end = [
  { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 12 } },
  { type: 'message_stop' },
];

describe('anthropic tool calls without parameters', () => {
  // The exact sequence the Messages API streams for a call of a tool that takes no input.
  const noParams = events([
    start,
    {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'tool_use', id: 'toolu_01', name: 'get_time', input: {} },
    },
    { type: 'ping' },
    { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '' } },
    { type: 'content_block_stop', index: 0 },
    ...end,
  ]);

  it('ends the call with arguments "{}", as the non-streamed answer gives them', () => {
    const chunks = run(noParams);
    expect(streamedArguments(chunks)).toEqual(['{}']);
    const whole = fromAnthropicResponse(
      {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [{ type: 'tool_use', id: 'toolu_01', name: 'get_time', input: {} }],
        stop_reason: 'tool_use',
      },
      false,
    );
    expect(whole.choices[0]!.message.tool_calls![0]!.function.arguments).toBe(streamedArguments(chunks)[0]);
    expect(chunks.map((c) => c.choices[0]?.finish_reason).filter(Boolean)).toEqual(['tool_calls']);
  });

  it('adds nothing to a call whose arguments arrived, and handles both kinds side by side', () => {
    const chunks = run(
      events([
        start,
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Checking.' } },
        { type: 'content_block_stop', index: 0 },
        {
          type: 'content_block_start',
          index: 1,
          content_block: { type: 'tool_use', id: 'toolu_a', name: 'get_weather', input: {} },
        },
        { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '' } },
        {
          type: 'content_block_delta',
          index: 1,
          delta: { type: 'input_json_delta', partial_json: '{"city": "Oslo"}' },
        },
        { type: 'content_block_stop', index: 1 },
        {
          type: 'content_block_start',
          index: 2,
          content_block: { type: 'tool_use', id: 'toolu_b', name: 'get_time', input: {} },
        },
        { type: 'content_block_stop', index: 2 },
        ...end,
      ]),
    );
    expect(streamedArguments(chunks)).toEqual(['{"city": "Oslo"}', '{}']);
    expect(chunks.map((c) => c.choices[0]?.delta.content).filter((t) => typeof t === 'string')).toEqual(['Checking.']);
  });

  it('gives the forced JSON tool "{}" as content when its input is empty', () => {
    const chunks = run(
      events([
        start,
        {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'tool_use', id: 'toolu_j', name: JSON_TOOL_NAME, input: {} },
        },
        { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '' } },
        { type: 'content_block_stop', index: 0 },
        ...end,
      ]),
      true,
    );
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('{}');
    expect(chunks.map((c) => c.choices[0]?.finish_reason).filter(Boolean)).toEqual(['stop']);
  });
});

describe('anthropic stream error events', () => {
  it('keep the provider message but never the key', () => {
    const key = 'sk-ant-api03-secret-0123456789';
    const tr = new AnthropicStreamTranslator('anthropic', 'm', false, [key]);
    try {
      tr.push({
        event: 'error',
        data: JSON.stringify({
          type: 'error',
          error: { type: 'authentication_error', message: `invalid x-api-key ${key}` },
        }),
      });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ProviderError);
      expect((e as ProviderError).status).toBe(401);
      expect((e as ProviderError).message).toContain('invalid x-api-key');
      expect((e as ProviderError).message).not.toContain(key);
    }
  });
});

describe('anthropic streams that carry no answer', () => {
  it('refuses a stream with neither content nor a stop_reason, so the gateway falls back', () => {
    expect(() => run(events([{ type: 'message_stop' }]))).toThrow(ProviderError);
    expect(() => run(events([start, { type: 'message_stop' }]))).toThrow(/without an answer/);
  });

  it('accepts an answer that is empty but finished', () => {
    const chunks = run(
      events([
        start,
        { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 0 } },
        { type: 'message_stop' },
      ]),
    );
    expect(chunks.some((c) => c.choices[0]?.finish_reason === 'stop')).toBe(true);
  });
});
