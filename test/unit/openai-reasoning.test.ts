// OpenAI reasoning models refuse max_tokens, sampling settings other than the defaults, stop and
// logprobs. The OpenAI adapter reshapes a request for them (reasoning.ts): what only renames or
// hints is adapted, what would change the answer is refused before anything is sent.
import { describe, expect, it } from 'vitest';
import { forReasoningModel, isOpenAIReasoningModel } from '../../server/providers/openai-compatible/reasoning.js';
import { ProviderError, type ChatRequest } from '../../server/providers/types.js';

describe('isOpenAIReasoningModel', () => {
  it('knows the o-series and the GPT-5 family, dated ids included, but not their -chat variants', () => {
    for (const id of ['o1', 'o3', 'o3-mini', 'o3-pro', 'o4-mini', 'o4-mini-2025-04-16', 'gpt-5', 'gpt-5-mini', 'gpt-5-nano', 'gpt-5-2025-08-07', 'gpt-5.1']) {
      expect(isOpenAIReasoningModel(id), id).toBe(true);
    }
    for (const id of ['gpt-5-chat-latest', 'gpt-5.1-chat-latest', 'gpt-4o', 'gpt-4.1-mini', 'omni-moderation-latest', 'openai/gpt-oss-120b', 'text-embedding-3-small']) {
      expect(isOpenAIReasoningModel(id), id).toBe(false);
    }
  });
});

describe('forReasoningModel', () => {
  const base: ChatRequest = { model: 'o3', messages: [{ role: 'user', content: 'hi' }] };

  function refusal(req: ChatRequest): ProviderError {
    try {
      forReasoningModel(req, 'openai');
    } catch (e) {
      expect(e).toBeInstanceOf(ProviderError);
      expect(e).toMatchObject({ kind: 'request', retryable: false, provider: 'openai' });
      return e as ProviderError;
    }
    throw new Error('expected a refusal');
  }

  it('sends max_tokens as max_completion_tokens and leaves out sampling settings, in a copy', () => {
    const req: ChatRequest = {
      ...base, max_tokens: 300, temperature: 0.2, top_p: 0.9, presence_penalty: 0.5, frequency_penalty: 0.1, logit_bias: { '50256': -100 },
      logprobs: false, top_logprobs: 0, stop: [], reasoning_effort: 'low', seed: 3, n: 2, tools: [{ type: 'function', function: { name: 'f' } }],
    };
    const copy = structuredClone(req);
    expect(forReasoningModel(req, 'openai')).toEqual({
      model: 'o3', messages: base.messages, max_completion_tokens: 300, reasoning_effort: 'low', seed: 3, n: 2, tools: req.tools,
    });
    expect(req).toEqual(copy);
  });

  it('keeps max_completion_tokens when both are given', () => {
    expect(forReasoningModel({ ...base, max_tokens: 10, max_completion_tokens: 500 }, 'openai')).toEqual({ ...base, max_completion_tokens: 500 });
  });

  it('refuses stop sequences and logprobs, naming the model', () => {
    expect(refusal({ ...base, stop: ['END'] }).message).toBe('stop: o3 is a reasoning model and does not take stop sequences');
    expect(refusal({ ...base, stop: 'END' }).message).toMatch(/^stop: /);
    expect(refusal({ ...base, logprobs: true, top_logprobs: 2 }).message).toBe('logprobs: o3 is a reasoning model and does not return log probabilities');
  });
});
