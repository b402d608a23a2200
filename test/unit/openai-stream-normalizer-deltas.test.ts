import { describe, expect, it } from 'vitest';
import { StreamAccumulator } from '../../server/gateway/stream-accumulator.js';
import type { SseEvent } from '../../server/providers/http.js';
import { OpenAIStreamNormalizer } from '../../server/providers/openai-compatible/stream.js';
import type { ChatChunk } from '../../server/providers/types.js';

// Deltas that carry something other than text, tool calls or a refusal are content too, and with
// n > 1 every choice's role-only opening is handed on, in arrival order, before the first content.

const base = { id: 'chatcmpl-9', object: 'chat.completion.chunk', created: 1717000000, model: 'gpt-4o-mini' };
const frame = (choices: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> =>
  Object.assign({}, base, { choices }, extra);
const ev = (obj: unknown): SseEvent => ({ data: typeof obj === 'string' ? obj : JSON.stringify(obj) });
const choice = (delta: unknown, finish: string | null = null, index = 0): Record<string, unknown> => ({
  index,
  delta,
  logprobs: null,
  finish_reason: finish,
});
const usage = { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 };

/**
 * What the adapter hands on: every held opening, then each returned chunk, then end()'s chunk; and
 * the core's accumulator of them (what a stream without usage is counted from).
 */
function run(frames: unknown[], model = 'gpt-4o-mini'): { chunks: unknown[]; acc: StreamAccumulator } {
  const norm = new OpenAIStreamNormalizer('openai', model);
  const chunks: ChatChunk[] = [];
  for (const f of frames) {
    const c = norm.push(ev(f));
    if (c) {
      for (let o = norm.takeOpening(); o; o = norm.takeOpening()) chunks.push(o);
      chunks.push(c);
    }
  }
  const last = norm.end();
  if (last) chunks.push(last);
  const acc = new StreamAccumulator();
  for (const c of chunks) acc.add(c);
  // Compared as JSON objects: what a client would read.
  return { chunks: chunks.map((c) => JSON.parse(JSON.stringify(c)) as unknown), acc };
}

describe('OpenAIStreamNormalizer: deltas without text', () => {
  it('hands on every piece of a legacy function_call, and counts its arguments', () => {
    // OpenAI's deprecated functions API: the name comes in the opening, the arguments in pieces.
    const frames = [
      frame([choice({ role: 'assistant', content: null, function_call: { name: 'get_weather', arguments: '' } })]),
      frame([choice({ function_call: { arguments: '{"city":' } })]),
      frame([choice({ function_call: { arguments: '"Paris"}' } })]),
      frame([choice({}, 'function_call')]),
      frame([], { usage }),
      '[DONE]',
    ];
    const { chunks, acc } = run(frames);
    expect(chunks).toEqual([frames[0], frames[1], frames[2], frames[3], frames[4]]);
    expect(acc.producedText()).toBe('get_weather{"city":"Paris"}');
  });

  it('holds a role-only opening before function_call pieces and hands it on just before them', () => {
    const frames = [
      frame([choice({ role: 'assistant', content: null })]),
      frame([choice({ function_call: { name: 'get_weather', arguments: '' } })]),
      frame([choice({ function_call: { arguments: '{}' } })]),
      frame([choice({}, 'function_call')]),
      '[DONE]',
    ];
    const { chunks, acc } = run(frames);
    expect(chunks).toEqual([frames[0], frames[1], frames[2], frames[3]]);
    expect(acc.producedText()).toBe('get_weather{}');
    expect(acc.usage).toBeUndefined();
  });

  it('hands on audio deltas (gpt-4o-audio-preview), the OpenAI opening still held until them', () => {
    const frames = [
      frame([choice({ role: 'assistant', content: '', refusal: null })]),
      frame([choice({ content: null, audio: { id: 'audio_1', transcript: 'Hello' } })]),
      frame([choice({ content: null, audio: { data: 'UklGRiQAAABXQVZF' } })]),
      frame([choice({ content: null, audio: { expires_at: 1717003600, transcript: ' there' } })]),
      frame([choice({}, 'stop')]),
      frame([], { usage }),
      '[DONE]',
    ];
    const { chunks } = run(frames, 'gpt-4o-audio-preview');
    expect(chunks).toEqual([frames[0], frames[1], frames[2], frames[3], frames[4], frames[5]]);
  });

  it("hands on DeepSeek's reasoning_content before any text, and counts it as output", () => {
    const frames = [
      frame([choice({ role: 'assistant', content: null, reasoning_content: '' })]),
      frame([choice({ content: null, reasoning_content: 'The user greets. ' })]),
      frame([choice({ content: null, reasoning_content: 'Greet back.' })]),
      frame([choice({ content: 'Hi!', reasoning_content: null })]),
      frame([choice({ content: '', reasoning_content: null }, 'stop')]),
      '[DONE]',
    ];
    const { chunks, acc } = run(frames, 'deepseek-reasoner');
    expect(chunks).toEqual([frames[0], frames[1], frames[2], frames[3], frames[4]]);
    expect(acc.producedText()).toBe('Hi!The user greets. Greet back.');
  });

  it('still drops an opening repeated, and deltas whose fields are all null, empty or []', () => {
    const frames = [
      frame([choice({ role: 'assistant', content: '', refusal: null, tool_calls: [] })]),
      frame([choice({ role: 'assistant', content: '' })]),
      frame([choice({ content: null, reasoning_content: '', annotations: [] })]),
      frame([choice({ content: 'x' })]),
      frame([choice({}, 'stop')]),
      '[DONE]',
    ];
    const { chunks } = run(frames);
    expect(chunks).toEqual([frames[0], frames[3], frames[4]]);
  });
});

describe('OpenAIStreamNormalizer: n > 1', () => {
  it('hands on the role-only opening of every choice, in arrival order, before the first content', () => {
    // vLLM: every choice's opening first, then the choices' pieces.
    const frames = [
      frame([choice({ role: 'assistant', content: '' }, null, 1)]),
      frame([choice({ role: 'assistant', content: '' }, null, 0)]),
      frame([choice({ role: 'assistant', content: '' }, null, 1)]),
      frame([choice({ content: 'A' }, null, 0)]),
      frame([choice({ content: 'B' }, null, 1)]),
      frame([choice({}, 'stop', 0)]),
      frame([choice({}, 'stop', 1)]),
      frame([], { usage }),
      '[DONE]',
    ];
    const { chunks } = run(frames);
    // The repeated opening of choice 1 is dropped.
    expect(chunks).toEqual([frames[0], frames[1], frames[3], frames[4], frames[5], frames[6], frames[7]]);
  });

  it('hands on each opening once', () => {
    const norm = new OpenAIStreamNormalizer('openai', 'gpt-4o-mini');
    expect(norm.push(ev(frame([choice({ role: 'assistant', content: '' }, null, 0)])))).toBeUndefined();
    expect(norm.push(ev(frame([choice({ role: 'assistant', content: '' }, null, 1)])))).toBeUndefined();
    expect(norm.takeOpening()).toBeUndefined();
    expect(norm.push(ev(frame([choice({ content: 'A' }, null, 0)])))!.choices[0]!.delta).toEqual({ content: 'A' });
    expect(norm.takeOpening()!.choices[0]!.index).toBe(0);
    expect(norm.takeOpening()!.choices[0]!.index).toBe(1);
    expect(norm.takeOpening()).toBeUndefined();
    expect(norm.push(ev(frame([choice({ content: 'B' }, null, 1)])))!.choices[0]!.delta).toEqual({ content: 'B' });
    expect(norm.takeOpening()).toBeUndefined();
  });
});

describe('a stream choice without a delta', () => {
  it('is handed on as it came, and followed by the stream accumulator', () => {
    // Azure OpenAI's content-filter results, on a choice of their own.
    const filter = { hate: { filtered: false, severity: 'safe' }, violence: { filtered: false, severity: 'safe' } };
    const frames = [
      frame([choice({ role: 'assistant', content: '' })]),
      frame([choice({ content: 'Hi' })]),
      frame([
        {
          index: 0,
          finish_reason: null,
          content_filter_results: filter,
          content_filter_offsets: { check_offset: 0, start_offset: 0, end_offset: 2 },
        },
      ]),
      frame([choice({}, 'stop')]),
      frame([], { usage }),
      '[DONE]',
    ];
    const { chunks, acc } = run(frames, 'gpt-4o');
    expect(chunks).toEqual([frames[0], frames[1], frames[2], frames[3], frames[4]]);
    expect(acc.producedText()).toBe('Hi');
    expect(acc.toCompletion(usage)?.choices[0]).toMatchObject({
      message: { role: 'assistant', content: 'Hi' },
      finish_reason: 'stop',
    });
  });

  it('does not pass on the text of a chunk whose JSON spanned several data: lines (its line breaks would break the frame)', async () => {
    const { chunkJson } = await import('../../server/http/gateway-meta.js');
    const norm = new OpenAIStreamNormalizer('p', 'm');
    const multi = JSON.stringify(frame([{ index: 0, delta: { content: 'hi' }, finish_reason: null }])).replace(
      ',"choices"',
      ',\n"choices"',
    );
    const chunk = norm.push({ data: multi })!;
    expect(chunk.choices[0]!.delta.content).toBe('hi');
    expect(chunkJson(chunk)).not.toContain('\n');
  });
});
