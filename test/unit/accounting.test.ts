import { describe, expect, it } from 'vitest';
import { buildMeta, promptPreview, ZERO_USAGE, type Outcome } from '../../server/gateway/accounting.js';
import type { ChatCall, RoutingDecision } from '../../server/gateway/types.js';
import { Cancellation } from '../../server/lib/cancel-signal.js';
import type { ChatMessage } from '../../server/providers/types.js';

function call(messages: ChatMessage[]): ChatCall {
  return {
    requestId: 'req_1',
    tenantId: 't',
    tokenId: null,
    body: { model: '', messages } as ChatCall['body'],
    messages,
    headerHints: {},
    signal: new Cancellation(),
    startedAt: 0,
    createdAt: new Date(),
  };
}

describe('promptPreview', () => {
  it('shows the start of the last user message with its whitespace folded', () => {
    const user = (content: ChatMessage['content']): ChatMessage => ({ role: 'user', content });
    expect(
      promptPreview(call([user('first'), { role: 'assistant', content: 'x' }, user('  second   question\n\tplease ')])),
    ).toBe('second question please');
    expect(promptPreview(call([user('plain words, single spaces')]))).toBe('plain words, single spaces');
    expect(promptPreview(call([user('line one\nline two')]))).toBe('line one line two');
    // Terminal escapes, C1 controls and direction overrides never reach a live-tap reader.
    expect(promptPreview(call([user('hi \u001b]0;pwned\u0007\u001b[2J there\u009b\u202eevil')]))).toBe(
      'hi ]0;pwned [2J there evil',
    );
    expect(
      promptPreview(
        call([
          user([
            { type: 'text', text: 'look at' },
            { type: 'image_url', image_url: { url: 'data:x' } },
          ]),
        ]),
      ),
    ).toBe('look at [image_url]');
    expect(promptPreview(call([{ role: 'system', content: 'only a system prompt' }]))).toBeNull();
    const long = promptPreview(call([user('word '.repeat(100))]))!;
    expect(long).toHaveLength(120);
    expect(long.endsWith('…')).toBe(true);
  });
});

describe('buildMeta', () => {
  const decision: RoutingDecision = {
    provider: 'openai',
    model: 'gpt-4o-mini',
    routedBy: 'classification',
    taskType: 'qa',
    complexity: 'simple',
    usedFallback: false,
    usedLlmFallback: false,
  };
  const outcome = (d: RoutingDecision): Outcome => ({
    decision: d,
    served: d,
    latencyMs: 12.34,
    usage: ZERO_USAGE,
    cached: false,
    cacheType: null,
    streamed: false,
    status: 'ok',
    errorType: null,
  });

  it('reports the A/B test and variant only for A/B-routed calls', () => {
    const plain = buildMeta(call([]), outcome(decision), 0.5, []);
    expect(plain.routing).toEqual({
      taskType: 'qa',
      complexity: 'simple',
      routedBy: 'classification',
      usedFallback: false,
      usedLlmFallback: false,
    });
    expect(plain.latencyMs).toBe(12.3);
    const ab = buildMeta(
      call([]),
      outcome({ ...decision, routedBy: 'ab-test', abTestId: 'ab_1', variant: 'b' }),
      0.5,
      [],
    );
    expect(ab.routing).toMatchObject({ routedBy: 'ab-test', abTestId: 'ab_1', variant: 'b' });
  });
});
