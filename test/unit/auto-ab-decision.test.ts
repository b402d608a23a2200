import { describe, expect, it } from 'vitest';
import { isDecisive, standardErrorOfDifference, type ArmStats } from '../../server/modules/ab-tests/auto-ab.js';
import { seededRandom, weightedIndex, type Random } from '../../server/lib/random.js';

// The auto-ab job looks at a running test every 15 minutes for up to 14 days, each time asking
// whether one variant has won. Simulated tests (seeded, so the figures are the same every run):
// two variants whose users give 1-5 scores, a few more scores per variant at each look.

const LOOKS = 600;
const RUNS = 300;
const MIN_SAMPLES = 30;
/** Chance of each score 1..5: a mean of 3.75. */
const AVERAGE = [0.05, 0.1, 0.2, 0.35, 0.3];
/** About half a point better: a mean of 4.24. */
const BETTER = [0.02, 0.05, 0.1, 0.33, 0.5];

class Arm implements ArmStats {
  n = 0;
  private sum = 0;
  private sumSquares = 0;
  constructor(private readonly weights: number[]) {}
  add(random: Random): void {
    const score = weightedIndex(this.weights, random) + 1;
    this.n++;
    this.sum += score;
    this.sumSquares += score * score;
  }
  get mean(): number {
    return this.sum / this.n;
  }
  get variance(): number {
    return this.n < 2 ? 0 : (this.sumSquares - (this.sum * this.sum) / this.n) / (this.n - 1);
  }
}

/** The old rule, one look's 1.96 standard errors, applied at every look. */
const fixedRule = (a: ArmStats, b: ArmStats): boolean =>
  a.n >= MIN_SAMPLES && b.n >= MIN_SAMPLES && Math.abs(a.mean - b.mean) > 1.96 * standardErrorOfDifference(a, b);

/** Per simulated test: the first look at which each rule declared a winner, and whom. */
function simulate(seed: number, weightsA: number[], weightsB: number[]) {
  const random = seededRandom(seed);
  const outcomes: Array<{ sequential: 'a' | 'b' | null; fixed: boolean; samplesPerArm: number }> = [];
  for (let run = 0; run < RUNS; run++) {
    const a = new Arm(weightsA);
    const b = new Arm(weightsB);
    let sequential: 'a' | 'b' | null = null;
    let fixed = false;
    for (let look = 0; look < LOOKS && sequential === null; look++) {
      // Traffic varies between looks: 1 to 6 rated calls per variant.
      for (let i = 1 + Math.floor(random() * 6); i > 0; i--) a.add(random);
      for (let i = 1 + Math.floor(random() * 6); i > 0; i--) b.add(random);
      fixed ||= fixedRule(a, b);
      if (isDecisive(a, b, MIN_SAMPLES)) sequential = a.mean > b.mean ? 'a' : 'b';
    }
    outcomes.push({ sequential, fixed, samplesPerArm: Math.min(a.n, b.n) });
  }
  return outcomes;
}

describe('auto-ab: when a running test has a winner', () => {
  it('declares a winner between two equally good models at most about 5% of the time, however many looks', () => {
    const outcomes = simulate(11, AVERAGE, AVERAGE);
    const falseWinners = outcomes.filter((o) => o.sequential !== null).length / RUNS;
    const fixedFalseWinners = outcomes.filter((o) => o.fixed).length / RUNS;
    // The simulation looks often enough to break a fixed rule...
    expect(fixedFalseWinners).toBeGreaterThan(0.3);
    // ...and the sequential test holds its rate.
    expect(falseWinners).toBeLessThanOrEqual(0.07);
  });

  it('still finds a half-point difference, and always the right way round', () => {
    const outcomes = simulate(12, AVERAGE, BETTER);
    const found = outcomes.filter((o) => o.sequential !== null);
    expect(found.length / RUNS).toBeGreaterThanOrEqual(0.95);
    expect(found.every((o) => o.sequential === 'b')).toBe(true);
    const samples = found.map((o) => o.samplesPerArm).sort((x, y) => x - y);
    // Typically within a few hundred rated calls per variant (a fixed sample size for 80% power would be ~60).
    expect(samples[Math.floor(samples.length / 2)]).toBeLessThan(400);
  });

  it('declares clear differences at once and never before MIN_SAMPLES', () => {
    expect(isDecisive({ n: 15, mean: 5, variance: 0 }, { n: 15, mean: 2, variance: 0 }, 5)).toBe(true);
    expect(isDecisive({ n: 4, mean: 5, variance: 0 }, { n: 40, mean: 1, variance: 0 }, 5)).toBe(false);
    // 2.5 standard errors: enough for one look, not for a test looked at every 15 minutes.
    const a = { n: 100, mean: 4.0, variance: 1 };
    const b = { n: 100, mean: 4.0 - 2.5 * Math.sqrt(0.02), variance: 1 };
    expect(fixedRule(a, b)).toBe(true);
    expect(isDecisive(a, b, 5)).toBe(false);
  });
});
