import { describe, expect, it } from 'vitest';
import { completionToChunks, StreamAccumulator } from '../../server/gateway/stream-accumulator.js';
import { forOpenAIFormat } from '../../server/providers/openai-compatible/request.js';
import type { ChatChunk, ChatMessage } from '../../server/providers/types.js';

// Gemini's thought signature rides on tool calls as `extra_content` (Google's OpenAI-compatible
// form): it must survive the stream cache, and must not reach other providers.

const SIGNED = { google: { thought_signature: 'c2lnbmF0dXJl' } };

describe('extra_content on tool calls', () => {
  it('survives a streamed call cached and replayed', () => {
    const acc = new StreamAccumulator();
    const chunk = (
      delta: ChatChunk['choices'][number]['delta'],
      finish: ChatChunk['choices'][number]['finish_reason'] = null,
    ): ChatChunk => ({
      id: 'c1',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'gemini-3-pro',
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
    acc.add(
      chunk({
        role: 'assistant',
        tool_calls: [
          {
            index: 0,
            id: 'call_1',
            type: 'function',
            function: { name: 'get_time', arguments: '{}' },
            extra_content: SIGNED,
          },
        ],
      }),
    );
    acc.add(chunk({}, 'tool_calls'));
    const completion = acc.toCompletion({ prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 })!;
    expect(completion.choices[0]!.message.tool_calls).toEqual([
      { id: 'call_1', type: 'function', function: { name: 'get_time', arguments: '{}' }, extra_content: SIGNED },
    ]);
    const replayed = completionToChunks(completion).flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(replayed).toEqual([
      {
        index: 0,
        id: 'call_1',
        type: 'function',
        function: { name: 'get_time', arguments: '{}' },
        extra_content: SIGNED,
      },
    ]);
  });

  it("is taken off the messages sent to OpenAI-format providers, without touching the caller's", () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'What time is it?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'get_time', arguments: '{}' }, extra_content: SIGNED },
        ],
      },
      { role: 'tool', content: '12:00', tool_call_id: 'call_1' },
    ];
    const sent = forOpenAIFormat(messages, true);
    expect(sent[1]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_time', arguments: '{}' } }],
    });
    expect(sent[0]).toBe(messages[0]);
    expect(messages[1]!.tool_calls![0]!.extra_content).toEqual(SIGNED);

    const plain = messages.filter((m) => m.role !== 'assistant');
    expect(forOpenAIFormat(plain, true)).toBe(plain);
  });
});

describe('developer messages', () => {
  const messages: ChatMessage[] = [
    { role: 'developer', content: 'Be brief.' },
    { role: 'user', content: 'hi' },
  ];

  it("go as system to a provider that does not know the role, without touching the caller's", () => {
    const sent = forOpenAIFormat(messages, false);
    expect(sent).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hi' },
    ]);
    expect(sent[1]).toBe(messages[1]);
    expect(messages[0]!.role).toBe('developer');
  });

  it('go as they are to one that knows it', () => {
    expect(forOpenAIFormat(messages, true)).toBe(messages);
  });
});
