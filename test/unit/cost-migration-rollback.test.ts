import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../server/lib/random.js';
import { surelyBelow } from '../../server/modules/cost-migrations/service.js';

// The automatic rollback's bar during grace: a model judged as good as the one it replaced is not
// rolled back on a judge's noise; one that got clearly worse is, within its first grades.

/** `n` 1-5 grades around `q` with the judge's spread (sd about 0.6), summed as the repository sums them. */
function grades(random: () => number, q: number, n: number) {
  let sum = 0;
  let sumSquares = 0;
  for (let i = 0; i < n; i++) {
    const u = Math.max(random(), 1e-12);
    const g = Math.min(
      5,
      Math.max(1, Math.round(q + 0.6 * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random()))),
    );
    sum += g;
    sumSquares += g * g;
  }
  return { samples: n, sum, sumSquares };
}

describe('surelyBelow (cost migration rollback during grace)', () => {
  const bar = 4.6 - 0.3; // the previous model's score minus the tolerance

  it('keeps an as-good model over 300 noisy graces, checked at 8 to 60 grades', () => {
    let rolledBack = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const random = seededRandom(seed);
      for (const n of [8, 12, 20, 40, 60]) if (surelyBelow(grades(random, 4.5, n), bar)) rolledBack++;
    }
    expect(rolledBack).toBeLessThanOrEqual(3);
  });

  it('rolls back a clearly worse model at its first 8 grades, every time', () => {
    for (let seed = 1; seed <= 300; seed++) expect(surelyBelow(grades(seededRandom(seed), 2.5, 8), bar)).toBe(true);
  });

  it('needs a spread to judge: fewer than two grades are never enough', () => {
    expect(surelyBelow({ samples: 1, sum: 1, sumSquares: 1 }, bar)).toBe(false);
    expect(surelyBelow({ samples: 0, sum: 0, sumSquares: 0 }, bar)).toBe(false);
  });
});
