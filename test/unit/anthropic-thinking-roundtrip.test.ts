import { describe, expect, it } from 'vitest';
import { toAnthropicRequest } from '../../server/providers/anthropic/request.js';
import { fromAnthropicResponse } from '../../server/providers/anthropic/response.js';
import { AnthropicStreamTranslator } from '../../server/providers/anthropic/stream.js';
import type { SseEvent } from '../../server/providers/http.js';
import type { ChatChunk, ChatMessage, ToolCall } from '../../server/providers/types.js';

// A Claude tool-use loop through the OpenAI format: the thinking blocks of the turn that called a
// tool come back on the tool call (extra_content.anthropic), whole and streamed, and go back to
// Anthropic verbatim, ahead of the turn's other content, when the next request names the same model.

const MODEL = 'claude-opus-5-5';
const thinking = { type: 'thinking', thinking: '', signature: 'EuYBCkQYAiJA0sig' };
const redacted = { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix' };
const answer = {
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'claude-opus-5-5-20260922',
  stop_reason: 'tool_use',
  content: [
    thinking,
    { type: 'text', text: 'Checking both.' },
    { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } },
    redacted,
    { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Bergen' } },
  ],
  usage: { input_tokens: 40, output_tokens: 30 },
};
const weather = {
  type: 'function' as const,
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
};

function nextRequest(model: string, calls: ToolCall[]) {
  const messages: ChatMessage[] = [
    { role: 'user', content: 'Weather in Oslo and Bergen?' },
    { role: 'assistant', content: 'Checking both.', tool_calls: calls },
    { role: 'tool', tool_call_id: 'toolu_1', content: '{"temp_c":3}' },
    { role: 'tool', tool_call_id: 'toolu_2', content: '{"temp_c":5}' },
  ];
  return toAnthropicRequest({ model, messages, tools: [weather] }).body;
}

describe('Claude thinking blocks in a tool loop', () => {
  it('come back on the tool calls of a whole answer and go back ahead of the turn, each before its call', () => {
    const calls = fromAnthropicResponse(answer as never, false, MODEL).choices[0]!.message.tool_calls!;
    expect(calls[0]!.extra_content).toEqual({ anthropic: { model: MODEL, thinking: [thinking] } });
    expect(calls[1]!.extra_content).toEqual({ anthropic: { model: MODEL, thinking: [redacted] } });
    const body = nextRequest(MODEL, JSON.parse(JSON.stringify(calls)) as ToolCall[]);
    expect(body.messages[1]!.content).toEqual([
      thinking,
      { type: 'text', text: 'Checking both.' },
      { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } },
      redacted,
      { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Bergen' } },
    ]);
  });

  it('are not sent to another model, to which they are not tied', () => {
    const calls = fromAnthropicResponse(answer as never, false, MODEL).choices[0]!.message.tool_calls!;
    const body = nextRequest('claude-sonnet-5-5', calls);
    expect((body.messages[1]!.content as Array<{ type: string }>).map((b) => b.type)).toEqual([
      'text',
      'tool_use',
      'tool_use',
    ]);
  });

  it('come back on the streamed tool call too, built from their deltas', () => {
    const tr = new AnthropicStreamTranslator('anthropic', MODEL, false);
    const events = [
      { type: 'message_start', message: { ...answer, content: [], stop_reason: null } },
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Two cities' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'EuYBCkQYAiJA0sig' } },
      { type: 'content_block_stop', index: 0 },
      {
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} },
      },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"city":"Oslo"}' } },
      { type: 'content_block_stop', index: 1 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 30 } },
      { type: 'message_stop' },
    ];
    const chunks: ChatChunk[] = [];
    for (const e of events) {
      const c = tr.push({ event: e.type, data: JSON.stringify(e) } as SseEvent);
      if (c) chunks.push(c);
    }
    const opening = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []).find((t) => t.id === 'toolu_1');
    expect(opening!.extra_content).toEqual({
      anthropic: {
        model: MODEL,
        thinking: [{ type: 'thinking', thinking: 'Two cities', signature: 'EuYBCkQYAiJA0sig' }],
      },
    });
  });
});
