import { describe, expect, it } from 'vitest';
import { OpenAIStreamNormalizer } from '../../server/providers/openai-compatible/stream.js';
import { ProviderError, type ChatChunk } from '../../server/providers/types.js';
import type { SseEvent } from '../../server/providers/http.js';
import { chunkJson } from '../../server/http/gateway-meta.js';

const base = {
  id: 'chatcmpl-123',
  object: 'chat.completion.chunk',
  created: 1694268190,
  model: 'gpt-4o-mini',
  system_fingerprint: 'fp_44709d6fcb',
};
const ev = (obj: unknown): SseEvent => ({ data: typeof obj === 'string' ? obj : JSON.stringify(obj) });

/** What the adapter hands on: each returned chunk, the held opening just before the first. */
function run(events: SseEvent[]): { chunks: ChatChunk[]; norm: OpenAIStreamNormalizer } {
  const norm = new OpenAIStreamNormalizer('openai', 'gpt-4o-mini');
  const chunks: ChatChunk[] = [];
  for (const e of events) {
    const c = norm.push(e);
    if (c) {
      const opening = norm.takeOpening();
      if (opening) chunks.push(opening);
      chunks.push(c);
    }
  }
  const last = norm.end();
  if (last) chunks.push(last);
  return { chunks, norm };
}

describe('openai-compatible stream normalisation', () => {
  it('passes the documented chunk sequence through, the role-only opener held until the first content', () => {
    // Shaped like the Chat Completions streaming reference, with stream_options.include_usage.
    const events = [
      ev({
        ...base,
        choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
        usage: null,
      }),
      ev({
        ...base,
        choices: [{ index: 0, delta: { content: 'Hello' }, logprobs: null, finish_reason: null }],
        usage: null,
      }),
      ev({ ...base, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }], usage: null }),
      ev({ ...base, choices: [], usage: { prompt_tokens: 9, completion_tokens: 1, total_tokens: 10 } }),
      ev('[DONE]'),
    ];
    const { chunks, norm } = run(events);
    expect(chunks).toHaveLength(4);
    expect(chunks[0]!.choices[0]!.delta).toEqual({ role: 'assistant', content: '' });
    expect(chunks[1]!.choices[0]!.delta).toEqual({ content: 'Hello' });
    expect(chunks[1]!['system_fingerprint']).toBe('fp_44709d6fcb');
    expect(chunks[2]!.choices[0]!.finish_reason).toBe('stop');
    expect(chunks[3]!.usage).toEqual({ prompt_tokens: 9, completion_tokens: 1, total_tokens: 10 });
    expect(norm.end()).toBeUndefined();
  });

  it('hands on nothing, the opener included, while no content has come', () => {
    const norm = new OpenAIStreamNormalizer('openai', 'gpt-4o-mini');
    expect(
      norm.push(
        ev({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }),
      ),
    ).toBeUndefined();
    expect(norm.takeOpening()).toBeUndefined();
    expect(
      norm.push(ev({ ...base, choices: [{ index: 0, delta: { content: '' }, finish_reason: null }] })),
    ).toBeUndefined();
    expect(
      norm.push(ev({ ...base, choices: [{ index: 0, delta: { content: 'x' }, finish_reason: null }] }))!.choices[0]!
        .delta,
    ).toEqual({ content: 'x' });
    expect(norm.takeOpening()!.choices[0]!.delta).toEqual({ role: 'assistant', content: '' });
    expect(norm.takeOpening()).toBeUndefined();
  });

  it('sends unchanged chunks on as the upstream wrote them, without usage, and re-encodes changed ones', () => {
    const events = [
      ev({
        ...base,
        choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
        usage: null,
      }),
      ev({
        ...base,
        choices: [{ index: 0, delta: { content: 'Hello' }, logprobs: null, finish_reason: null }],
        usage: null,
      }),
      ev({
        ...base,
        choices: [{ index: 0, delta: { content: ' there' }, logprobs: null, finish_reason: null }],
        usage: null,
      }),
      ev({
        ...base,
        choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }],
        usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 },
      }),
      ev('[DONE]'),
    ];
    const { chunks } = run(events);
    const frames = chunks.slice(0, 4).map(chunkJson);
    // Untouched: the upstream's text, less its trailing "usage":null.
    expect(events[0]!.data.endsWith(',"usage":null}')).toBe(true);
    expect(frames[0]).toBe(
      JSON.stringify({
        ...base,
        choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
      }),
    );
    expect(frames[1]).toBe(
      JSON.stringify({
        ...base,
        choices: [{ index: 0, delta: { content: 'Hello' }, logprobs: null, finish_reason: null }],
      }),
    );
    expect(frames[2]).toBe(
      JSON.stringify({
        ...base,
        choices: [{ index: 0, delta: { content: ' there' }, logprobs: null, finish_reason: null }],
      }),
    );
    // Usage moved to the final chunk: encoded again, without it.
    expect(JSON.parse(frames[3]!)).toEqual({
      ...base,
      choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }],
    });
    expect(chunks[4]!.usage).toEqual({ prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 });
    // "usage": null that is not the last field is left out by encoding the chunk again.
    const inner = run([
      ev(
        `{"usage":null,"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}]}`,
      ),
      ev('[DONE]'),
    ]);
    expect(JSON.parse(chunkJson(inner.chunks[0]!))).not.toHaveProperty('usage');
  });

  it('passes tool-call deltas through', () => {
    const { chunks } = run([
      ev({
        ...base,
        choices: [
          {
            index: 0,
            delta: {
              role: 'assistant',
              content: null,
              tool_calls: [
                { index: 0, id: 'call_abc', type: 'function', function: { name: 'get_weather', arguments: '' } },
              ],
            },
            finish_reason: null,
          },
        ],
      }),
      ev({
        ...base,
        choices: [
          {
            index: 0,
            delta: { tool_calls: [{ index: 0, function: { arguments: '{"location":"Paris"}' } }] },
            finish_reason: null,
          },
        ],
      }),
      ev({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] }),
      ev({ ...base, choices: [], usage: { prompt_tokens: 50, completion_tokens: 10, total_tokens: 60 } }),
      ev('[DONE]'),
    ]);
    expect(chunks[0]!.choices[0]!.delta.tool_calls![0]!.id).toBe('call_abc');
    expect(chunks[1]!.choices[0]!.delta.tool_calls![0]!.function!.arguments).toBe('{"location":"Paris"}');
    expect(chunks[2]!.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('moves usage reported on a content chunk into a final usage chunk', () => {
    const { chunks } = run([
      ev({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: 'Hi' }, finish_reason: null }] }),
      ev({
        ...base,
        choices: [{ index: 0, delta: { content: '' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
      }),
      ev('[DONE]'),
    ]);
    expect(chunks).toHaveLength(3);
    expect(chunks[1]!.usage).toBeUndefined();
    expect(chunks[2]!.choices).toEqual([]);
    expect(chunks[2]!.usage).toEqual({ prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 });
    expect(chunks[2]!.id).toBe('chatcmpl-123');
  });

  it('owes no usage chunk when no usage arrives (the core counts the stream)', () => {
    const { chunks, norm } = run([
      ev({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: 'Hello' }, finish_reason: null }] }),
      ev({ ...base, choices: [{ index: 0, delta: { content: ' world' }, finish_reason: 'stop' }] }),
      ev('[DONE]'),
    ]);
    expect(chunks.every((c) => c.usage === undefined)).toBe(true);
    expect(norm.end()).toBeUndefined();
  });

  it('reports a stream that stops before [DONE] and without a finish_reason as cut', () => {
    const norm = new OpenAIStreamNormalizer('openai', 'gpt-4o');
    norm.push(ev({ ...base, choices: [{ index: 0, delta: { content: 'Hel' }, finish_reason: null }] }));
    expect(() => norm.end()).toThrow(ProviderError);
  });

  it('turns an in-stream error object into a ProviderError', () => {
    const norm = new OpenAIStreamNormalizer('openrouter', 'x');
    try {
      norm.push(ev({ error: { message: 'Provider returned error', code: 502 } }));
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ProviderError);
      expect((e as ProviderError).status).toBe(502);
      expect((e as ProviderError).retryable).toBe(true);
    }
  });
});
