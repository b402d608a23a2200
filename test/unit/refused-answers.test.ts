import { describe, expect, it } from 'vitest';
import { ExactCache } from '../../server/gateway/cache/exact-cache.js';
import { fromAnthropicResponse } from '../../server/providers/anthropic/response.js';
import { AnthropicStreamTranslator } from '../../server/providers/anthropic/stream.js';
import type { SseEvent } from '../../server/providers/http.js';
import type { ChatChunk, ChatCompletion } from '../../server/providers/types.js';

// A Claude refusal (stop_reason "refusal", with stop_details saying why) reaches the client in
// `message.refusal` / `delta.refusal`, where OpenAI puts a refusal; and answers a filter withheld,
// the model refused or that hold nothing are never served again from the cache.

const explanation = 'This request asks for help with something the usage policy does not allow.';
const refused = {
  id: 'msg_r',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-5-5',
  content: [],
  stop_reason: 'refusal',
  stop_details: { type: 'refusal', category: 'cyber', explanation },
  usage: { input_tokens: 20, output_tokens: 0 },
};

describe('Claude refusals', () => {
  it('carry the explanation in message.refusal, whole and streamed, with finish_reason content_filter', () => {
    const whole = fromAnthropicResponse(refused as never, false);
    expect(whole.choices[0]).toMatchObject({
      message: { content: null, refusal: explanation },
      finish_reason: 'content_filter',
    });
    const noDetails = fromAnthropicResponse({ ...refused, stop_details: undefined } as never, false);
    expect(noDetails.choices[0]!.message.refusal).toMatch(/declined/);
    expect(
      fromAnthropicResponse(
        { ...refused, stop_reason: 'end_turn', content: [{ type: 'text', text: 'Hi' }] } as never,
        false,
      ).choices[0]!.message.refusal,
    ).toBeNull();

    const tr = new AnthropicStreamTranslator('anthropic', 'claude-sonnet-5-5', false);
    const events: SseEvent[] = [
      { type: 'message_start', message: { ...refused, content: [], stop_reason: null, stop_details: null } },
      {
        type: 'message_delta',
        delta: { stop_reason: 'refusal', stop_sequence: null, stop_details: refused.stop_details },
        usage: { output_tokens: 0 },
      },
      { type: 'message_stop' },
    ].map((e) => ({ event: e.type, data: JSON.stringify(e) }));
    const chunks: ChatChunk[] = [];
    for (const ev of events) {
      const c = tr.push(ev);
      if (c) chunks.push(c);
    }
    const finish = chunks.find((c) => c.choices[0]?.finish_reason);
    expect(finish!.choices[0]).toMatchObject({ delta: { refusal: explanation }, finish_reason: 'content_filter' });
  });
});

describe('the exact cache', () => {
  const answer = (
    message: Partial<ChatCompletion['choices'][number]['message']>,
    finish: ChatCompletion['choices'][number]['finish_reason'] = 'stop',
  ): ChatCompletion => ({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: null, refusal: null, ...message },
        logprobs: null,
        finish_reason: finish,
      },
    ],
  });
  const stored = (completion: ChatCompletion) => {
    const cache = new ExactCache();
    cache.set('k', { completion, inputTokens: 1, outputTokens: 1 });
    return cache.get('k') !== undefined;
  };

  it('keeps answers, tool calls and truncated answers with content', () => {
    expect(stored(answer({ content: 'Paris.' }))).toBe(true);
    expect(
      stored(
        answer(
          { tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
          'tool_calls',
        ),
      ),
    ).toBe(true);
    expect(stored(answer({ content: 'A long answer cut' }, 'length'))).toBe(true);
    // OpenAI's legacy function calling: the call is the answer.
    expect(stored(answer({ function_call: { name: 'f', arguments: '{}' } } as never, 'function_call' as never))).toBe(
      true,
    );
  });

  it('does not keep a filtered or refused answer, nor an empty one', () => {
    expect(stored(answer({}, 'content_filter'))).toBe(false);
    expect(stored(answer({ refusal: explanation }, 'stop'))).toBe(false);
    expect(stored(answer({ content: '' }, 'length'))).toBe(false);
    expect(stored(answer({}, 'stop'))).toBe(false);
  });
});
