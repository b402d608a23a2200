import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../server/lib/random.js';
import { detectRegressions, type ReplayPair } from '../../server/modules/regression/detect.js';

// The regression decision: a sure drop beyond the threshold on enough pairs opens an event;
// a judge's noise, too few pairs, or a small drop does not.

function pairs(n: number, original: () => number, replay: () => number, model = 'm'): ReplayPair[] {
  return Array.from({ length: n }, (_, i) => ({
    requestId: `req_${model}_${i}`,
    taskType: 'qa',
    complexity: 'simple',
    provider: 'p',
    model,
    original: original(),
    replay: replay(),
  }));
}

/** A 1-5 grade around `q` with noise (sd about 0.6). */
const noisy = (random: () => number, q: number) => () => {
  const u = Math.max(random(), 1e-12);
  const g = q + 0.6 * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
  return Math.min(5, Math.max(1, Math.round(g)));
};

describe('detectRegressions', () => {
  it('opens one event for a model that dropped, with the worst examples first', () => {
    const random = seededRandom(3);
    const found = detectRegressions(
      [
        ...pairs(20, noisy(random, 4.4), noisy(random, 2.4), 'worse'),
        ...pairs(20, noisy(random, 4.3), noisy(random, 4.3), 'stable'),
      ],
      0.5,
      10,
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ model: 'worse', sampleCount: 20, severity: 'critical' });
    expect(found[0]!.scoreDelta).toBeLessThan(-1.5);
    expect(found[0]!.exampleRequestIds).toHaveLength(5);
  });

  it('never opens one on noise alone, over many seeds', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const random = seededRandom(seed);
      expect(detectRegressions(pairs(20, noisy(random, 4), noisy(random, 4)), 0.5, 10), `seed ${seed}`).toEqual([]);
    }
  });

  it('needs enough pairs, and a drop beyond the threshold', () => {
    expect(
      detectRegressions(
        pairs(
          9,
          () => 5,
          () => 2,
        ),
        0.5,
        10,
      ),
    ).toEqual([]);
    expect(
      detectRegressions(
        pairs(
          10,
          () => 5,
          () => 2,
        ),
        0.5,
        10,
      ),
    ).toHaveLength(1);
    // Every pair a little worse: sure, but within the threshold.
    expect(
      detectRegressions(
        pairs(
          30,
          () => 4.4,
          () => 4,
        ),
        0.5,
        10,
      ),
    ).toEqual([]);
    const warning = detectRegressions(
      pairs(
        30,
        () => 4.4,
        () => 3.7,
      ),
      0.5,
      10,
    );
    expect(warning[0]).toMatchObject({ severity: 'warning', scoreDelta: -0.7 });
  });
});
