// Gemini 2.5 and later answer 400 "Penalty is not enabled for models/<model>" to presencePenalty
// and frequencyPenalty; only the gemini-1.5 and gemini-2.0 families take them. For the others the
// penalties, a sampling hint, are left out.
import { describe, expect, it } from 'vitest';
import { takesPenalties, toGeminiRequest } from '../../server/providers/gemini/request.js';
import type { ChatRequest } from '../../server/providers/types.js';

const req = (model: string): ChatRequest => ({
  model,
  messages: [{ role: 'user', content: 'hi' }],
  temperature: 0.5,
  presence_penalty: 0.4,
  frequency_penalty: -0.2,
});

describe('gemini penalties', () => {
  it('are sent to gemini-2.0 and gemini-1.5 models', () => {
    for (const model of [
      'gemini-2.0-flash',
      'gemini-2.0-flash-lite-001',
      'models/gemini-1.5-pro',
      'gemini-1.5-flash-8b',
    ]) {
      expect(toGeminiRequest(req(model))).toEqual({
        contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
        generationConfig: { temperature: 0.5, presencePenalty: 0.4, frequencyPenalty: -0.2 },
      });
    }
  });

  it('are left out for 2.5 and later models and for aliases', () => {
    for (const model of [
      'gemini-2.5-flash',
      'gemini-2.5-pro',
      'models/gemini-2.5-flash-lite',
      'gemini-3-pro-preview',
      'gemini-flash-latest',
      'gemini-2.05-x',
    ]) {
      expect(toGeminiRequest(req(model))).toEqual({
        contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
        generationConfig: { temperature: 0.5 },
      });
    }
    expect(
      toGeminiRequest({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }], presence_penalty: 1 }),
    ).not.toHaveProperty('generationConfig');
  });

  it('takesPenalties names the 1.5 and 2.0 families only', () => {
    expect(takesPenalties('gemini-2.0-flash')).toBe(true);
    expect(takesPenalties('gemini-1.5-pro-002')).toBe(true);
    expect(takesPenalties('gemini-2.5-flash')).toBe(false);
    expect(takesPenalties('gemini-20-flash')).toBe(false);
  });
});
