// Reasoning models behind OpenAI-format APIs refuse parts of a request other models take. The
// adapter reshapes a request for them (openai-compatible/vendors/): what only renames or hints is adapted,
// what would change the answer is refused before anything is sent.
import { describe, expect, it } from 'vitest';
import { withAcceptedFields, type AcceptedFields } from '../../server/providers/openai-compatible/accepted-fields.js';
import { deepseekReasoningRules } from '../../server/providers/openai-compatible/vendors/deepseek.js';
import { mistralReasoningEffort } from '../../server/providers/openai-compatible/vendors/mistral.js';
import {
  isOpenAIReasoningModel,
  openaiReasoningRules,
  openaiRequest,
  openaiToolsOnChatCompletions,
} from '../../server/providers/openai-compatible/vendors/openai.js';
import { xaiReasoningEffort, xaiReasoningRules } from '../../server/providers/openai-compatible/vendors/xai.js';
import { ProviderError, type ChatRequest } from '../../server/providers/types.js';

const messages: ChatRequest['messages'] = [{ role: 'user', content: 'hi' }];
/** Everything a request written for gpt-4o may carry. */
const full = (model: string): ChatRequest => ({
  model,
  messages,
  max_tokens: 300,
  temperature: 0.2,
  top_p: 0.9,
  presence_penalty: 0.5,
  frequency_penalty: 0.1,
  logit_bias: { '50256': -100 },
  logprobs: false,
  top_logprobs: 0,
  stop: [],
  reasoning_effort: 'low',
  seed: 3,
  n: 2,
});

function refusal(req: ChatRequest, rules: AcceptedFields): ProviderError {
  try {
    withAcceptedFields(req, rules, 'prov');
  } catch (e) {
    expect(e).toBeInstanceOf(ProviderError);
    expect(e).toMatchObject({ kind: 'request', retryable: false, provider: 'prov' });
    return e as ProviderError;
  }
  throw new Error('expected a refusal');
}

describe('OpenAI reasoning models', () => {
  const rules = openaiReasoningRules('o3')!;

  it('are the o-series and the GPT-5 family, dated ids included, but not their -chat variants', () => {
    for (const id of [
      'o1',
      'o3',
      'o3-mini',
      'o3-pro',
      'o4-mini',
      'o4-mini-2025-04-16',
      'gpt-5',
      'gpt-5-mini',
      'gpt-5-nano',
      'gpt-5-2025-08-07',
      'gpt-5.1',
    ]) {
      expect(isOpenAIReasoningModel(id), id).toBe(true);
      expect(openaiReasoningRules(id), id).toBeDefined();
    }
    for (const id of [
      'gpt-5-chat-latest',
      'gpt-5.1-chat-latest',
      'gpt-4o',
      'gpt-4.1-mini',
      'omni-moderation-latest',
      'openai/gpt-oss-120b',
      'text-embedding-3-small',
    ]) {
      expect(isOpenAIReasoningModel(id), id).toBe(false);
      expect(openaiReasoningRules(id), id).toBeUndefined();
    }
  });

  it('get max_tokens as max_completion_tokens and no sampling settings, in a copy', () => {
    const req = full('o3');
    const copy = structuredClone(req);
    expect(withAcceptedFields(req, rules, 'openai')).toEqual({
      model: 'o3',
      messages,
      max_completion_tokens: 300,
      reasoning_effort: 'low',
      seed: 3,
      n: 2,
    });
    expect(req).toEqual(copy);
    expect(
      withAcceptedFields({ model: 'o3', messages, max_tokens: 10, max_completion_tokens: 500 }, rules, 'openai'),
    ).toEqual({ model: 'o3', messages, max_completion_tokens: 500 });
  });

  it('refuse stop sequences and logprobs, naming the model', () => {
    expect(refusal({ model: 'o3', messages, stop: ['END'] }, rules).message).toBe(
      'stop: o3 is a reasoning model and does not take stop sequences',
    );
    expect(refusal({ model: 'o3', messages, stop: 'END' }, rules).message).toMatch(/^stop: /);
    expect(refusal({ model: 'o3', messages, logprobs: true, top_logprobs: 2 }, rules).message).toBe(
      'logprobs: o3 is a reasoning model and does not return log probabilities',
    );
  });
});

describe('xAI models', () => {
  it('Grok 4 loses the penalties and reasoning_effort; its reasoning models also refuse stop', () => {
    for (const id of ['grok-4', 'grok-4-0709', 'grok-4-fast-reasoning']) {
      const rules = xaiReasoningRules(id)!;
      expect(withAcceptedFields(full(id), rules, 'xai'), id).toEqual({
        model: id,
        messages,
        max_tokens: 300,
        temperature: 0.2,
        top_p: 0.9,
        logit_bias: { '50256': -100 },
        logprobs: false,
        top_logprobs: 0,
        seed: 3,
        n: 2,
      });
      expect(refusal({ model: id, messages, stop: ['END'] }, rules).message, id).toMatch(/^stop: /);
    }
    const plain = xaiReasoningRules('grok-4-fast-non-reasoning')!;
    expect(
      withAcceptedFields(
        { model: 'grok-4-fast-non-reasoning', messages, stop: ['END'], presence_penalty: 0 },
        plain,
        'xai',
      ),
    ).toEqual({ model: 'grok-4-fast-non-reasoning', messages, stop: ['END'] });
  });

  it('Grok 4.3 onwards take reasoning_effort again, and still lose the penalties and stop; Grok 4.20 (before 4.3) does not', () => {
    expect(
      withAcceptedFields(full('grok-4.20-0309-reasoning'), xaiReasoningRules('grok-4.20-0309-reasoning')!, 'xai'),
    ).not.toHaveProperty('reasoning_effort');
    expect(
      withAcceptedFields(full('grok-4.20-multi-agent'), xaiReasoningRules('grok-4.20-multi-agent')!, 'xai'),
    ).toMatchObject({ reasoning_effort: 'low' });
    for (const id of ['grok-4.3', 'grok-4.5']) {
      const rules = xaiReasoningRules(id)!;
      expect(withAcceptedFields(full(id), rules, 'xai'), id).toMatchObject({ reasoning_effort: 'low' });
      expect(withAcceptedFields(full(id), rules, 'xai'), id).not.toHaveProperty('presence_penalty');
      expect(refusal({ model: id, messages, stop: ['END'] }, rules).message, id).toMatch(/^stop: /);
    }
  });

  it('GPT-6 is a reasoning model as GPT-5 is: no sampling settings, max_tokens as max_completion_tokens', () => {
    for (const id of ['gpt-6.1-sol', 'gpt-6-luna', 'gpt-5.6-terra']) {
      expect(openaiReasoningRules(id), id).toBeDefined();
      expect(
        withAcceptedFields(
          { model: id, messages, temperature: 0, max_tokens: 16 },
          openaiReasoningRules(id)!,
          'openai',
        ),
        id,
      ).toEqual({ model: id, messages, max_completion_tokens: 16 });
    }
  });

  it('GPT-5.6 and gpt-6-sol get reasoning_effort "none" with tools (the only effort they take tools at on Chat Completions); another effort is refused', () => {
    const tools = [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }];
    for (const id of ['gpt-5.6-sol', 'gpt-5.6-luna', 'gpt-6-sol']) {
      expect(openaiToolsOnChatCompletions({ model: id, messages, tools } as ChatRequest, 'openai'), id).toMatchObject({
        reasoning_effort: 'none',
      });
      expect(openaiToolsOnChatCompletions({ model: id, messages } as ChatRequest, 'openai'), id).not.toHaveProperty(
        'reasoning_effort',
      );
      expect(
        openaiToolsOnChatCompletions(
          { model: id, messages, tools, reasoning_effort: null } as unknown as ChatRequest,
          'openai',
        ),
        id,
      ).toMatchObject({ reasoning_effort: 'none' });
      expect(() =>
        openaiToolsOnChatCompletions({ model: id, messages, tools, reasoning_effort: 'high' } as ChatRequest, 'openai'),
      ).toThrow(ProviderError);
    }
    const other = { model: 'gpt-5.4', messages, tools } as ChatRequest;
    expect(openaiToolsOnChatCompletions(other, 'openai')).toBe(other);
  });

  it('DeepSeek V4 and deepseek-flash refuse logprobs, as deepseek-reasoner did', () => {
    for (const id of ['deepseek-flash', 'deepseek-v4-pro', 'deepseek-v4-flash'])
      expect(refusal({ model: id, messages, logprobs: true }, deepseekReasoningRules(id)!).message, id).toMatch(
        /logprobs/,
      );
  });

  it('grok-3-mini keeps reasoning_effort and loses the penalties; grok-code loses both; grok-3 takes everything but reasoning_effort', () => {
    expect(withAcceptedFields(full('grok-3-mini'), xaiReasoningRules('grok-3-mini')!, 'xai')).toMatchObject({
      reasoning_effort: 'low',
      max_tokens: 300,
    });
    for (const id of ['grok-3-mini', 'grok-code-fast-1'])
      expect(withAcceptedFields(full(id), xaiReasoningRules(id)!, 'xai')).not.toHaveProperty('presence_penalty');
    // xAI refuses reasoning_effort on grok-code-fast-1 (its models table; reported 400s).
    expect(
      withAcceptedFields(full('grok-code-fast-1'), xaiReasoningRules('grok-code-fast-1')!, 'xai'),
    ).not.toHaveProperty('reasoning_effort');
    // xAI: "Only grok-3-mini supports reasoning_effort"; grok-3 answers it with an error.
    const { reasoning_effort: _r, ...rest } = full('grok-3');
    expect(withAcceptedFields(full('grok-3'), xaiReasoningRules('grok-3')!, 'xai')).toEqual(rest);
    expect(xaiReasoningRules('grok-3-fast')).toBeDefined();
  });
});

describe('DeepSeek models', () => {
  it('deepseek-reasoner refuses logprobs and takes the rest as it is; deepseek-chat is untouched', () => {
    const rules = deepseekReasoningRules('deepseek-reasoner')!;
    expect(refusal({ model: 'deepseek-reasoner', messages, logprobs: true }, rules).message).toMatch(
      /^logprobs: deepseek-reasoner/,
    );
    const { logprobs: _l, top_logprobs: _t, ...rest } = full('deepseek-reasoner');
    expect(withAcceptedFields(full('deepseek-reasoner'), rules, 'deepseek')).toEqual(rest);
    expect(deepseekReasoningRules('deepseek-chat')).toBeUndefined();
  });
});

describe('reasoning_effort mapped per model', () => {
  const effortFor = (fn: (b: ChatRequest, p: string) => ChatRequest, model: string, effort: string) =>
    fn({ model, messages, reasoning_effort: effort } as ChatRequest, 'x')['reasoning_effort'];
  it('sends Mistral Medium 3.5 under its dated ids the values it takes', () => {
    expect(effortFor(mistralReasoningEffort, 'mistral-medium-2604', 'medium')).toBe('high');
    expect(effortFor(mistralReasoningEffort, 'mistral-medium-2508', 'medium')).toBeUndefined();
  });
  it('sends Grok 4.5 no "none" (it cannot stop reasoning), and Grok 4.3 its "none"', () => {
    expect(effortFor(xaiReasoningEffort, 'grok-4.5', 'none')).toBe('low');
    expect(effortFor(xaiReasoningEffort, 'grok-4.3', 'none')).toBe('none');
    expect(effortFor(xaiReasoningEffort, 'grok-4.20-multi-agent', 'xhigh')).toBe('xhigh');
  });
});

describe('OpenAI reasoning efforts per model family', () => {
  const sent = (model: string, efforts: string[]) =>
    efforts.map(
      (e) => openaiRequest({ model, messages, reasoning_effort: e } as ChatRequest, 'openai')['reasoning_effort'],
    );
  const ALL = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'];
  it('gives each family the nearest value it takes', () => {
    expect(sent('o4-mini', ALL)).toEqual(['low', 'low', 'low', 'medium', 'high', 'high']);
    expect(sent('gpt-5-mini', ALL)).toEqual(['minimal', 'minimal', 'low', 'medium', 'high', 'high']);
    expect(sent('gpt-5.1', ALL)).toEqual(['none', 'low', 'low', 'medium', 'high', 'high']);
    expect(sent('gpt-5.4', ALL)).toEqual(['none', 'low', 'low', 'medium', 'high', 'xhigh']);
    expect(sent('gpt-6.1-sol', ALL)).toEqual(['none', 'low', 'low', 'medium', 'high', 'xhigh']);
    expect(sent('gpt-5-pro', ALL)).toEqual(['high', 'high', 'high', 'high', 'high', 'high']);
    expect(sent('gpt-5.4-pro', ALL)).toEqual(['medium', 'medium', 'medium', 'medium', 'high', 'xhigh']);
    expect(sent('gpt-5.1-codex', ALL)).toEqual(['low', 'low', 'low', 'medium', 'high', 'high']);
    expect(sent('gpt-5.1-codex-max', ['xhigh'])).toEqual(['xhigh']);
    expect(sent('gpt-5.1-codex-mini', ALL)).toEqual(['medium', 'medium', 'medium', 'medium', 'high', 'high']);
    expect(sent('gpt-5-codex', ALL)).toEqual(['low', 'low', 'low', 'medium', 'high', 'high']);
  });
  it('refuses a value OpenAI does not have, and leaves the field out for models that do not reason', () => {
    expect(() =>
      openaiRequest({ model: 'o4-mini', messages, reasoning_effort: 'max' } as ChatRequest, 'openai'),
    ).toThrow(ProviderError);
    expect(
      openaiRequest({ model: 'gpt-4o', messages, reasoning_effort: 'max' } as ChatRequest, 'openai'),
    ).not.toHaveProperty('reasoning_effort');
  });
});
