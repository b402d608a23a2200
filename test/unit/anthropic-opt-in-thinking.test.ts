// reasoning_effort turns on the thinking of the Claude models that think only when asked: adaptive
// thinking where the model has it (Opus and Sonnet 4.6 on), a budget by effort before that (Opus
// and Sonnet 4 to 4.5, Haiku 4.5); never with a forced tool or when continuing a tool call the
// model made without thinking; and without sampling settings, which thinking refuses.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_TOKENS,
  THINKING_DEFAULT_MAX_TOKENS,
  toAnthropicRequest,
} from '../../server/providers/anthropic/request.js';
import type { ChatRequest } from '../../server/providers/types.js';
import { thinkingOf } from '../../server/simulator/anthropic-thinking.js';

const ask = (model: string, extra: Record<string, unknown> = {}): ChatRequest =>
  ({ model, messages: [{ role: 'user', content: 'Hi' }], ...extra }) as ChatRequest;
const body = (model: string, extra: Record<string, unknown> = {}) =>
  toAnthropicRequest(ask(model, extra)).body as Record<string, unknown>;
const weather = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } };

describe('thinking asked for with reasoning_effort', () => {
  it('gives a model with a thinking budget one by effort, max_tokens raised by it, and no sampling settings', () => {
    expect(body('claude-sonnet-4-5', { reasoning_effort: 'medium', temperature: 0.2, top_k: 5 })).toMatchObject({
      thinking: { type: 'enabled', budget_tokens: 4_096 },
      max_tokens: 4_096 + DEFAULT_MAX_TOKENS,
    });
    expect(body('claude-sonnet-4-5', { reasoning_effort: 'medium', temperature: 0.2, top_k: 5 })).not.toHaveProperty(
      'temperature',
    );
    expect(body('claude-haiku-4-5', { reasoning_effort: 'minimal' })['thinking']).toEqual({
      type: 'enabled',
      budget_tokens: 1_024,
    });
    expect(body('claude-opus-4-1', { reasoning_effort: 'xhigh' })).toMatchObject({
      thinking: { type: 'enabled', budget_tokens: 24_576 },
      max_tokens: 24_576 + DEFAULT_MAX_TOKENS,
    });
    // Opus 4.5 takes an effort too, and a budget (no adaptive thinking).
    expect(body('claude-opus-4-5', { reasoning_effort: 'high' })).toMatchObject({
      thinking: { type: 'enabled', budget_tokens: 12_288 },
      output_config: { effort: 'high' },
    });
  });

  it("keeps the caller's max_tokens, the budget at most half of it, and no thinking below 1,024", () => {
    expect(body('claude-sonnet-4-5', { reasoning_effort: 'high', max_tokens: 10_000 })).toMatchObject({
      thinking: { type: 'enabled', budget_tokens: 5_000 },
      max_tokens: 10_000,
    });
    const small = body('claude-sonnet-4-5', { reasoning_effort: 'high', max_tokens: 1_500, temperature: 0.2 });
    expect(small).not.toHaveProperty('thinking');
    expect(small).toMatchObject({ max_tokens: 1_500, temperature: 0.2 });
  });

  it('gives Opus and Sonnet 4.6 on adaptive thinking with the effort, and room for it', () => {
    expect(body('claude-opus-4-6', { reasoning_effort: 'low' })).toMatchObject({
      thinking: { type: 'adaptive' },
      output_config: { effort: 'low' },
      max_tokens: THINKING_DEFAULT_MAX_TOKENS,
    });
    expect(body('claude-sonnet-4-6', { reasoning_effort: 'high', max_tokens: 3_000 })).toMatchObject({
      thinking: { type: 'adaptive' },
      max_tokens: 3_000,
    });
  });

  it('turns nothing on for "none", for models that think by default or not at all, with a forced tool, a prefill, or after a tool call made without thinking', () => {
    expect(body('claude-sonnet-4-6', { reasoning_effort: 'none' })).not.toHaveProperty('thinking');
    expect(body('claude-sonnet-4-6', { reasoning_effort: 'none' })['output_config']).toEqual({ effort: 'low' });
    expect(body('claude-sonnet-5-5', { reasoning_effort: 'high' })).not.toHaveProperty('thinking');
    expect(body('claude-3-5-haiku-latest', { reasoning_effort: 'high' })).not.toHaveProperty('thinking');
    expect(
      body('claude-sonnet-4-5', { reasoning_effort: 'high', tools: [weather], tool_choice: 'required' }),
    ).not.toHaveProperty('thinking');
    expect(
      body('claude-sonnet-4-5', { reasoning_effort: 'high', response_format: { type: 'json_object' } }),
    ).not.toHaveProperty('thinking');
    const loop = [
      { role: 'user', content: 'Weather?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '{}' },
    ];
    expect(
      body('claude-sonnet-4-5', { reasoning_effort: 'high', tools: [weather], messages: loop }),
    ).not.toHaveProperty('thinking');
    // A prefill (the conversation ends with an assistant message): Anthropic takes none with thinking.
    expect(
      body('claude-sonnet-4-5', {
        reasoning_effort: 'medium',
        messages: [
          { role: 'user', content: 'A JSON cat?' },
          { role: 'assistant', content: '{' },
        ],
      }),
    ).not.toHaveProperty('thinking');
  });

  it('sends only what Anthropic takes (the simulator checks as Anthropic does)', () => {
    const cases: Array<[string, Record<string, unknown>]> = [
      ['claude-sonnet-4-5', { reasoning_effort: 'medium', temperature: 0.2, top_p: 0.5 }],
      ['claude-sonnet-4-5', { reasoning_effort: 'high', max_tokens: 2_048 }],
      ['claude-haiku-4-5', { reasoning_effort: 'low' }],
      ['claude-opus-4-1', { reasoning_effort: 'xhigh' }],
      ['claude-opus-4-6', { reasoning_effort: 'medium', top_k: 3 }],
      ['claude-opus-4-7', { reasoning_effort: 'high' }],
      ['claude-sonnet-4-6', { reasoning_effort: 'none', temperature: 0.3 }],
    ];
    for (const [model, extra] of cases) {
      const b = body(model, extra);
      expect([model, extra, thinkingOf(model, b, b['max_tokens'] as number)]).toEqual([
        model,
        extra,
        expect.objectContaining({ thinks: extra['reasoning_effort'] !== 'none' }),
      ]);
    }
    // And the checks refuse what Anthropic refuses.
    expect(thinkingOf('claude-opus-4-7', { thinking: { type: 'enabled', budget_tokens: 2_048 } }, 8_000)).toMatch(
      /not supported/,
    );
    expect(thinkingOf('claude-sonnet-4-5', { thinking: { type: 'adaptive' } }, 8_000)).toMatch(/not supported/);
    expect(thinkingOf('claude-sonnet-4-5', { thinking: { type: 'enabled', budget_tokens: 4_096 } }, 4_096)).toMatch(
      /max_tokens/,
    );
    expect(
      thinkingOf('claude-sonnet-4-5', { thinking: { type: 'enabled', budget_tokens: 2_048 }, temperature: 0.5 }, 8_000),
    ).toMatch(/temperature/);
    expect(thinkingOf('claude-fable-5', { thinking: { type: 'disabled' } }, 8_000)).toMatch(/cannot be disabled/);
  });
});
