// Newer Claude models refuse parts of a request earlier ones took (Anthropic's migration guides):
// the sampling settings from Opus 4.7 and in the Claude 5 family, forced tool use on Opus 5.5,
// Sonnet 5.5 and Fable; and the Claude 5 family thinks by default, within max_tokens.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_TOKENS,
  JSON_TOOL_NAME,
  THINKING_DEFAULT_MAX_TOKENS,
  toAnthropicRequest,
} from '../../server/providers/anthropic/request.js';
import { ProviderError, type ChatRequest } from '../../server/providers/types.js';

const ask = (model: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({
  model,
  messages: [{ role: 'user', content: 'Hi' }],
  ...extra,
});
const weather = {
  type: 'function' as const,
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
};

describe('Claude model rules', () => {
  it('leaves out temperature, top_p and top_k for the models that refuse them, and keeps them for the others', () => {
    const sampling = { temperature: 0, top_p: 0.9, top_k: 40 } as Partial<ChatRequest>;
    for (const model of [
      'claude-opus-4-7',
      'claude-opus-4-8-20260601',
      'claude-opus-5',
      'claude-sonnet-5',
      'claude-sonnet-5-5',
      'claude-haiku-5-5',
      'claude-fable-5-2',
    ]) {
      const { body } = toAnthropicRequest(ask(model, sampling));
      expect(body, model).not.toHaveProperty('temperature');
      expect(body, model).not.toHaveProperty('top_p');
      expect(body, model).not.toHaveProperty('top_k');
    }
    // Dated snapshots: the date is not a version (claude-opus-4-20250514 is Opus 4, not Opus 4.20250514).
    for (const model of [
      'claude-sonnet-4-5',
      'claude-haiku-4-5',
      'claude-opus-4-1',
      'claude-3-5-haiku-latest',
      'claude-opus-4-20250514',
      'claude-sonnet-4-20250514',
      'claude-opus-4-1-20250805',
    ]) {
      const { body } = toAnthropicRequest(ask(model, sampling));
      expect(body, model).toMatchObject({ temperature: 0, top_k: 40 });
    }
  });

  it('gives JSON mode as an instruction, not a forced tool, to the models that refuse forced tool use', () => {
    const json = { response_format: { type: 'json_object' } } as Partial<ChatRequest>;
    for (const model of ['claude-opus-5-5', 'claude-sonnet-5-5', 'claude-fable-5-1']) {
      const { body, jsonTool } = toAnthropicRequest(ask(model, json));
      expect(jsonTool, model).toBe(false);
      expect(body, model).not.toHaveProperty('tool_choice');
      expect(body.system, model).toMatch(/reply with a single valid JSON object/);
    }
    // Sonnet 5 and Opus 5 (dated or not) are not 5.5.
    for (const model of ['claude-sonnet-5', 'claude-opus-5-20260724'])
      expect(toAnthropicRequest(ask(model, json)).jsonTool, model).toBe(true);
    const { body, jsonTool } = toAnthropicRequest(ask('claude-haiku-5-5', json));
    expect(jsonTool).toBe(true);
    expect(body.tool_choice).toEqual({ type: 'tool', name: JSON_TOOL_NAME });
    // Thinking may not be on when a tool is forced: this model, which thinks by default, is told not to.
    expect(body['thinking']).toEqual({ type: 'disabled' });
    expect(toAnthropicRequest(ask('claude-sonnet-4-5', json)).body).not.toHaveProperty('thinking');
  });

  it('refuses a tool choice that forces a tool on those models (a routed call moves to another target), and sends "auto" as it is', () => {
    for (const tool_choice of ['required', { type: 'function', function: { name: 'get_weather' } }] as const) {
      let error: unknown;
      try {
        toAnthropicRequest(ask('claude-opus-5-5', { tools: [weather], tool_choice } as Partial<ChatRequest>));
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ProviderError);
      expect((error as ProviderError).kind).toBe('request');
      expect((error as ProviderError).message).toMatch(/does not take forced tool use/);
    }
    expect(
      toAnthropicRequest(ask('claude-opus-5-5', { tools: [weather], tool_choice: 'auto' } as Partial<ChatRequest>)).body
        .tool_choice,
    ).toEqual({ type: 'auto' });
    expect(
      toAnthropicRequest(
        ask('claude-sonnet-4-5', { tools: [weather], tool_choice: 'required' } as Partial<ChatRequest>),
      ).body.tool_choice,
    ).toEqual({ type: 'any' });
  });

  it("sends reasoning_effort as Anthropic's effort to the models that take it, and leaves it out for the others", () => {
    const effort = (model: string, reasoning_effort: string) =>
      toAnthropicRequest(ask(model, { reasoning_effort } as Partial<ChatRequest>)).body['output_config'];
    expect(effort('claude-opus-5-5', 'high')).toEqual({ effort: 'high' });
    expect(effort('claude-haiku-5-5', 'minimal')).toEqual({ effort: 'low' });
    expect(effort('claude-sonnet-4-6', 'none')).toEqual({ effort: 'low' });
    expect(effort('claude-opus-4-5-20251101', 'medium')).toEqual({ effort: 'medium' });
    expect(effort('claude-sonnet-4-5', 'high')).toBeUndefined();
    expect(effort('claude-sonnet-4-20250514', 'high')).toBeUndefined();
    expect(effort('claude-opus-4-20250514', 'high')).toBeUndefined();
    expect(effort('claude-3-5-haiku-latest', 'low')).toBeUndefined();
  });

  it('gives a model that thinks by default room for its thinking when the caller sets no limit', () => {
    expect(toAnthropicRequest(ask('claude-opus-5-5')).body.max_tokens).toBe(THINKING_DEFAULT_MAX_TOKENS);
    expect(toAnthropicRequest(ask('claude-haiku-5-5', { max_tokens: 300 })).body.max_tokens).toBe(300);
    expect(toAnthropicRequest(ask('claude-sonnet-4-5')).body.max_tokens).toBe(DEFAULT_MAX_TOKENS);
  });

  it('continues a tool loop whose last tool call has no thinking for the model with thinking off, or refuses it where thinking cannot be turned off (Opus 5.5, every Fable)', () => {
    const foreign = {
      role: 'assistant' as const,
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function' as const, function: { name: 'get_weather', arguments: '{}' } }],
    };
    const history = {
      tools: [weather],
      messages: [
        { role: 'user' as const, content: 'Weather?' },
        foreign,
        { role: 'tool' as const, tool_call_id: 'call_1', content: '{}' },
      ],
    } as Partial<ChatRequest>;
    for (const model of ['claude-sonnet-5-5', 'claude-haiku-5-5', 'claude-opus-5']) {
      expect(toAnthropicRequest(ask(model, history)).body['thinking'], model).toEqual({ type: 'disabled' });
    }
    for (const model of ['claude-opus-5-5', 'claude-fable-5', 'claude-fable-5-1', 'claude-fable-5-2']) {
      expect(() => toAnthropicRequest(ask(model, history)), model).toThrow(
        /continues a tool call only with the thinking blocks/,
      );
    }
  });
});
