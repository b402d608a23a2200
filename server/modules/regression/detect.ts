// Whether replayed answers are worse than the originals, per cell and model: a paired comparison
// of judged scores (replay minus original). An event needs enough pairs, a mean drop beyond the
// threshold, and a drop the noise cannot explain (a paired t statistic past SURE_T), so a noisy
// judge on a stable model opens nothing.

export interface ReplayPair {
  requestId: string;
  taskType: string;
  complexity: string;
  /** The model that answered the replay (what the router picks today). */
  provider: string;
  model: string;
  original: number;
  replay: number;
}

export interface Regression {
  taskType: string;
  complexity: string;
  provider: string;
  model: string;
  sampleCount: number;
  originalAvgScore: number;
  replayAvgScore: number;
  scoreDelta: number;
  severity: 'warning' | 'critical';
  exampleRequestIds: string[];
}

/**
 * A paired t statistic this far below zero: well under a 1% one-sided chance by noise alone at the
 * sample sizes used (1-5 grades are coarse, so the t distribution is only a guide: measured on
 * simulated noisy judges in test/unit/regression-detect.test.ts).
 */
const SURE_T = 3.3;
/** A drop of a whole point or more is critical. */
const CRITICAL_DROP = 1;
const EXAMPLES = 5;

export function detectRegressions(pairs: ReplayPair[], threshold: number, minSamples: number): Regression[] {
  const groups = new Map<string, ReplayPair[]>();
  for (const p of pairs) {
    const k = `${p.taskType}/${p.complexity}|${p.provider}/${p.model}`;
    groups.set(k, [...(groups.get(k) ?? []), p]);
  }
  const out: Regression[] = [];
  for (const g of groups.values()) {
    const n = g.length;
    if (n < minSamples) continue;
    const deltas = g.map((p) => p.replay - p.original);
    const mean = deltas.reduce((s, d) => s + d, 0) / n;
    if (mean > -threshold) continue;
    const variance = deltas.reduce((s, d) => s + (d - mean) ** 2, 0) / (n - 1);
    const se = Math.sqrt(variance / n);
    // No spread at all: every pair dropped by the same amount, which is as sure as it gets.
    if (se > 0 && mean / se > -SURE_T) continue;
    // And the drop is beyond the threshold even one standard error closer to none.
    if (mean + se > -threshold) continue;
    const first = g[0]!;
    const avg = (xs: number[]) => round(xs.reduce((s, x) => s + x, 0) / n);
    out.push({
      taskType: first.taskType,
      complexity: first.complexity,
      provider: first.provider,
      model: first.model,
      sampleCount: n,
      originalAvgScore: avg(g.map((p) => p.original)),
      replayAvgScore: avg(g.map((p) => p.replay)),
      scoreDelta: round(mean),
      severity: mean <= -CRITICAL_DROP ? 'critical' : 'warning',
      exampleRequestIds: [...g]
        .sort((a, b) => a.replay - a.original - (b.replay - b.original) || a.requestId.localeCompare(b.requestId))
        .slice(0, EXAMPLES)
        .map((p) => p.requestId),
    });
  }
  return out;
}

const round = (v: number) => Math.round(v * 1e4) / 1e4;
