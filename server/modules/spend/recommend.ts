import type { SpendRow } from './repository.js';

// Per routing cell: the model that carries most of the cell's traffic (last 30 days), and a cheaper
// model whose judged quality on that cell is within `tolerance` of it, both with at least
// `minSamples` judged samples there. Savings assume the current model's 30-day volume moves at the
// candidate's cost per call on that cell (all time). No recommendation where evidence is thin.

export interface CellQuality {
  provider: string;
  model: string;
  taskType: string;
  complexity: string;
  samples: number;
  scoreSum: number;
}

export interface RecommendInput {
  quality: CellQuality[];
  /** Spend per (cell, provider, model), last 30 days. */
  recent: SpendRow[];
  /** Spend per (cell, provider, model), all time: cost per call. */
  allTime: SpendRow[];
  tolerance: number;
  minSamples: number;
}

interface Evidence {
  provider: string;
  model: string;
  avgScore: number;
  samples: number;
  avgCostPerCallUsd: number;
}

export interface Recommendation {
  taskType: string;
  complexity: string;
  current: Evidence & { callsLast30d: number };
  recommended: Evidence;
  estimatedMonthlySavingsUsd: number;
}

const cellKey = (taskType: string, complexity: string) => `${taskType}/${complexity}`;
const modelKey = (provider: string, model: string) => `${provider}\u0000${model}`;
const round = (v: number, p = 1e6) => Math.round(v * p) / p;

export function recommend(input: RecommendInput): Recommendation[] {
  const unitCost = new Map<string, number>();
  for (const r of input.allTime)
    if (r.calls > 0)
      unitCost.set(`${cellKey(r.task_type!, r.complexity!)}|${modelKey(r.provider!, r.model!)}`, r.cost / r.calls);

  // The incumbent per cell: most calls in the last 30 days.
  const incumbent = new Map<string, SpendRow>();
  for (const r of input.recent) {
    if (!r.task_type || !r.complexity) continue;
    const k = cellKey(r.task_type, r.complexity);
    const best = incumbent.get(k);
    if (!best || r.calls > best.calls) incumbent.set(k, r);
  }

  const judged = new Map<string, CellQuality[]>();
  for (const q of input.quality) {
    const k = cellKey(q.taskType, q.complexity);
    judged.set(k, [...(judged.get(k) ?? []), q]);
  }

  const out: Recommendation[] = [];
  for (const [cell, cur] of incumbent) {
    const rated = judged.get(cell) ?? [];
    const curQ = rated.find((q) => q.provider === cur.provider && q.model === cur.model);
    const curCost = unitCost.get(`${cell}|${modelKey(cur.provider!, cur.model!)}`);
    if (!curQ || curQ.samples < input.minSamples || curCost === undefined) continue;
    const curScore = curQ.scoreSum / curQ.samples;
    let best: { q: CellQuality; cost: number; score: number } | undefined;
    for (const q of rated) {
      if (q === curQ || q.samples < input.minSamples) continue;
      const cost = unitCost.get(`${cell}|${modelKey(q.provider, q.model)}`);
      const score = q.scoreSum / q.samples;
      if (cost === undefined || cost >= curCost || score < curScore - input.tolerance) continue;
      if (!best || cost < best.cost || (cost === best.cost && score > best.score)) best = { q, cost, score };
    }
    if (!best) continue;
    out.push({
      taskType: cur.task_type!,
      complexity: cur.complexity!,
      current: {
        provider: cur.provider!,
        model: cur.model!,
        avgScore: round(curScore, 1e4),
        samples: curQ.samples,
        avgCostPerCallUsd: round(curCost, 1e12),
        callsLast30d: cur.calls,
      },
      recommended: {
        provider: best.q.provider,
        model: best.q.model,
        avgScore: round(best.score, 1e4),
        samples: best.q.samples,
        avgCostPerCallUsd: round(best.cost, 1e12),
      },
      estimatedMonthlySavingsUsd: round(cur.calls * (curCost - best.cost)),
    });
  }
  return out.sort((a, b) => b.estimatedMonthlySavingsUsd - a.estimatedMonthlySavingsUsd);
}
