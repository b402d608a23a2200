import type { Registry } from 'prom-client';
import type { CostLogRow, RequestLogRow } from '../gateway/log-writer.js';
import type { UpstreamErrorSummary } from '../gateway/types.js';
import { CounterTally, HistogramTally } from './tally.js';

// Prometheus metrics of the data plane, derived from the rows the log writer is given: one request
// row per chat call, one cost row per upstream call (chat, embeddings, the classifier's and the
// judge's calls, eval runs). The writer hands rows over as it queues them; they are summed per
// label set (tally.ts) and reach prom-client when scraped, so counting a row allocates nothing. No
// tenant or token id is ever a label.

/** Latency buckets (seconds) for whole LLM calls: cache hits and fast models up to long generations. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

export class RequestMetrics {
  private readonly requests: CounterTally;
  private readonly duration: HistogramTally;
  private readonly fallbacks: CounterTally;
  private readonly tokensSaved: CounterTally;
  private readonly upstreamCalls: CounterTally;
  private readonly tokens: CounterTally;
  private readonly cost: CounterTally;
  private readonly upstreamFailures: CounterTally;

  constructor(registry: Registry) {
    const registers = [registry];
    const counter = (name: string, help: string, labelNames: string[]) =>
      new CounterTally({ name, help, labelNames, registers });
    this.requests = counter(
      'gateway_requests_total',
      'Chat completion and embeddings calls that got past authentication and validation, by the provider and model that served them (or were tried last), status (ok, error, client_closed), cache (miss, exact, semantic) and endpoint (chat, embeddings).',
      ['provider', 'model', 'status', 'cache', 'endpoint'],
    );
    this.duration = new HistogramTally({
      name: 'gateway_request_duration_seconds',
      help: 'Whole chat completion and embeddings calls answered by a provider (cache hits excluded), to the last byte or chunk, in seconds, by provider, streamed and endpoint (chat, embeddings).',
      labelNames: ['provider', 'streamed', 'endpoint'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.fallbacks = counter(
      'gateway_fallback_requests_total',
      'Chat and embeddings calls served by a fallback target after the first one failed, by the provider that served.',
      ['provider'],
    );
    this.tokensSaved = counter(
      'gateway_cache_tokens_saved_total',
      'Tokens the cache saved (not sent upstream), input or output.',
      ['direction'],
    );
    this.upstreamCalls = counter(
      'gateway_upstream_calls_total',
      'Calls to providers that got an answer (failed ones included), by provider, model and status (ok, error).',
      ['provider', 'model', 'status'],
    );
    this.tokens = counter(
      'gateway_upstream_tokens_total',
      'Tokens billed by providers, by provider, model and direction (input, output).',
      ['provider', 'model', 'direction'],
    );
    this.cost = counter(
      'gateway_upstream_cost_usd_total',
      'Cost of provider calls in US dollars, from the pricing table.',
      ['provider', 'model'],
    );
    this.upstreamFailures = counter(
      'gateway_upstream_failures_total',
      'Failed provider attempts, answered or not, by provider, model, kind (http, timeout, connection, stream, parse, request) and HTTP status (0: none).',
      ['provider', 'model', 'kind', 'status'],
    );
  }

  /** Counts a request row (null for cost rows alone) and its cost rows. */
  observe(request: RequestLogRow | null, costs: readonly CostLogRow[]): void {
    if (request) this.countRequest(request);
    for (const c of costs) this.countCost(c);
  }

  /** Counts a failed upstream attempt (a call may make several). */
  countUpstreamFailure(f: UpstreamErrorSummary): void {
    this.upstreamFailures.add(1, f.provider, f.model, f.kind, String(f.status));
  }

  /** Hands what was counted to prom-client (the scrape handler calls it before rendering). */
  apply(): void {
    for (const tally of [
      this.requests,
      this.duration,
      this.fallbacks,
      this.tokensSaved,
      this.upstreamCalls,
      this.tokens,
      this.cost,
      this.upstreamFailures,
    ])
      tally.apply();
  }

  private countRequest(r: RequestLogRow): void {
    const provider = r.provider ?? '';
    this.requests.add(1, provider, r.model ?? '', r.status, r.cached ? (r.cacheType ?? 'exact') : 'miss', r.endpoint);
    if (r.cached) {
      if (r.tokensSavedInput) this.tokensSaved.add(r.tokensSavedInput, 'input');
      if (r.tokensSavedOutput) this.tokensSaved.add(r.tokensSavedOutput, 'output');
      return;
    }
    if (r.status === 'ok')
      this.duration.observe(r.latencyMs / 1000, provider, r.streamed ? 'true' : 'false', r.endpoint);
    if (r.usedFallback) this.fallbacks.add(1, provider);
  }

  private countCost(c: CostLogRow): void {
    this.upstreamCalls.add(1, c.provider, c.model, c.status ?? 'ok');
    if (c.inputTokens) this.tokens.add(c.inputTokens, c.provider, c.model, 'input');
    if (c.outputTokens) this.tokens.add(c.outputTokens, c.provider, c.model, 'output');
    if (c.cost > 0) this.cost.add(c.cost, c.provider, c.model);
  }
}
