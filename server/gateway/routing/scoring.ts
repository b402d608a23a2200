import { modelTier, type ModelTier } from '../../providers/capabilities.js';
import type { Complexity, Target } from '../types.js';
import type { QualityStat } from './state.js';
import { targetKey } from './state.js';
import { blendedPrice } from './targets.js';
import type { Random } from '../../lib/random.js';

// Adaptive scoring: a quality estimate per candidate on the 1-5 feedback scale, traded against
// price. The rule is "cheapest among the near-best": find the best estimated quality, keep the
// candidates within a tolerance of it, and take the cheapest (then the fastest). Tolerance shrinks
// with complexity, so simple requests go to cheap models and complex ones to strong models.
//
// Estimates: before a candidate has MIN_SAMPLES feedback scores in the cell, a prior by model tier
// and complexity; from then on the posterior mean of its scores shrunk toward that prior.

export interface ScoringPolicy {
  minSamples: number;
  /** Pseudo-observations of the prior in the posterior mean. */
  priorStrength: number;
  /** How far below the best estimate a cheaper candidate may be and still be chosen. */
  tolerance: Record<Complexity, number>;
  /**
   * Standard errors taken off an estimate before it can set the bar for the others: a model that
   * looks best on few noisy scores must not price every cheaper model out (the winner's curse).
   */
  caution: number;
  /**
   * Pseudo-scores the prior counts for in exploration's posterior (thompsonPick): fewer than
   * `priorStrength`, so exploration doubts the tier priors more than the ranking does and tries a
   * small model on a complex cell, or a dear one on a simple cell, before the scores say no.
   */
  explorationPriorStrength: number;
}

export const DEFAULT_POLICY: ScoringPolicy = {
  minSamples: 10,
  priorStrength: 4,
  tolerance: { simple: 0.35, medium: 0.3, complex: 0.2 },
  caution: 1,
  explorationPriorStrength: 1,
};

/** The default policy with its tolerances scaled (GATEWAY_ROUTING_TOLERANCE). */
export function policyWith(minSamples: number, toleranceScale: number): ScoringPolicy {
  const t = DEFAULT_POLICY.tolerance;
  return {
    ...DEFAULT_POLICY,
    minSamples,
    tolerance: {
      simple: t.simple * toleranceScale,
      medium: t.medium * toleranceScale,
      complex: t.complex * toleranceScale,
    },
  };
}

/** Spread of feedback scores around a model's true quality, used before we can measure it. */
const SCORE_SD = 1;

// What a tier is expected to score before there is evidence, by complexity. Small models do well
// on simple asks and fall off on complex ones; large models hold up everywhere.
export const TIER_PRIORS: Record<Complexity, Record<ModelTier, number>> = {
  simple: { small: 4.1, medium: 4.3, large: 4.4 },
  medium: { small: 3.5, medium: 4.1, large: 4.4 },
  complex: { small: 2.8, medium: 3.7, large: 4.4 },
};
/** Models missing from the catalog: assumed middling, a little below a known medium model. */
const UNKNOWN_TIER_PENALTY = 0.3;

export interface Scored extends Target {
  quality: number;
  /** quality minus `caution` standard errors: what the estimate is surely worth. */
  assured: number;
  /** quality plus `caution` standard errors: what the model may well be worth. */
  possible: number;
  samples: number;
  /** Whether the estimate rests on feedback (samples >= minSamples) rather than the prior. */
  evidence: boolean;
  price: number;
  /**
   * The posterior of the model's quality in the cell from every score it has (however few): the
   * prior as `priorStrength` pseudo-scores, then the scores, faded with age. Exploration draws from
   * it (thompsonPick); the ranking waits for `minSamples` before trusting a mean.
   */
  posteriorMean: number;
  posteriorSd: number;
}

export function prior(t: Target, complexity: Complexity): number {
  const tier = modelTier(t.model, t.provider);
  return tier ? TIER_PRIORS[complexity][tier] : TIER_PRIORS[complexity].medium - UNKNOWN_TIER_PENALTY;
}

export function score(t: Target, complexity: Complexity, stat: QualityStat | undefined, policy: ScoringPolicy): Scored {
  const p = prior(t, complexity);
  // Evidence is a number of scores given; what they weigh (faded with age) is `count`. Faded
  // scores leave the estimate near the prior, with its standard error, and the model short of
  // samples: exploration tries it again.
  const n = stat?.count ?? 0;
  const evidence = (stat?.scores ?? n) >= policy.minSamples;
  const weight = evidence ? policy.priorStrength + n : policy.priorStrength;
  const quality = evidence ? (p * policy.priorStrength + stat!.sum) / weight : p;
  // A measured mean is known to within its standard error; a prior is a guess (see rank()).
  const margin = evidence ? (policy.caution * SCORE_SD) / Math.sqrt(weight) : 0;
  const all = policy.explorationPriorStrength + n;
  return {
    provider: t.provider,
    model: t.model,
    quality,
    assured: quality - margin,
    possible: quality + margin,
    samples: n,
    evidence,
    price: blendedPrice(t),
    posteriorMean: (p * policy.explorationPriorStrength + (stat?.sum ?? 0)) / all,
    posteriorSd: SCORE_SD / Math.sqrt(all),
  };
}

/**
 * What a candidate's estimate sets the bar at. In a cell without feedback the priors are all there
 * is, and set it as they are. Once some candidates have scores, a prior counts as what it is worth,
 * `priorStrength` scores, and is discounted as a mean of that many would be: otherwise a model
 * nobody has rated (one the provider just added, an expensive one never picked) outbids every
 * rated model whose users score strictly (a 4 for a good answer), and takes the cell.
 */
function barOf(s: Scored, cellHasEvidence: boolean, policy: ScoringPolicy): number {
  if (s.evidence || !cellHasEvidence) return s.assured;
  return s.quality - (policy.caution * SCORE_SD) / Math.sqrt(policy.priorStrength);
}

/**
 * Candidates ordered best-first under the policy: the chosen one first, then the rest by quality,
 * then price. The chosen one is the cheapest that may be within tolerance of the best: the bar is
 * the best estimate surely worth (barOf), and a candidate with scores is eligible while its
 * estimate plus a standard error reaches the bar less the tolerance. A cheaper model rated as well
 * as the best is otherwise kept out for hundreds of ratings: its mean is shrunk toward its tier's
 * (lower) prior while the best's rests on many scores; chosen, it gets the scores that settle it.
 */
export function rank(
  candidates: Target[],
  complexity: Complexity,
  stats: Map<string, QualityStat> | undefined,
  policy: ScoringPolicy,
  latencyMs?: (t: Target) => number,
): Scored[] {
  const scored = candidates.map((t) => score(t, complexity, stats?.get(targetKey(t.provider, t.model)), policy));
  if (scored.length === 0) return scored;
  const cellHasEvidence = hasEvidence(scored);
  const best = Math.max(...scored.map((s) => barOf(s, cellHasEvidence, policy)));
  // A hair of slack so that a candidate exactly at the tolerance is not lost to float rounding.
  const floor = best - policy.tolerance[complexity] - 1e-9;
  const lat = latencyMs ?? (() => 0);
  const byQualityThenPrice = (a: Scored, b: Scored) => b.quality - a.quality || a.price - b.price || lat(a) - lat(b);
  const eligible = scored
    .filter((s) => s.possible >= floor)
    .sort((a, b) => a.price - b.price || lat(a) - lat(b) || b.quality - a.quality);
  const chosen = eligible[0]!;
  return [chosen, ...scored.filter((s) => s !== chosen).sort(byQualityThenPrice)];
}

export function hasEvidence(scored: Scored[]): boolean {
  return scored.some((s) => s.evidence);
}

/**
 * A model the pricing table does not know (its calls are logged at cost 0) is not taken for the
 * cheapest: it comes last among those within tolerance.
 */
function knownPrice(s: Scored): number {
  return Number.isFinite(s.price) ? s.price : Number.POSITIVE_INFINITY;
}

/** A standard normal draw (Box-Muller). */
function normal(random: Random): number {
  const u = Math.max(random(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/**
 * Thompson sampling on the routing rule: draw each candidate's quality from its posterior, then
 * take the cheapest within tolerance of the best draw, as rank() does with estimates. A candidate
 * comes out of the draw often where its posterior is wide and overlaps the best (too few scores to
 * rule it in or out: where a score can change the decision) and rarely once its scores settle it,
 * whatever it costs: a dear model that may be much better gets tried as a cheap one does.
 */
export function thompsonPick(
  scored: Scored[],
  complexity: Complexity,
  policy: ScoringPolicy,
  random: Random,
  spread = 1,
): Scored {
  let best = -Infinity;
  const draws = scored.map((s) => {
    const d = s.posteriorMean + spread * s.posteriorSd * normal(random);
    if (d > best) best = d;
    return d;
  });
  const floor = best - policy.tolerance[complexity];
  let chosen = -1;
  for (let i = 0; i < scored.length; i++) {
    if (draws[i]! < floor) continue;
    if (chosen < 0 || knownPrice(scored[i]!) < knownPrice(scored[chosen]!)) chosen = i;
  }
  return scored[chosen]!;
}

/** Draws tried before exploration stops waiting for one that disagrees with the top pick. */
const EXPLORATION_DRAWS = 8;

/**
 * A candidate other than `chosen` to explore: the first Thompson draw (thompsonPick) that
 * disagrees with it, so each is explored about as often as its posterior says it may be the right
 * choice. When the draws keep agreeing (the cell is settled), the other candidate with the most
 * upside.
 */
export function explorationPick(
  ranked: Scored[],
  chosen: Scored,
  complexity: Complexity,
  policy: ScoringPolicy,
  random: Random,
): Scored {
  for (let i = 0; i < EXPLORATION_DRAWS; i++) {
    const pick = thompsonPick(ranked, complexity, policy, random);
    if (pick !== chosen) return pick;
  }
  let best: Scored | undefined;
  for (const s of ranked) {
    if (s === chosen) continue;
    if (!best || s.posteriorMean + 2 * s.posteriorSd > best.posteriorMean + 2 * best.posteriorSd) best = s;
  }
  return best!;
}
