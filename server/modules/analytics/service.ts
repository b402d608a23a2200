import type { z } from 'zod';
import { GatewayError } from '../../lib/errors.js';
import { isStorableTime } from '../../lib/cursor.js';
import { costUsd } from '../../providers/pricing.js';
import {
  analyticsRepository as repo,
  type CellQualityRow,
  type Queryable,
  type RequestListRow,
  type RequestTotalsRow,
} from './repository.js';
import type {
  CacheSavings,
  CostsByModel,
  CostsByProvider,
  CostTimeseries,
  ListRequestsInput,
  ModelsCompare,
  ModelsCompareInput,
  Overview,
  Pipeline,
  RequestItem,
  RequestPage,
  RoutingDistribution,
  RoutingStats,
  Timeseries,
  TimeseriesInput,
} from './schemas.js';
import { unitMs, windowFor, type Window } from './time.js';

type Out<T extends z.ZodType> = z.infer<T>;

/** What the service needs from the running gateway besides the database. */
export interface AnalyticsRuntime {
  /** Registered providers with at least one model after discovery (registry.activeCount()). */
  activeProviders(): number;
  /** GATEWAY_EXPLORATION_RATE. */
  explorationRate(): number;
}

export interface AnalyticsServiceOptions {
  /** Clock, epoch ms (tests pin it to exercise range and bucket edges). */
  now?: () => number;
}

const CLASSIFIER = new Set(['classification', 'routing-hint']);

/** '' in rollup keys stands for null. */
const nullIfEmpty = (v: string | null | undefined): string | null => (v ? v : null);
const ratio = (n: number, d: number) => (d > 0 ? n / d : 0);
const round = (v: number, digits: number) => {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
};
/** Latency means: three decimals; rates and shares: six; USD: twelve, as stored. */
const ms = (v: number) => round(v, 3);
const rate = (v: number) => round(v, 6);
const usd = (v: number) => round(v, 12);

export class AnalyticsService {
  private readonly now: () => number;

  constructor(
    private readonly db: Queryable,
    private readonly runtime: AnalyticsRuntime,
    opts: AnalyticsServiceOptions = {},
  ) {
    this.now = opts.now ?? Date.now;
  }

  /** Judged quality per (provider, model, routing cell): what spend recommendations weigh. */
  cellQuality(tenantId: string): Promise<CellQualityRow[]> {
    return repo.cellQuality(this.db, tenantId);
  }

  async overview(tenantId: string): Promise<Out<typeof Overview>> {
    const r = await repo.overview(this.db, tenantId);
    return {
      totalRequests: r.requests,
      totalCostUsd: usd(r.cost),
      avgLatencyMs: ms(ratio(r.latencySum, r.requests)),
      activeProviders: this.runtime.activeProviders(),
      tokensSaved: r.tokensSavedInput + r.tokensSavedOutput,
      tokensSavedInput: r.tokensSavedInput,
      tokensSavedOutput: r.tokensSavedOutput,
      cacheHits: r.cacheHits,
      upstreamCalls: r.calls,
      errors: r.errors,
    };
  }

  async cacheSavings(tenantId: string): Promise<Out<typeof CacheSavings>> {
    const rows = await repo.requestTotals(this.db, tenantId, ['provider', 'model']);
    const total = sum(rows, (r) => r.requests);
    const byModel = new Map<string, Out<typeof CacheSavings>['byModel'][number]>();
    for (const r of rows) {
      if (r.exactHits + r.semanticHits === 0 && r.tokensSavedInput + r.tokensSavedOutput === 0) continue;
      const key = `${r.provider}\u0000${r.model}`;
      let m = byModel.get(key);
      if (!m) {
        m = {
          provider: nullIfEmpty(r.provider),
          model: nullIfEmpty(r.model),
          hits: 0,
          exactHits: 0,
          semanticHits: 0,
          tokensSavedInput: 0,
          tokensSavedOutput: 0,
          tokensSaved: 0,
          estimatedSavingsUsd: 0,
        };
        byModel.set(key, m);
      }
      m.exactHits += r.exactHits;
      m.semanticHits += r.semanticHits;
      m.hits += r.exactHits + r.semanticHits;
      m.tokensSavedInput += r.tokensSavedInput;
      m.tokensSavedOutput += r.tokensSavedOutput;
      m.tokensSaved += r.tokensSavedInput + r.tokensSavedOutput;
    }
    const items = [...byModel.values()];
    for (const m of items)
      m.estimatedSavingsUsd = usd(
        m.model ? (costUsd(m.model, m.tokensSavedInput, m.tokensSavedOutput, m.provider ?? undefined) ?? 0) : 0,
      );
    items.sort((a, b) => b.hits - a.hits || byName(a, b));
    const exactHits = sum(rows, (r) => r.exactHits);
    const semanticHits = sum(rows, (r) => r.semanticHits);
    const tokensSavedInput = sum(rows, (r) => r.tokensSavedInput);
    const tokensSavedOutput = sum(rows, (r) => r.tokensSavedOutput);
    return {
      totalRequests: total,
      hits: exactHits + semanticHits,
      exactHits,
      semanticHits,
      hitRate: rate(ratio(exactHits + semanticHits, total)),
      exactHitRate: rate(ratio(exactHits, total)),
      semanticHitRate: rate(ratio(semanticHits, total)),
      tokensSavedInput,
      tokensSavedOutput,
      tokensSaved: tokensSavedInput + tokensSavedOutput,
      estimatedSavingsUsd: usd(sum(items, (m) => m.estimatedSavingsUsd)),
      byModel: items,
    };
  }

  async costsByProvider(tenantId: string): Promise<Out<typeof CostsByProvider>> {
    const rows = await repo.costTotals(this.db, tenantId);
    const byProvider = new Map<string, Out<typeof CostsByProvider>['items'][number]>();
    for (const r of rows) {
      let p = byProvider.get(r.provider);
      if (!p)
        byProvider.set(
          r.provider,
          (p = {
            provider: r.provider,
            totalCostUsd: 0,
            inputTokens: 0,
            outputTokens: 0,
            upstreamCalls: 0,
            failedCalls: 0,
          }),
        );
      p.totalCostUsd += r.cost;
      p.inputTokens += r.inputTokens;
      p.outputTokens += r.outputTokens;
      p.upstreamCalls += r.calls;
      p.failedCalls += r.errors;
    }
    const items = [...byProvider.values()].map((p) => ({ ...p, totalCostUsd: usd(p.totalCostUsd) }));
    items.sort((a, b) => b.totalCostUsd - a.totalCostUsd || a.provider.localeCompare(b.provider));
    return { totalCostUsd: usd(sum(rows, (r) => r.cost)), items };
  }

  async costsByModel(tenantId: string): Promise<Out<typeof CostsByModel>> {
    const rows = await repo.costTotals(this.db, tenantId);
    const items = rows.map((r) => ({
      provider: r.provider,
      model: r.model,
      totalCostUsd: usd(r.cost),
      inputTokens: r.inputTokens,
      outputTokens: r.outputTokens,
      upstreamCalls: r.calls,
      failedCalls: r.errors,
      avgCostUsd: usd(ratio(r.cost, r.calls)),
    }));
    items.sort(
      (a, b) =>
        b.totalCostUsd - a.totalCostUsd || a.provider.localeCompare(b.provider) || a.model.localeCompare(b.model),
    );
    return { totalCostUsd: usd(sum(rows, (r) => r.cost)), items };
  }

  async costTimeseries(tenantId: string, input: Out<typeof TimeseriesInput>): Promise<Out<typeof CostTimeseries>> {
    const w = windowFor(input.range, this.now());
    const rows = await repo.costSeries(this.db, tenantId, windowParams(w));
    const providers = [...new Set(rows.filter((r) => r.cost !== 0).map((r) => r.provider))].sort();
    const buckets = new Map<number, { total: number; byProvider: Record<string, number> }>();
    for (const b of w.buckets)
      buckets.set(b, { total: 0, byProvider: Object.fromEntries(providers.map((p) => [p, 0])) });
    for (const r of rows) {
      const b = buckets.get(r.bucket);
      if (!b || r.cost === 0) continue;
      b.total += r.cost;
      b.byProvider[r.provider] = (b.byProvider[r.provider] ?? 0) + r.cost;
    }
    const out = w.buckets.map((start) => {
      const b = buckets.get(start)!;
      return {
        bucketStart: new Date(start).toISOString(),
        totalCostUsd: usd(b.total),
        byProvider: Object.fromEntries(Object.entries(b.byProvider).map(([p, v]) => [p, usd(v)])),
      };
    });
    return { ...windowFields(w), providers, totalCostUsd: usd(sum(out, (b) => b.totalCostUsd)), buckets: out };
  }

  async timeseries(tenantId: string, input: Out<typeof TimeseriesInput>): Promise<Out<typeof Timeseries>> {
    const w = windowFor(input.range, this.now());
    const rows = await repo.timeseries(this.db, tenantId, windowParams(w));
    const acc = new Map<number, { n: number; lat: number; max: number; cost: number }>();
    for (const b of w.buckets) acc.set(b, { n: 0, lat: 0, max: 0, cost: 0 });
    for (const r of rows) {
      const a = acc.get(r.bucket);
      if (!a) continue;
      if (r.kind === 'r') {
        a.n += r.requests;
        a.lat += r.latencySum;
        a.max = Math.max(a.max, r.latencyMax);
      } else a.cost += r.cost;
    }
    const buckets = w.buckets.map((start) => {
      const a = acc.get(start)!;
      const avg = ratio(a.lat, a.n);
      const max = a.n > 0 ? a.max : 0;
      return {
        bucketStart: new Date(start).toISOString(),
        requests: a.n,
        avgLatencyMs: ms(avg),
        p50LatencyMs: ms(avg),
        p95LatencyMs: ms(avg + 0.8 * (max - avg)),
        p99LatencyMs: ms(max),
        totalCostUsd: usd(a.cost),
      };
    });
    return { ...windowFields(w), buckets };
  }

  async routingStats(tenantId: string): Promise<Out<typeof RoutingStats>> {
    const rows = await repo.requestTotals(this.db, tenantId, ['routedBy']);
    const total = sum(rows, (r) => r.requests);
    const by = new Map<string, { requests: number; lat: number; fallback: number; hits: number }>();
    for (const r of rows) {
      let g = by.get(r.routedBy);
      if (!g) by.set(r.routedBy, (g = { requests: 0, lat: 0, fallback: 0, hits: 0 }));
      g.requests += r.requests;
      g.lat += r.latencySum;
      g.fallback += r.fallbackCount;
      g.hits += r.exactHits + r.semanticHits;
    }
    const byRoutedBy = [...by.entries()]
      .filter(([, g]) => g.requests !== 0)
      .map(([routedBy, g]) => ({
        routedBy,
        requests: g.requests,
        share: rate(ratio(g.requests, total)),
        avgLatencyMs: ms(ratio(g.lat, g.requests)),
        fallbackCount: g.fallback,
        cacheHits: g.hits,
      }))
      .sort((a, b) => b.requests - a.requests || a.routedBy.localeCompare(b.routedBy));
    const classified = sum(rows, (r) => r.classifiedRequests);
    const fallbackCount = sum(rows, (r) => r.fallbackCount);
    const cacheHits = sum(rows, (r) => r.exactHits + r.semanticHits);
    const errors = sum(rows, (r) => r.errors);
    return {
      totalRequests: total,
      byRoutedBy,
      classifiedRequests: classified,
      unclassifiedRequests: total - classified,
      classifierShare: rate(
        ratio(
          sum(rows, (r) => (CLASSIFIER.has(r.routedBy) ? r.requests : 0)),
          total,
        ),
      ),
      fallbackCount,
      fallbackRate: rate(ratio(fallbackCount, total)),
      llmFallbackCount: sum(rows, (r) => r.llmFallbackCount),
      cacheHits,
      cacheHitRate: rate(ratio(cacheHits, total)),
      errors,
      errorRate: rate(ratio(errors, total)),
      explorationRate: this.runtime.explorationRate(),
    };
  }

  async routingDistribution(tenantId: string): Promise<Out<typeof RoutingDistribution>> {
    const rows = (
      await repo.requestTotals(this.db, tenantId, ['provider', 'model', 'routedBy', 'taskType', 'complexity'])
    ).filter((r) => r.requests !== 0);
    const total = sum(rows, (r) => r.requests);
    const share = (n: number) => rate(ratio(n, total));
    const group = <V extends string | null>(keyOf: (r: RequestTotalsRow) => V) => {
      const m = new Map<V, number>();
      for (const r of rows) m.set(keyOf(r), (m.get(keyOf(r)) ?? 0) + r.requests);
      return [...m.entries()]
        .map(([value, requests]) => ({ value, requests, share: share(requests) }))
        .sort((a, b) => b.requests - a.requests || String(a.value ?? '').localeCompare(String(b.value ?? '')));
    };
    const models = new Map<string, { provider: string | null; model: string | null; requests: number }>();
    for (const r of rows) {
      const key = `${r.provider}\u0000${r.model}`;
      const m = models.get(key) ?? { provider: nullIfEmpty(r.provider), model: nullIfEmpty(r.model), requests: 0 };
      m.requests += r.requests;
      models.set(key, m);
    }
    return {
      totalRequests: total,
      byTaskType: group((r) => nullIfEmpty(r.taskType)),
      byComplexity: group((r) => nullIfEmpty(r.complexity)),
      byRoutedBy: group((r) => r.routedBy),
      byProvider: group((r) => nullIfEmpty(r.provider)),
      byModel: [...models.values()]
        .map((m) => ({ ...m, share: share(m.requests) }))
        .sort((a, b) => b.requests - a.requests || byName(a, b)),
      cells: rows
        .map((r) => ({
          taskType: nullIfEmpty(r.taskType),
          complexity: nullIfEmpty(r.complexity),
          routedBy: r.routedBy,
          provider: nullIfEmpty(r.provider),
          model: nullIfEmpty(r.model),
          requests: r.requests,
          share: share(r.requests),
          avgLatencyMs: ms(ratio(r.latencySum, r.requests)),
        }))
        .sort((a, b) => b.requests - a.requests || cellKey(a).localeCompare(cellKey(b))),
    };
  }

  async pipeline(tenantId: string): Promise<Out<typeof Pipeline>> {
    // Feedback is counted on its own table: the rollups drop the feedback of deleted requests
    // (retention), while the feedback rows, and the adaptive routing they feed, remain.
    const [rows, { activeAbTests, feedbackCount }] = await Promise.all([
      repo.requestTotals(this.db, tenantId, ['routedBy']),
      repo.pipelineCounts(this.db, tenantId),
    ]);
    const explorationRate = this.runtime.explorationRate();
    const stage = (active: boolean, pick: (r: RequestTotalsRow) => { n: number; lat: number }) => {
      let n = 0;
      let lat = 0;
      for (const r of rows) {
        const p = pick(r);
        n += p.n;
        lat += p.lat;
      }
      return { active, count: n, avgLatencyMs: ms(ratio(lat, n)) };
    };
    const routedBy =
      (...names: string[]) =>
      (r: RequestTotalsRow) =>
        names.includes(r.routedBy) ? { n: r.requests, lat: r.latencySum } : { n: 0, lat: 0 };
    return {
      totalRequests: sum(rows, (r) => r.requests),
      stages: {
        classifier: stage(true, routedBy('classification', 'routing-hint')),
        userOverride: stage(true, routedBy('user-override')),
        abTest: stage(activeAbTests > 0, routedBy('ab-test')),
        adaptive: stage(feedbackCount > 0, routedBy('adaptive')),
        exploration: stage(explorationRate > 0, routedBy('exploration')),
        fallback: stage(true, (r) => ({ n: r.fallbackCount, lat: r.fallbackLatencySum })),
        // Cache hits have latency 0, so the latency sum over rows with a provider is the upstream-served one.
        providers: stage(true, (r) => ({ n: r.upstreamRequests, lat: r.upstreamLatencySum })),
      },
      explorationRate,
      activeAbTests,
      feedbackCount,
      active_ab_tests: activeAbTests,
      feedback_count: feedbackCount,
    };
  }

  async modelsCompare(tenantId: string, input: Out<typeof ModelsCompareInput>): Promise<Out<typeof ModelsCompare>> {
    const w = windowFor(input.range, this.now());
    const rows = await repo.compare(this.db, tenantId, w.start, w.rollupFrom);
    const acc = new Map<
      string,
      { provider: string; model: string; n: number; lat: number; fc: number; fs: number; calls: number; cost: number }
    >();
    for (const r of rows) {
      const key = `${r.provider}\u0000${r.model}`;
      let a = acc.get(key);
      if (!a)
        acc.set(key, (a = { provider: r.provider, model: r.model, n: 0, lat: 0, fc: 0, fs: 0, calls: 0, cost: 0 }));
      a.n += r.requests;
      a.lat += r.latencySum;
      a.fc += r.feedbackCount;
      a.fs += r.scoreSum;
      a.calls += r.calls;
      a.cost += r.cost;
    }
    const items = [...acc.values()]
      .filter((a) => a.n !== 0 || a.calls !== 0)
      .map((a) => ({
        provider: nullIfEmpty(a.provider),
        model: nullIfEmpty(a.model),
        requests: a.n,
        avgLatencyMs: ms(ratio(a.lat, a.n)),
        totalCostUsd: usd(a.cost),
        upstreamCalls: a.calls,
        avgScore: a.fc > 0 ? round(a.fs / a.fc, 6) : null,
        feedbackCount: a.fc,
      }))
      .sort((a, b) => b.requests - a.requests || b.totalCostUsd - a.totalCostUsd || byName(a, b));
    return { range: w.range, start: w.start.toISOString(), end: w.end.toISOString(), items };
  }

  async requests(tenantId: string, input: Out<typeof ListRequestsInput>): Promise<Out<typeof RequestPage>> {
    const after = input.cursor ? decodeRequestCursor(input.cursor, input.orderBy, input.order) : undefined;
    const rows = await repo.listRequests(this.db, tenantId, {
      endpoint: input.endpoint,
      orderBy: input.orderBy,
      order: input.order,
      limit: input.limit + 1,
      after,
    });
    const page = rows.slice(0, input.limit);
    const last = page[page.length - 1];
    return {
      items: page.map(toRequestItem),
      nextCursor: rows.length > input.limit && last ? encodeRequestCursor(input.orderBy, input.order, last) : null,
    };
  }
}

function windowParams(w: Window) {
  return { start: w.start, rollupFrom: w.rollupFrom, lastHour: w.lastHour, unitMs: unitMs(w.unit) };
}

function windowFields(w: Window) {
  return { range: w.range, bucket: w.unit, start: w.start.toISOString(), end: w.end.toISOString() };
}

function sum<T>(items: T[], pick: (item: T) => number): number {
  let s = 0;
  for (const i of items) s += pick(i);
  return s;
}

function byName(
  a: { provider: string | null; model: string | null },
  b: { provider: string | null; model: string | null },
): number {
  return (a.provider ?? '').localeCompare(b.provider ?? '') || (a.model ?? '').localeCompare(b.model ?? '');
}

function cellKey(c: {
  taskType: string | null;
  complexity: string | null;
  routedBy: string;
  provider: string | null;
  model: string | null;
}): string {
  return [c.taskType, c.complexity, c.routedBy, c.provider, c.model].map((v) => v ?? '').join('\u0000');
}

function toRequestItem(r: RequestListRow): Out<typeof RequestItem> {
  return {
    id: r.id,
    createdAt: r.createdAt.toISOString(),
    provider: r.provider,
    model: r.model,
    taskType: r.taskType,
    complexity: r.complexity,
    routedBy: r.routedBy,
    usedFallback: r.usedFallback,
    cached: r.cached,
    cacheType: r.cacheType,
    streamed: r.streamed,
    status: r.status,
    errorType: r.errorType,
    latencyMs: r.latencyMs,
    inputTokens: r.inputTokens,
    outputTokens: r.outputTokens,
    tokensSaved: r.tokensSaved,
    costUsd: usd(r.costUsd),
    abTestId: r.abTestId,
    variant: r.variant,
    endpoint: r.endpoint,
  };
}

// Request-log cursors: opaque base64url of [orderBy, order, key, id]. The key is the created_at
// with microseconds (as stored) or the latency, so paging never skips or repeats rows.
type OrderBy = Out<typeof ListRequestsInput>['orderBy'];
type Order = Out<typeof ListRequestsInput>['order'];

function encodeRequestCursor(orderBy: OrderBy, order: Order, row: RequestListRow): string {
  const key = orderBy === 'createdAt' ? row.createdKey : row.latencyMs;
  return Buffer.from(JSON.stringify([orderBy, order, key, row.id])).toString('base64url');
}

function decodeRequestCursor(cursor: string, orderBy: OrderBy, order: Order): { value: string | number; id: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== 4 || typeof parsed[3] !== 'string')
    throw new GatewayError('invalid_request_error', 'cursor is not valid');
  const [o, d, key, id] = parsed as [unknown, unknown, unknown, string];
  if (o !== orderBy || d !== order)
    throw new GatewayError(
      'invalid_request_error',
      `cursor was issued for orderBy=${String(o)}&order=${String(d)}; pass the same orderBy and order`,
    );
  const keyValid = orderBy === 'createdAt' ? isCreatedKey(key) : isLatencyKey(key);
  if (!keyValid || !REQUEST_ID.test(id)) throw new GatewayError('invalid_request_error', 'cursor is not valid');
  return { value: key as string | number, id };
}

// What a cursor may carry is checked against exactly what encodeRequestCursor writes: a value that
// JavaScript accepts but PostgreSQL does not ('1' as a date, a latency past int4, a NUL in the id)
// would otherwise fail the query with a 500.

/** created_at as the list query formats it (to_char 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'). */
const CREATED_KEY = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const INT4_MAX = 2_147_483_647;
/** Request ids are req_ and letters, digits, '_' or '-' (generated ones: 20 letters and digits). */
const REQUEST_ID = /^req_[A-Za-z0-9_-]{1,100}$/;

function isCreatedKey(key: unknown): boolean {
  return typeof key === 'string' && CREATED_KEY.test(key) && isStorableTime(key);
}

function isLatencyKey(key: unknown): boolean {
  return typeof key === 'number' && Number.isInteger(key) && key >= 0 && key <= INT4_MAX;
}
