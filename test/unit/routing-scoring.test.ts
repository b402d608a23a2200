import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY, rank } from '../../server/gateway/routing/scoring.js';
import type { QualityStat } from '../../server/gateway/routing/state.js';
import { targetKey } from '../../server/gateway/routing/state.js';

// The adaptive pick: the cheapest candidate that may be within tolerance of the best, the bar set
// by what estimates are surely worth.

const t = (provider: string, model: string) => ({ provider, model });
const nano = t('openai', 'gpt-4.1-nano'); // small, the cheapest
const mini4o = t('openai', 'gpt-4o-mini'); // small
const mini = t('openai', 'gpt-4.1-mini'); // medium
const gpt41 = t('openai', 'gpt-4.1'); // large
const opus = t('anthropic', 'claude-opus-4-0'); // large, by far the priciest
const stats = (entries: Array<[{ provider: string; model: string }, number, number]>) =>
  new Map<string, QualityStat>(
    entries.map(([target, count, mean]) => [targetKey(target.provider, target.model), { count, sum: count * mean }]),
  );
const pick = (
  candidates: Array<{ provider: string; model: string }>,
  complexity: 'simple' | 'medium' | 'complex',
  s?: Map<string, QualityStat>,
) => rank(candidates, complexity, s, DEFAULT_POLICY)[0]!.model;

describe('adaptive scoring', () => {
  it('starts on the priors in a cell without feedback: cheap models for simple asks, strong ones for complex', () => {
    expect(pick([nano, mini, gpt41, opus], 'simple')).toBe('gpt-4.1-nano');
    expect(pick([nano, mini, gpt41, opus], 'medium')).toBe('gpt-4.1-mini');
    expect(pick([nano, mini, gpt41, opus], 'complex')).toBe('gpt-4.1');
  });

  it('does not let a model nobody rated outbid rated ones whose users score strictly', () => {
    // Every answer rated 4 (good, by a strict rater); opus was just added and has no scores.
    const s = stats([
      [mini, 180, 4],
      [gpt41, 40, 4],
    ]);
    expect(pick([mini, gpt41, opus], 'medium', s)).toBe('gpt-4.1-mini');
    expect(pick([mini, gpt41, opus], 'complex', s)).toBe('gpt-4.1-mini');
    // Rated as well as the others, the cheapest model is the pick.
    expect(
      pick(
        [nano, mini, gpt41, opus],
        'complex',
        stats([
          [mini, 180, 4],
          [gpt41, 40, 4],
          [nano, 12, 4],
        ]),
      ),
    ).toBe('gpt-4.1-nano');
  });

  it('moves to a cheaper model rated as well as the best once it has MIN_SAMPLES scores', () => {
    // Hundreds of 5s for the pick, ten for two cheaper models: they are rated as well.
    const s = stats([
      [mini, 600, 5],
      [nano, 10, 5],
      [mini4o, 10, 5],
    ]);
    expect(pick([nano, mini4o, mini, gpt41], 'medium', s)).toBe('gpt-4.1-nano');
    // A cheaper model a little below the best (within the tolerance) too.
    expect(
      pick(
        [nano, mini, gpt41],
        'medium',
        stats([
          [mini, 600, 5],
          [nano, 10, 4.8],
        ]),
      ),
    ).toBe('gpt-4.1-nano');
  });

  it('still leaves a cheaper model that is rated clearly worse', () => {
    expect(
      pick(
        [nano, mini, gpt41],
        'medium',
        stats([
          [mini, 600, 5],
          [nano, 10, 4],
        ]),
      ),
    ).toBe('gpt-4.1-mini');
    expect(pick([nano, mini, gpt41], 'simple', stats([[nano, 10, 1]]))).not.toBe('gpt-4.1-nano');
    expect(
      pick(
        [nano, mini, gpt41],
        'medium',
        stats([
          [mini, 600, 5],
          [nano, 200, 4.5],
        ]),
      ),
    ).toBe('gpt-4.1-mini');
  });
});

describe('faded scores (the feedback half-life)', () => {
  it('lets a model whose bad scores are long past back in, where the same scores given now keep it out', () => {
    const s = (nanoStat: QualityStat) =>
      new Map<string, QualityStat>([
        [targetKey(mini.provider, mini.model), { count: 400, sum: 1800, scores: 400 }],
        [targetKey(nano.provider, nano.model), nanoStat],
      ]);
    // Fifty 1s: given now, and given a year ago (with a 30-day half-life each weighs 0.0002).
    expect(pick([nano, mini], 'simple', s({ count: 50, sum: 50, scores: 50 }))).toBe('gpt-4.1-mini');
    expect(pick([nano, mini], 'simple', s({ count: 0.01, sum: 0.01, scores: 50 }))).toBe('gpt-4.1-nano');
  });
});
