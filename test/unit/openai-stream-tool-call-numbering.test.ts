import { describe, expect, it } from 'vitest';
import { chunkJson } from '../../server/http/gateway-meta.js';
import { OpenAIStreamNormalizer } from '../../server/providers/openai-compatible/stream.js';
import { rawJsonOf } from '../../server/providers/raw-json.js';
import type { ChatChunk } from '../../server/providers/types.js';

// Tool calls reach the client numbered as OpenAI numbers them (one index per call, in the order the
// calls start), whatever index the server used: clients merge deltas by index. Read from the
// frames as they go on the wire (chunkJson), where an unchanged chunk keeps the upstream's text.

const base = { id: 'chatcmpl-7', object: 'chat.completion.chunk', created: 1717000000, model: 'qwen2.5-coder:7b' };
const frame = (toolCalls: unknown[], finish: string | null = null, index = 0) =>
  JSON.stringify({
    ...base,
    choices: [{ index, delta: { role: 'assistant', content: '', tool_calls: toolCalls }, finish_reason: finish }],
  });
const finish = JSON.stringify({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] });
const call = (id: string | undefined, index: number | undefined, name: string | undefined, args: string) => ({
  ...(id === undefined ? {} : { id, type: 'function' }),
  ...(index === undefined ? {} : { index }),
  function: { ...(name === undefined ? {} : { name }), arguments: args },
});

/** The chunks handed on, as a client parses their frames. */
function wire(frames: string[]): { sent: ChatChunk[]; kept: boolean[] } {
  const norm = new OpenAIStreamNormalizer('ollama', 'qwen2.5-coder:7b');
  const out: ChatChunk[] = [];
  for (const f of [...frames, '[DONE]']) {
    const c = norm.push({ data: f });
    if (c) out.push(c);
  }
  norm.end();
  return {
    sent: out.map((c) => JSON.parse(chunkJson(c)) as ChatChunk),
    kept: out.map((c) => rawJsonOf(c) !== undefined),
  };
}

const indexes = (chunks: ChatChunk[]) =>
  chunks.flatMap((c) => c.choices.flatMap((ch) => (ch.delta.tool_calls ?? []).map((t) => [t.id ?? null, t.index])));

describe('OpenAIStreamNormalizer: tool-call indexes', () => {
  it("numbers Ollama's whole calls sent under one index 0, 1, ... (the SDK glued them into one call before)", () => {
    const { sent } = wire([
      frame([call('call_a1', 0, 'file_write', '{"filePath":"hello.py"}')]),
      frame([call('call_b2', 0, 'file_write', '{"filePath":"world.py"}')]),
      frame([call('call_c3', 0, 'file_read', '{"filePath":"x.py"}')]),
      finish,
    ]);
    expect(indexes(sent)).toEqual([
      ['call_a1', 0],
      ['call_b2', 1],
      ['call_c3', 2],
    ]);
    expect(sent[1]!.choices[0]!.delta.tool_calls![0]!.function).toEqual({
      name: 'file_write',
      arguments: '{"filePath":"world.py"}',
    });
  });

  it('gives deltas without an index the index of the call they continue, or a new one for a new id', () => {
    const { sent } = wire([
      frame([call('call_1', undefined, 'get_weather', '{"city":')]),
      frame([call(undefined, undefined, undefined, '"Paris"}')]),
      frame([call('call_2', undefined, 'get_time', '{}')]),
      finish,
    ]);
    expect(indexes(sent)).toEqual([
      ['call_1', 0],
      [null, 0],
      ['call_2', 1],
    ]);
  });

  it("passes OpenAI's own numbering unchanged, the upstream's text included", () => {
    const frames = [
      frame([call('call_1', 0, 'get_weather', '')]),
      frame([call(undefined, 0, undefined, '{"city":"Paris"}')]),
      frame([call('call_2', 1, 'get_time', '')]),
      frame([call(undefined, 1, undefined, '{"tz":"CET"}')]),
      // Several calls in one delta, as some servers send them.
      frame([call('call_3', 2, 'a', '{}'), call('call_4', 3, 'b', '{}')]),
      finish,
    ];
    const { sent, kept } = wire(frames);
    expect(indexes(sent)).toEqual([
      ['call_1', 0],
      [null, 0],
      ['call_2', 1],
      [null, 1],
      ['call_3', 2],
      ['call_4', 3],
    ]);
    expect(kept.every(Boolean)).toBe(true);
  });

  it('keeps one call whose every fragment comes with a fresh id but no name (as some servers send it)', () => {
    const { sent } = wire([
      frame([call('call_1', 0, 'get_weather', '{"city":')]),
      frame([call('frag_2', 0, undefined, '"Oslo"')]),
      frame([call('frag_3', 0, undefined, '}')]),
      finish,
    ]);
    expect(sent.map((c) => c.choices[0]!.delta.tool_calls?.[0]?.index).filter((i) => i !== undefined)).toEqual([
      0, 0, 0,
    ]);
  });

  it('numbers each choice on its own (n > 1)', () => {
    const { sent } = wire([
      frame([call('call_x', 0, 'f', '{}')], null, 0),
      frame([call('call_y', 0, 'f', '{}')], null, 1),
      frame([call('call_z', 0, 'g', '{}')], null, 1),
      finish,
    ]);
    expect(
      sent
        .filter((c) => c.choices[0]!.delta.tool_calls)
        .map((c) => [c.choices[0]!.index, c.choices[0]!.delta.tool_calls![0]!.index]),
    ).toEqual([
      [0, 0],
      [1, 0],
      [1, 1],
    ]);
  });
});
