import { Counter, Histogram, type Registry } from 'prom-client';
import type { CostLogRow, RequestLogRow } from '../gateway/log-writer.js';

// Prometheus metrics of the data plane, derived from the rows the log writer is given: one request
// row per chat call, one cost row per upstream call (chat, embeddings, the classifier's and the
// judge's calls, eval runs). The writer hands rows over as it queues them; they are counted on a
// later turn of the event loop, in a batch, so the request path only appends to a list. No tenant
// or token id is ever a label.

/** Latency buckets (seconds) for whole LLM calls: cache hits and fast models up to long generations. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

export class RequestMetrics {
  private readonly requests: Counter<'provider' | 'model' | 'status' | 'cache'>;
  private readonly duration: Histogram<'provider' | 'streamed'>;
  private readonly fallbacks: Counter<'provider'>;
  private readonly tokensSaved: Counter<'direction'>;
  private readonly upstreamCalls: Counter<'provider' | 'model' | 'status'>;
  private readonly tokens: Counter<'provider' | 'model' | 'direction'>;
  private readonly cost: Counter<'provider' | 'model'>;
  private pendingRequests: RequestLogRow[] = [];
  private pendingCosts: CostLogRow[] = [];
  private scheduled: NodeJS.Immediate | undefined;

  constructor(registry: Registry) {
    const registers = [registry];
    this.requests = new Counter({
      name: 'gateway_requests_total',
      help: 'Chat completion and embeddings calls that got past authentication and validation, by the provider and model that served them (or were tried last), status (ok, error, client_closed) and cache (miss, exact, semantic).',
      labelNames: ['provider', 'model', 'status', 'cache'],
      registers,
    });
    this.duration = new Histogram({
      name: 'gateway_request_duration_seconds',
      help: 'Whole chat completion and embeddings calls answered by a provider (cache hits excluded), to the last byte or chunk, in seconds.',
      labelNames: ['provider', 'streamed'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.fallbacks = new Counter({ name: 'gateway_fallback_requests_total', help: 'Chat and embeddings calls served by a fallback target after the first one failed, by the provider that served.', labelNames: ['provider'], registers });
    this.tokensSaved = new Counter({ name: 'gateway_cache_tokens_saved_total', help: 'Tokens the cache saved (not sent upstream), input or output.', labelNames: ['direction'], registers });
    this.upstreamCalls = new Counter({
      name: 'gateway_upstream_calls_total',
      help: 'Calls to providers that got an answer (failed ones included), by provider, model and status (ok, error).',
      labelNames: ['provider', 'model', 'status'],
      registers,
    });
    this.tokens = new Counter({ name: 'gateway_upstream_tokens_total', help: 'Tokens billed by providers, by provider, model and direction (input, output).', labelNames: ['provider', 'model', 'direction'], registers });
    this.cost = new Counter({ name: 'gateway_upstream_cost_usd_total', help: 'Cost of provider calls in US dollars, from the pricing table.', labelNames: ['provider', 'model'], registers });
  }

  /** Takes a request row (null for cost rows alone) and its cost rows; counted on a later turn. */
  observe(request: RequestLogRow | null, costs: readonly CostLogRow[]): void {
    if (request) this.pendingRequests.push(request);
    for (const c of costs) this.pendingCosts.push(c);
    this.scheduled ??= setImmediate(this.countPending);
  }

  /** Counts what is queued now (the scrape handler calls it, so a scrape sees every row queued before it). */
  readonly countPending = (): void => {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    const requests = this.pendingRequests;
    const costs = this.pendingCosts;
    this.pendingRequests = [];
    this.pendingCosts = [];
    // Counters are summed per label set first and incremented once per set: prom-client hashes the
    // labels on every increment, and a batch mostly repeats a few providers and models.
    const sums = new Sums();
    for (const r of requests) this.countRequest(r, sums);
    for (const c of costs) this.countCost(c, sums);
    sums.apply((metric, values, sum) => metric.labels(...values).inc(sum));
  };

  private countRequest(r: RequestLogRow, sums: Sums): void {
    const provider = r.provider ?? '';
    const model = r.model ?? '';
    sums.add(this.requests, 1, provider, model, r.status, r.cached ? (r.cacheType ?? 'exact') : 'miss');
    if (r.cached) {
      if (r.tokensSavedInput) sums.add(this.tokensSaved, r.tokensSavedInput, 'input');
      if (r.tokensSavedOutput) sums.add(this.tokensSaved, r.tokensSavedOutput, 'output');
      return;
    }
    if (r.status === 'ok') this.duration.labels(provider, r.streamed ? 'true' : 'false').observe(r.latencyMs / 1000);
    if (r.usedFallback) sums.add(this.fallbacks, 1, provider);
  }

  private countCost(c: CostLogRow, sums: Sums): void {
    sums.add(this.upstreamCalls, 1, c.provider, c.model, c.status ?? 'ok');
    if (c.inputTokens) sums.add(this.tokens, c.inputTokens, c.provider, c.model, 'input');
    if (c.outputTokens) sums.add(this.tokens, c.outputTokens, c.provider, c.model, 'output');
    if (c.cost > 0) sums.add(this.cost, c.cost, c.provider, c.model);
  }
}

/** Increments of one batch, summed per counter and label values. */
class Sums {
  private readonly byMetric = new Map<Counter<string>, Map<string, { values: string[]; sum: number }>>();

  add(metric: Counter<string>, by: number, ...values: string[]): void {
    let sets = this.byMetric.get(metric);
    if (!sets) {
      sets = new Map();
      this.byMetric.set(metric, sets);
    }
    const key = values.join('\u0000');
    const entry = sets.get(key);
    if (entry) entry.sum += by;
    else sets.set(key, { values, sum: by });
  }

  apply(inc: (metric: Counter<string>, values: string[], sum: number) => void): void {
    for (const [metric, sets] of this.byMetric) for (const { values, sum } of sets.values()) inc(metric, values, sum);
  }
}
