import { describe, expect, it } from 'vitest';
import {
  DEFAULT_POLICY,
  explorationPick,
  rank,
  thompsonPick,
  type Scored,
} from '../../server/gateway/routing/scoring.js';
import type { QualityStat } from '../../server/gateway/routing/state.js';
import { seededRandom } from '../../server/lib/random.js';
import type { Target } from '../../server/gateway/types.js';

// Thompson sampling in the router: the adaptive pick draws from the candidates' posteriors, and
// exploration draws until it finds a candidate other than the chosen one.

const nano: Target = { provider: 'openai', model: 'gpt-4.1-nano' };
const mini: Target = { provider: 'openai', model: 'gpt-4.1-mini' };
const gpt41: Target = { provider: 'openai', model: 'gpt-4.1' };
const sonnet: Target = { provider: 'anthropic', model: 'claude-sonnet-4-5' };
const key = (t: Target) => `${t.provider}/${t.model}`;

function stats(entries: Array<[Target, number, number]>): Map<string, QualityStat> {
  return new Map(entries.map(([t, n, mean]) => [key(t), { count: n, sum: n * mean, scores: n }]));
}

function share(draw: () => Scored, target: Target, n = 2000): number {
  let hits = 0;
  for (let i = 0; i < n; i++) if (key(draw()) === key(target)) hits++;
  return hits / n;
}

describe('thompsonPick', () => {
  it('agrees with the ranking once the scores settle the cell', () => {
    const s = stats([
      [nano, 400, 3.2],
      [mini, 400, 4.5],
      [gpt41, 400, 4.6],
    ]);
    const ranked = rank([nano, mini, gpt41], 'medium', s, DEFAULT_POLICY);
    expect(ranked[0]!.model).toBe('gpt-4.1-mini');
    const random = seededRandom(1);
    expect(share(() => thompsonPick(ranked, 'medium', DEFAULT_POLICY, random), mini)).toBeGreaterThan(0.95);
  });

  it('keeps trying a dear model nobody rated where the rated cheap ones are mediocre', () => {
    // The cheap models are settled at 3.9 on a complex cell; the dear one has no scores. The
    // ranking prices it out (its prior counts for little against measured means), but its posterior
    // is wide and reaches well past 3.9 + tolerance: Thompson sampling sends it traffic.
    const s = stats([
      [nano, 300, 3.9],
      [mini, 300, 3.9],
    ]);
    const ranked = rank([nano, mini, sonnet], 'complex', s, DEFAULT_POLICY);
    expect(ranked[0]!.model).toBe('gpt-4.1-nano');
    const random = seededRandom(2);
    expect(share(() => thompsonPick(ranked, 'complex', DEFAULT_POLICY, random), sonnet)).toBeGreaterThan(0.3);
  });

  it('does not take a model without a price for the cheapest', () => {
    const unpriced: Scored = { ...rank([nano], 'simple', undefined, DEFAULT_POLICY)[0]!, price: Number.NaN };
    const priced = rank([mini], 'simple', undefined, DEFAULT_POLICY)[0]!;
    const random = seededRandom(3);
    const settle = (x: Scored): Scored => ({ ...x, posteriorMean: 4.5, posteriorSd: 0.01 });
    expect(thompsonPick([settle(unpriced), settle(priced)], 'simple', DEFAULT_POLICY, random).model).toBe(
      'gpt-4.1-mini',
    );
  });
});

describe('explorationPick', () => {
  it('never returns the chosen candidate, and spends its samples where they can change the decision', () => {
    // mini is chosen; nano is settled far below it (no score can bring it back), gpt41 has few
    // scores and may well be better: exploration goes to gpt41, not uniformly.
    const s = stats([
      [nano, 500, 2.5],
      [mini, 500, 4.0],
      [gpt41, 2, 4.6],
    ]);
    const ranked = rank([nano, mini, gpt41], 'medium', s, DEFAULT_POLICY);
    const chosen = ranked.find((x) => x.model === 'gpt-4.1-mini')!;
    const random = seededRandom(4);
    let toGpt41 = 0;
    for (let i = 0; i < 1000; i++) {
      const pick = explorationPick(ranked, chosen, 'medium', DEFAULT_POLICY, random);
      expect(pick).not.toBe(chosen);
      if (pick.model === 'gpt-4.1') toGpt41++;
    }
    expect(toGpt41 / 1000).toBeGreaterThan(0.9);
  });
});
