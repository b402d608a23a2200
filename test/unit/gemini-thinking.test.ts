// OpenAI's reasoning_effort as Gemini's thinkingConfig: a level for Gemini 3 and later (only the
// levels each model has), a budget for 2.5, nothing for models that do not think or that the
// name does not place. Every setting sent is one the simulator, checking as Gemini does, takes.
import { describe, expect, it } from 'vitest';
import { toGeminiRequest } from '../../server/providers/gemini/request.js';
import { ProviderError, type ChatRequest } from '../../server/providers/types.js';
import { thinkingConfigError } from '../../server/simulator/gemini-thinking.js';

const req = (model: string, effort: unknown): ChatRequest => ({
  model,
  messages: [{ role: 'user', content: 'hi' }],
  reasoning_effort: effort,
});
const thinking = (model: string, effort: unknown): unknown => {
  const gen = toGeminiRequest(req(model, effort)).generationConfig;
  return gen?.['thinkingConfig'];
};

const EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'];

describe('Gemini thinking from reasoning_effort', () => {
  it('gives Gemini 3 Flash and Flash-Lite the level of the same name, "none" their lowest', () => {
    for (const model of ['gemini-3.8-flash', 'gemini-3.5-flash-lite', 'models/gemini-3-flash-preview']) {
      expect(EFFORTS.map((e) => thinking(model, e))).toEqual([
        { thinkingLevel: 'minimal' },
        { thinkingLevel: 'minimal' },
        { thinkingLevel: 'low' },
        { thinkingLevel: 'medium' },
        { thinkingLevel: 'high' },
        { thinkingLevel: 'high' },
      ]);
    }
  });

  it('gives a Pro the nearest level it has: no minimal (it cannot stop thinking), and no medium on Gemini 3 Pro', () => {
    expect(EFFORTS.map((e) => thinking('gemini-3.1-pro-preview', e))).toEqual([
      { thinkingLevel: 'low' },
      { thinkingLevel: 'low' },
      { thinkingLevel: 'low' },
      { thinkingLevel: 'medium' },
      { thinkingLevel: 'high' },
      { thinkingLevel: 'high' },
    ]);
    expect(thinking('gemini-3-pro-preview', 'medium')).toEqual({ thinkingLevel: 'high' });
  });

  it('gives Gemini 2.5 a budget, 0 only where thinking can stop', () => {
    expect(EFFORTS.map((e) => thinking('gemini-2.5-flash', e))).toEqual(
      [0, 512, 1_024, 8_192, 24_576, 24_576].map((b) => ({ thinkingBudget: b })),
    );
    expect(thinking('gemini-2.5-flash-lite', 'none')).toEqual({ thinkingBudget: 0 });
    expect(thinking('gemini-2.5-pro', 'none')).toEqual({ thinkingBudget: 128 });
    expect(thinking('gemini-2.5-pro', 'high')).toEqual({ thinkingBudget: 24_576 });
  });

  it('sends nothing to models that do not think or that it cannot place, nor when no effort is asked', () => {
    for (const model of [
      'gemini-2.0-flash',
      'gemini-1.5-pro',
      'gemini-flash-latest',
      'gemma-3-27b-it',
      'gemini-2.5-flash-image',
      'gemini-2.5-flash-preview-tts',
      'gemini-3-pro-image-preview',
      'gemini-2.5-flash-native-audio-dialog',
    ]) {
      expect(thinking(model, 'low'), model).toBeUndefined();
    }
    expect(thinking('gemini-3.8-flash', undefined)).toBeUndefined();
    expect(thinking('gemini-3.8-flash', null)).toBeUndefined();
  });

  it('refuses an effort OpenAI does not have, before sending, where the model takes one', () => {
    expect(thinking('gemini-2.0-flash', 'hgih')).toBeUndefined();
    for (const effort of ['hgih', '', 3]) {
      let err: unknown;
      try {
        toGeminiRequest(req('gemini-3.8-flash', effort));
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ProviderError);
      expect((err as ProviderError).kind).toBe('request');
      expect((err as ProviderError).message).toContain('reasoning_effort');
    }
  });

  it('sends only settings Gemini takes (the simulator checks as Gemini does)', () => {
    const models = [
      'gemini-3.8-flash',
      'gemini-3.5-flash-lite',
      'gemini-3.1-pro-preview',
      'gemini-3-pro-preview',
      'gemini-2.5-pro',
      'gemini-2.5-flash',
      'gemini-2.5-flash-lite',
    ];
    for (const model of models) {
      for (const effort of EFFORTS)
        expect([model, effort, thinkingConfigError(model, thinking(model, effort))]).toEqual([
          model,
          effort,
          undefined,
        ]);
    }
    // And the checks refuse what Gemini refuses.
    expect(thinkingConfigError('gemini-3-pro-preview', { thinkingLevel: 'medium' })).toContain('MEDIUM');
    expect(thinkingConfigError('gemini-2.5-flash', { thinkingLevel: 'low' })).toContain('not supported');
    expect(thinkingConfigError('gemini-2.5-pro', { thinkingBudget: 0 })).toContain('only works in thinking mode');
    expect(thinkingConfigError('gemini-3.8-flash', { thinkingLevel: 'low', thinkingBudget: 10 })).toContain('together');
    expect(thinkingConfigError('gemini-2.0-flash', { thinkingBudget: 1024 })).toContain('not supported');
  });
});
