import { describe, expect, it } from 'vitest';
import { completionToChunks, StreamAccumulator } from '../../server/gateway/stream-accumulator.js';
import type { ChatChunk, ChatCompletion } from '../../server/providers/types.js';

// A streamed answer is cached only when a whole completion can hold all of it, and a cached whole
// completion is replayed as a stream with everything its message carried.

type Choice = ChatChunk['choices'][number];
const chunk = (choices: unknown[]): ChatChunk => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'gpt-4o-mini',
  choices: choices as ChatChunk['choices'],
});
const delta = (d: Record<string, unknown>, finish: Choice['finish_reason'] = null): ChatChunk =>
  chunk([{ index: 0, delta: d, finish_reason: finish }]);
const usage = { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 };

function accumulate(chunks: ChatChunk[]): StreamAccumulator {
  const acc = new StreamAccumulator();
  for (const c of chunks) acc.add(c);
  return acc;
}

describe('StreamAccumulator', () => {
  it('takes a choice without a delta (Azure content-filter results), and caches the answer', () => {
    const acc = accumulate([
      delta({ role: 'assistant', content: '', refusal: null }),
      // Fields with nothing in them lose nothing: the answer is still cached.
      delta({ content: 'Hi', reasoning_content: null, annotations: [] }),
      chunk([
        { index: 0, finish_reason: null, content_filter_results: { hate: { filtered: false, severity: 'safe' } } },
      ]),
      delta({ content: '', reasoning_content: '' }, 'stop'),
    ]);
    expect(acc.producedText()).toBe('Hi');
    expect(acc.toCompletion(usage)!.choices[0]!.message).toEqual({ role: 'assistant', content: 'Hi' });
  });

  const unrepresentable: Array<[string, ChatChunk[]]> = [
    [
      'a legacy function_call',
      [
        delta({ role: 'assistant', content: null, function_call: { name: 'get_weather', arguments: '' } }),
        delta({ function_call: { arguments: '{}' } }),
        delta({}, 'function_call' as Choice['finish_reason']),
      ],
    ],
    [
      'audio',
      [
        delta({ role: 'assistant', content: '', refusal: null }),
        delta({ content: null, audio: { id: 'audio_1', transcript: 'Hello' } }),
        delta({}, 'stop'),
      ],
    ],
    [
      'reasoning_content',
      [
        delta({ role: 'assistant', content: null, reasoning_content: '' }),
        delta({ content: null, reasoning_content: 'Think.' }),
        delta({ content: 'Hi', reasoning_content: null }),
        delta({}, 'stop'),
      ],
    ],
    [
      'a refusal',
      [
        delta({ role: 'assistant', content: null, refusal: '' }),
        delta({ refusal: "I can't help with that." }),
        delta({}, 'stop'),
      ],
    ],
    [
      'an unknown field',
      [
        delta({ role: 'assistant', content: 'Hi' }),
        delta({ content: '', citations: ['https://example.com'] }),
        delta({}, 'stop'),
      ],
    ],
  ];
  for (const [what, chunks] of unrepresentable) {
    it(`does not cache a stream that carried ${what}`, () => {
      expect(accumulate(chunks).toCompletion(usage)).toBeUndefined();
    });
  }
});

describe('completionToChunks', () => {
  const completion = (message: Record<string, unknown>, finish: string): ChatCompletion => ({
    id: 'chatcmpl-2',
    object: 'chat.completion',
    created: 2,
    model: 'gpt-4o-mini',
    choices: [
      {
        index: 0,
        message: message as ChatCompletion['choices'][number]['message'],
        logprobs: null,
        finish_reason: finish as ChatCompletion['choices'][number]['finish_reason'],
      },
    ],
    usage,
  });
  const deltas = (c: ChatCompletion) =>
    completionToChunks(c).map((k) => ({ delta: k.choices[0]!.delta, finish: k.choices[0]!.finish_reason }));

  it('replays a legacy function_call, after a role-only opening as a live stream sends', () => {
    const c = completion(
      {
        role: 'assistant',
        content: null,
        function_call: { name: 'get_weather', arguments: '{"city":"Paris"}' },
        refusal: null,
        annotations: [],
      },
      'function_call',
    );
    expect(deltas(c)).toEqual([
      { delta: { role: 'assistant', content: null }, finish: null },
      { delta: { function_call: { name: 'get_weather', arguments: '{"city":"Paris"}' } }, finish: null },
      { delta: {}, finish: 'function_call' },
    ]);
  });

  it('replays audio, reasoning_content and a refusal, and a plain answer as before', () => {
    const audio = { id: 'audio_1', data: 'UklGRiQAAABXQVZF', expires_at: 1717003600, transcript: 'Hello there' };
    expect(deltas(completion({ role: 'assistant', content: null, refusal: null, audio }, 'stop'))[1]!.delta).toEqual({
      audio,
    });
    expect(
      deltas(completion({ role: 'assistant', content: 'Hi!', reasoning_content: 'Greet back.' }, 'stop'))[1]!.delta,
    ).toEqual({ content: 'Hi!', reasoning_content: 'Greet back.' });
    expect(
      deltas(completion({ role: 'assistant', content: null, refusal: "I can't help with that." }, 'stop'))[1]!.delta,
    ).toEqual({ refusal: "I can't help with that." });
    expect(deltas(completion({ role: 'assistant', content: 'Hi', refusal: null, annotations: [] }, 'stop'))).toEqual([
      { delta: { role: 'assistant', content: '' }, finish: null },
      { delta: { content: 'Hi' }, finish: null },
      { delta: {}, finish: 'stop' },
    ]);
  });
});

describe('what a stream produced, for counting when the provider reports no usage', () => {
  it('includes every choice of an n > 1 stream, not only the first', () => {
    const acc = new StreamAccumulator();
    const base = { id: 'c', object: 'chat.completion.chunk' as const, created: 1, model: 'm' };
    acc.add({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: 'one' }, finish_reason: null }] });
    acc.add({ ...base, choices: [{ index: 1, delta: { role: 'assistant', content: 'two' }, finish_reason: null }] });
    acc.add({
      ...base,
      choices: [
        {
          index: 1,
          delta: { tool_calls: [{ index: 0, function: { name: 'f', arguments: '{}' } }] },
          finish_reason: 'stop',
        },
      ],
    });
    expect(acc.producedText()).toBe('onetwof{}');
    expect(acc.toCompletion({ prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 })).toBeUndefined();
  });
});
