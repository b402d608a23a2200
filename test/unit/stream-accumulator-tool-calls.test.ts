import { describe, expect, it } from 'vitest';
import { completionToChunks, StreamAccumulator } from '../../server/gateway/stream-accumulator.js';
import type { ChatChunk } from '../../server/providers/types.js';

// Streamed tool calls are kept whole for the cache and for counting tokens: OpenAI's sequence
// (one index per call, id and name first, argument pieces after), and the ways Ollama departs from
// it (several whole calls under index 0, each with its own id; deltas without an index).

const usage = { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 };
const calls = (toolCalls: unknown[], finish: ChatChunk['choices'][number]['finish_reason'] = null): ChatChunk => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'qwen2.5-coder:7b',
  choices: [
    {
      index: 0,
      delta: { role: 'assistant', content: '', tool_calls: toolCalls } as ChatChunk['choices'][number]['delta'],
      finish_reason: finish,
    },
  ],
});
const finish = (): ChatChunk => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'qwen2.5-coder:7b',
  choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }],
});
const fn = (name: string | undefined, args: string | undefined) => ({
  ...(name === undefined ? {} : { name }),
  ...(args === undefined ? {} : { arguments: args }),
});
const toolCall = (id: string, name: string, args: string) => ({
  id,
  type: 'function',
  function: { name, arguments: args },
});

function toolCallsOf(chunks: ChatChunk[]) {
  const acc = new StreamAccumulator();
  for (const c of chunks) acc.add(c);
  return { acc, completion: acc.toCompletion(usage) };
}

describe('StreamAccumulator tool calls', () => {
  it("keeps OpenAI's sequence as it is: one call per index, argument pieces appended in order", () => {
    const { acc, completion } = toolCallsOf([
      calls([{ index: 0, id: 'call_1', type: 'function', function: fn('get_weather', '') }]),
      calls([{ index: 0, function: fn(undefined, '{"city":') }]),
      calls([{ index: 0, function: fn(undefined, '"Paris"}') }]),
      calls([{ index: 1, id: 'call_2', type: 'function', function: fn('get_time', '') }]),
      calls([{ index: 1, function: fn(undefined, '{"tz":"CET"}') }]),
      finish(),
    ]);
    expect(completion!.choices[0]!.message.tool_calls).toEqual([
      toolCall('call_1', 'get_weather', '{"city":"Paris"}'),
      toolCall('call_2', 'get_time', '{"tz":"CET"}'),
    ]);
    expect(acc.producedText()).toBe('get_weather{"city":"Paris"}get_time{"tz":"CET"}');
  });

  it('continues a call whose fragments each come with a fresh id but no name', () => {
    const { completion } = toolCallsOf([
      calls([{ index: 0, id: 'call_1', type: 'function', function: fn('get_weather', '{"city":') }]),
      calls([{ index: 0, id: 'frag_2', function: fn(undefined, '"Oslo"') }]),
      calls([{ index: 0, id: 'frag_3', function: fn(undefined, '}') }]),
      finish(),
    ]);
    expect(completion!.choices[0]!.message.tool_calls).toHaveLength(1);
    expect(completion!.choices[0]!.message.tool_calls![0]).toMatchObject({
      id: 'call_1',
      function: { name: 'get_weather', arguments: '{"city":"Oslo"}' },
    });
  });

  it('continues a call whose every delta repeats its id', () => {
    const { completion } = toolCallsOf([
      calls([{ index: 0, id: 'call_1', function: fn('f', '{"a":') }]),
      calls([{ index: 0, id: 'call_1', function: fn(undefined, '1}') }]),
      finish(),
    ]);
    expect(completion!.choices[0]!.message.tool_calls).toEqual([toolCall('call_1', 'f', '{"a":1}')]);
  });

  it('tells apart whole calls Ollama sends under the same index, each with its own id', () => {
    const { acc, completion } = toolCallsOf([
      calls([{ id: 'call_a1', index: 0, type: 'function', function: fn('file_write', '{"filePath":"hello.py"}') }]),
      calls([{ id: 'call_b2', index: 0, type: 'function', function: fn('file_write', '{"filePath":"world.py"}') }]),
      finish(),
    ]);
    const expected = [
      toolCall('call_a1', 'file_write', '{"filePath":"hello.py"}'),
      toolCall('call_b2', 'file_write', '{"filePath":"world.py"}'),
    ];
    expect(completion!.choices[0]!.message.tool_calls).toEqual(expected);
    expect(acc.producedText()).toBe('file_write{"filePath":"hello.py"}file_write{"filePath":"world.py"}');
    // A replay from the cache numbers the calls as OpenAI would.
    expect(completionToChunks(completion!)[1]!.choices[0]!.delta.tool_calls).toEqual([
      { index: 0, ...expected[0] },
      { index: 1, ...expected[1] },
    ]);
  });

  it('keeps calls whose deltas carry no index: a new id starts a call, a delta without one continues the last', () => {
    const { acc, completion } = toolCallsOf([
      calls([{ id: 'call_c3', type: 'function', function: fn('file_write', '{"filePath":') }]),
      calls([{ function: fn(undefined, '"x.py"}') }]),
      calls([{ id: 'call_c3', function: fn(undefined, '') }]),
      calls([{ id: 'call_d4', type: 'function', function: fn('file_read', '{"filePath":"y.py"}') }]),
      finish(),
    ]);
    expect(completion!.choices[0]!.message).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [
        toolCall('call_c3', 'file_write', '{"filePath":"x.py"}'),
        toolCall('call_d4', 'file_read', '{"filePath":"y.py"}'),
      ],
    });
    expect(acc.producedText()).toBe('file_write{"filePath":"x.py"}file_read{"filePath":"y.py"}');
  });

  it("takes an id that comes after the first delta of an index as that call's own", () => {
    const { completion } = toolCallsOf([
      calls([{ index: 0, function: fn('f', '') }]),
      calls([{ index: 0, id: 'call_late', function: fn(undefined, '{}') }]),
      finish(),
    ]);
    expect(completion!.choices[0]!.message.tool_calls).toEqual([toolCall('call_late', 'f', '{}')]);
  });
});
