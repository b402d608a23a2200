import { describe, expect, it } from 'vitest';
import type { ChatChunk } from '../../server/providers/types.js';
import { completionToChunks, StreamAccumulator } from '../../server/gateway/stream-accumulator.js';

// A streamed answer is cached as one completion and may be replayed whole or as a stream: the
// cache key does not hold `stream`, so nothing the stream carried may be lost on the way.

const token = (t: string, logprob: number) => ({ token: t, logprob, bytes: [...Buffer.from(t)], top_logprobs: [] });
const chunk = (choices: ChatChunk['choices']): ChatChunk => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'gpt-4o-mini',
  choices,
});
const usage = { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 };

describe('StreamAccumulator', () => {
  it('keeps the token log probabilities of a streamed answer, in order, and replays them', () => {
    const acc = new StreamAccumulator();
    acc.add(chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]));
    acc.add(
      chunk([
        {
          index: 0,
          delta: { content: 'Hel' },
          finish_reason: null,
          logprobs: { content: [token('Hel', -0.1)], refusal: null },
        },
      ]),
    );
    acc.add(
      chunk([
        {
          index: 0,
          delta: { content: 'lo' },
          finish_reason: null,
          logprobs: { content: [token('lo', -0.2)], refusal: null },
        },
      ]),
    );
    acc.add(chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]));

    const completion = acc.toCompletion(usage)!;
    expect(completion.choices[0]).toMatchObject({
      message: { content: 'Hello' },
      finish_reason: 'stop',
      logprobs: { content: [token('Hel', -0.1), token('lo', -0.2)], refusal: null },
    });

    // The role opens alone (the OpenAI SDKs' stream helpers would take the opening chunk's logprobs twice).
    const replayed = completionToChunks(completion);
    expect(replayed[0]!.choices[0]).toEqual({
      index: 0,
      delta: { role: 'assistant', content: '' },
      finish_reason: null,
    });
    expect(replayed[1]!.choices[0]).toMatchObject({
      delta: { content: 'Hello' },
      logprobs: { content: [token('Hel', -0.1), token('lo', -0.2)] },
    });
  });

  it('leaves logprobs out of an answer that had none', () => {
    const acc = new StreamAccumulator();
    acc.add(chunk([{ index: 0, delta: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }]));
    const completion = acc.toCompletion(usage)!;
    expect(completion.choices[0]).not.toHaveProperty('logprobs');
    for (const replayed of completionToChunks(completion)) expect(replayed.choices[0]).not.toHaveProperty('logprobs');
  });

  it('does not cache an answer with several choices', () => {
    const acc = new StreamAccumulator();
    acc.add(
      chunk([
        { index: 0, delta: { content: 'a' }, finish_reason: 'stop' },
        { index: 1, delta: { content: 'b' }, finish_reason: 'stop' },
      ]),
    );
    expect(acc.toCompletion(usage)).toBeUndefined();
  });
});
