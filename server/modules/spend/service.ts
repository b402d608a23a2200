import type { z } from 'zod';
import type { Tier } from '../../config.js';
import { insufficientTier, tierIncludes } from '../../trpc/procedures.js';
import { driftOf } from './drift.js';
import { projectMonth } from './projection.js';
import { recommend, type CellQuality } from './recommend.js';
import type { SpendKey, SpendRepository, SpendRow } from './repository.js';
import type {
  Drift,
  Recommendations,
  RecommendationsInput,
  SpendBy,
  SpendByInput,
  SpendDimension,
  Trajectory,
} from './schemas.js';
import { DAY_MS, previousOf, type SpendWindow, type WindowInput, windowOf } from './window.js';

type Out<T extends z.ZodType> = z.output<T>;

/** What the spend module needs from the rest of the gateway (wired in services.ts). */
export interface SpendDeps {
  repository: SpendRepository;
  /** Token names by id, for labels. */
  tokenNames(tenantId: string): Promise<Map<string, string>>;
  /** Judged quality per (provider, model, cell), all time. */
  cellQuality(tenantId: string): Promise<CellQuality[]>;
  /** The workspace's monthly budget in USD, when one is set. */
  monthlyBudget?(tenantId: string): Promise<number | null>;
  minSamples: number;
  now?: () => number;
}

const KEYS: Record<SpendDimension, SpendKey[]> = {
  provider: ['provider'],
  model: ['provider', 'model'],
  cell: ['task_type', 'complexity'],
  token: ['token_id'],
  user: ['token_id'],
};

const NOTES: Partial<Record<SpendDimension, string>> = {
  cell: "Calls outside a routing cell (pinned models, the gateway's own judge and eval calls) are under '/'.",
  token: "Calls made by the gateway itself (judge, evals) have no token: key ''.",
  user: 'Until sign-in exists each API token counts as its own user: the figures are per token.',
};

/** Tiers SPEC gives the dimensions: per token or user needs Enterprise, the rest Team. */
export function tierForDimension(d: SpendDimension): Tier {
  return d === 'token' || d === 'user' ? 'enterprise' : 'team';
}

const round = (v: number) => Math.round(v * 1e12) / 1e12;

export class SpendService {
  private readonly now: () => number;

  constructor(private readonly d: SpendDeps) {
    this.now = d.now ?? Date.now;
  }

  async by(tenantId: string, tier: Tier, input: Out<typeof SpendByInput>): Promise<Out<typeof SpendBy>> {
    const required = tierForDimension(input.dimension);
    if (!tierIncludes(tier, required)) throw insufficientTier(required, tier);
    return this.byWindow(tenantId, input.dimension, windowOf(input, this.now()));
  }

  /** The /by figures of every dimension the tier may see, for the export. */
  async everyDimension(tenantId: string, tier: Tier, input: WindowInput): Promise<Array<Out<typeof SpendBy>>> {
    const window = windowOf(input, this.now());
    const dims = (['provider', 'model', 'cell', 'token', 'user'] as const).filter((d) =>
      tierIncludes(tier, tierForDimension(d)),
    );
    return Promise.all(dims.map((d) => this.byWindow(tenantId, d, window)));
  }

  private async byWindow(tenantId: string, dimension: SpendDimension, w: SpendWindow): Promise<Out<typeof SpendBy>> {
    const keys = KEYS[dimension];
    const prev = previousOf(w);
    const [now, before, names] = await Promise.all([
      this.d.repository.totals(tenantId, w, keys),
      this.d.repository.totals(tenantId, prev, keys),
      keys.includes('token_id') ? this.d.tokenNames(tenantId) : Promise.resolve(new Map<string, string>()),
    ]);
    const keyOf = (r: SpendRow) => keys.map((k) => r[k as Exclude<SpendKey, 'day'>] ?? '').join('/');
    const previous = new Map(before.map((r) => [keyOf(r), r.cost]));
    const total = now.reduce((s, r) => s + r.cost, 0);
    const previousTotal = before.reduce((s, r) => s + r.cost, 0);
    const items = now
      .map((r) => {
        const key = keyOf(r);
        const was = previous.get(key) ?? 0;
        return {
          key,
          label: keys[0] === 'token_id' ? (names.get(key) ?? null) : null,
          spendUsd: round(r.cost),
          calls: r.calls,
          inputTokens: r.inputTokens,
          outputTokens: r.outputTokens,
          share: total > 0 ? Math.round((r.cost / total) * 1e6) / 1e6 : 0,
          previousSpendUsd: round(was),
          changePct: was > 0 ? Math.round(((r.cost - was) / was) * 1e4) / 100 : null,
        };
      })
      .sort((a, b) => b.spendUsd - a.spendUsd || a.key.localeCompare(b.key));
    return {
      dimension,
      period: { from: w.from.toISOString(), to: w.to.toISOString() },
      previousPeriod: { from: prev.from.toISOString(), to: prev.to.toISOString() },
      totalUsd: round(total),
      previousTotalUsd: round(previousTotal),
      items,
      note: NOTES[dimension] ?? null,
    };
  }

  async trajectory(tenantId: string): Promise<Out<typeof Trajectory>> {
    const nowMs = this.now();
    const today = new Date(nowMs);
    const monthStart = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), 1);
    const monthEnd = Date.UTC(today.getUTCFullYear(), today.getUTCMonth() + 1, 1);
    const rows = await this.d.repository.totals(tenantId, { from: new Date(monthStart), to: new Date(nowMs) }, ['day']);
    const byDay = new Map(rows.map((r) => [r.day ?? 0, r.cost]));
    const days: Array<{ date: string; spendUsd: number }> = [];
    for (let day = monthStart; day <= nowMs && day < monthEnd; day += DAY_MS)
      days.push({ date: new Date(day).toISOString().slice(0, 10), spendUsd: round(byDay.get(day) ?? 0) });
    const monthToDate = rows.reduce((s, r) => s + r.cost, 0);
    const projection = projectMonth(
      days.map((d) => d.spendUsd),
      (nowMs - monthStart) / DAY_MS,
      (monthEnd - nowMs) / DAY_MS,
    );
    const budget = (await this.d.monthlyBudget?.(tenantId)) ?? null;
    return {
      month: today.toISOString().slice(0, 7),
      monthToDateUsd: round(monthToDate),
      days,
      projection,
      budget:
        budget !== null && budget > 0
          ? {
              monthlyUsd: budget,
              projectedShare: Math.round((projection.projectedMonthUsd / budget) * 1e4) / 1e4,
              spentShare: Math.round((monthToDate / budget) * 1e4) / 1e4,
            }
          : null,
    };
  }

  async drift(tenantId: string): Promise<Out<typeof Drift>> {
    const nowMs = this.now();
    const w = { from: new Date(nowMs - 7 * DAY_MS), to: new Date(nowMs) };
    const prev = previousOf(w);
    const [byModelNow, byModelPrev, byCellNow, byCellPrev] = await Promise.all([
      this.d.repository.totals(tenantId, w, ['provider', 'model']),
      this.d.repository.totals(tenantId, prev, ['provider', 'model']),
      this.d.repository.totals(tenantId, w, ['task_type', 'complexity']),
      this.d.repository.totals(tenantId, prev, ['task_type', 'complexity']),
    ]);
    const model = (r: SpendRow) => `${r.provider}/${r.model}`;
    const cell = (r: SpendRow) => `${r.task_type}/${r.complexity}`;
    return {
      period: { from: w.from.toISOString(), to: w.to.toISOString() },
      previousPeriod: { from: prev.from.toISOString(), to: prev.to.toISOString() },
      byModel: driftOf(byModelNow, byModelPrev, model),
      byCell: driftOf(byCellNow, byCellPrev, cell),
    };
  }

  async recommendations(
    tenantId: string,
    input: Out<typeof RecommendationsInput>,
  ): Promise<Out<typeof Recommendations>> {
    const nowMs = this.now();
    const minSamples = input.minSamples ?? this.d.minSamples;
    const [quality, recent, allTime] = await Promise.all([
      this.d.cellQuality(tenantId),
      this.d.repository.totals(tenantId, { from: new Date(nowMs - 30 * DAY_MS), to: new Date(nowMs) }, CELL_MODEL),
      this.d.repository.totals(tenantId, { from: new Date(0), to: new Date(nowMs) }, CELL_MODEL),
    ]);
    return {
      tolerance: input.tolerance,
      minSamples,
      items: recommend({ quality, recent, allTime, tolerance: input.tolerance, minSamples }),
    };
  }
}

const CELL_MODEL: SpendKey[] = ['task_type', 'complexity', 'provider', 'model'];
