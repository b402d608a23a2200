// GATEWAY_CLASSIFIER_MODEL is asked for a few words under a 20-token limit, on the request's path:
// a reasoning model there gets a start-up warning.
import { describe, expect, it } from 'vitest';
import { classifierModelWarning } from '../../server/gateway/routing/llm-classifier.js';

describe('classifierModelWarning', () => {
  it('warns about reasoning models, by provider/model or dated id', () => {
    for (const model of [
      'openai/o3-mini',
      'openai/gpt-5-nano',
      'xai/grok-3-mini',
      'deepseek/deepseek-reasoner',
      'openai/o4-mini-2025-04-16',
    ]) {
      expect(classifierModelWarning(model), model).toMatch(/reasons in hidden tokens .* 20-token limit/);
    }
  });

  it('is silent for a model that answers directly, or one it does not know', () => {
    for (const model of [
      'openai/gpt-4.1-nano',
      'gemini/gemini-2.0-flash',
      'groq/llama-3.1-8b-instant',
      'ollama/some-local-model',
    ]) {
      expect(classifierModelWarning(model), model).toBeUndefined();
    }
  });
});
