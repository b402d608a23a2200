import { describe, expect, it } from 'vitest';
import { geminiLogprobs, openaiLogprobs, tokenSteps } from '../../server/simulator/logprobs.js';

describe('simulated token log probabilities', () => {
  it('are the same for the same tokens, one step per token', () => {
    const tokens = ['Simulated', ' reply', ' from', ' the'];
    const a = tokenSteps(tokens, 5);
    expect(a).toEqual(tokenSteps(tokens, 5));
    expect(a.map((s) => s.chosen.token)).toEqual(tokens);
  });

  it('rank distinct alternatives below the chosen token, up to 20', () => {
    for (const token of [' the', '.', 'x']) {
      const [s] = tokenSteps([token], 50);
      expect(s!.top).toHaveLength(20);
      expect(s!.top[0]).toEqual(s!.chosen);
      expect(new Set(s!.top.map((t) => t.token)).size).toBe(20);
      for (let i = 1; i < s!.top.length; i++) expect(s!.top[i]!.logprob).toBeLessThan(s!.top[i - 1]!.logprob);
    }
  });

  it('give OpenAI entries with UTF-8 bytes', () => {
    const [e] = openaiLogprobs(['Hé'], 1);
    expect(e).toMatchObject({
      token: 'Hé',
      bytes: [72, 195, 169],
      top_logprobs: [{ token: 'Hé', bytes: [72, 195, 169] }],
    });
  });

  it('give Gemini top candidates only when a number of them is asked for', () => {
    expect(geminiLogprobs(['a', 'b'], undefined)).not.toHaveProperty('topCandidates');
    expect(geminiLogprobs(['a', 'b'], 2).topCandidates).toHaveLength(2);
    expect(geminiLogprobs([], undefined)).toEqual({ chosenCandidates: [], logProbabilitySum: 0 });
  });
});
