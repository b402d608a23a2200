import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { CircuitBreakers } from '../gateway/breaker.js';
import type { LogWriter } from '../gateway/log-writer.js';
import { RequestMetrics } from './request-metrics.js';

// The process's Prometheus registry (GET /metrics): Node's own metrics (CPU, memory, event-loop
// delay, GC), the data plane's counters (request-metrics.ts), and the state of the log writer, the
// providers' circuit breakers and the shared rate-limit store, read when scraped. One registry per
// set of services, so that several in one process (tests) do not mix.

export interface MetricsSources {
  logWriter: LogWriter;
  breakers: CircuitBreakers;
  /** The registered providers' names: every one gets a breaker series, closed unless it failed. */
  providers: () => string[];
  /** Whether the shared rate-limit store answered last time; absent when limits are per process. */
  rateLimitStoreReachable?: () => boolean;
}

const BREAKER_STATES = ['closed', 'open', 'half-open'] as const;

export class Metrics {
  readonly registry = new Registry();
  readonly requests = new RequestMetrics(this.registry);
  private readonly errorResponses: Counter<'type'>;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    this.errorResponses = new Counter({
      name: 'gateway_error_responses_total',
      help: 'Error answers of the chat and embeddings endpoints, by error type (auth_error, rate_limit_error, invalid_request_error, provider_error, ...).',
      labelNames: ['type'],
      registers: [this.registry],
    });
  }

  /** Counts one error answer of the data plane. */
  readonly countError = (type: string): void => {
    this.errorResponses.labels(type).inc();
  };

  /** Registers the metrics read from live state at each scrape. */
  watch(sources: MetricsSources): void {
    const registers = [this.registry];
    const { logWriter, breakers, providers } = sources;
    new Gauge({
      name: 'gateway_log_queue_rows',
      help: 'Log rows waiting to be written (they pile up while PostgreSQL is unreachable), by table.',
      labelNames: ['table'],
      registers,
      collect() {
        this.set({ table: 'requests' }, logWriter.stats.queuedRequests);
        this.set({ table: 'cost_logs' }, logWriter.stats.queuedCosts);
      },
    });
    // Totals the log writer keeps itself: set from its figures when scraped.
    const total = (
      name: string,
      help: string,
      read: () => Array<[Record<string, string>, number]>,
      labelNames: string[] = [],
    ) =>
      new Counter({
        name,
        help,
        labelNames,
        registers,
        collect() {
          this.reset();
          for (const [labels, value] of read()) this.inc(labels, value);
        },
      });
    total(
      'gateway_log_rows_written_total',
      'Log rows committed to PostgreSQL, by table.',
      () => [
        [{ table: 'requests' }, logWriter.stats.writtenRequests],
        [{ table: 'cost_logs' }, logWriter.stats.writtenCosts],
      ],
      ['table'],
    );
    total(
      'gateway_log_rows_dropped_total',
      'Log rows lost: over the buffer bound while PostgreSQL was unreachable, or refused by it for their data.',
      () => [[{}, logWriter.stats.dropped]],
    );
    total('gateway_log_flush_failures_total', 'Log batches that failed to commit (they are retried).', () => [
      [{}, logWriter.stats.failedFlushes],
    ]);
    total(
      'gateway_provider_breaker_openings_total',
      "Times each provider's circuit breaker opened (a failed probe reopening it included).",
      () => [...breakers.openings].map(([provider, n]) => [{ provider }, n]),
      ['provider'],
    );
    new Gauge({
      name: 'gateway_provider_breaker_state',
      help: "Each provider's circuit breaker: 1 for its current state (closed, open, half-open), 0 for the others.",
      labelNames: ['provider', 'state'],
      registers,
      collect() {
        this.reset();
        // A circuit exists only for a provider that failed since its last success: the others are closed.
        const circuits = breakers.snapshot();
        const names = new Set([...providers(), ...Object.keys(circuits)]);
        for (const provider of names) {
          const current = circuits[provider]?.state ?? 'closed';
          for (const state of BREAKER_STATES) this.set({ provider, state }, current === state ? 1 : 0);
        }
      },
    });
    const storeReachable = sources.rateLimitStoreReachable;
    if (storeReachable) {
      new Gauge({
        name: 'gateway_rate_limit_store_up',
        help: "1 when this node's last exchange with the shared rate-limit Redis succeeded, else 0 (each node then limits on its own).",
        registers,
        collect() {
          this.set(storeReachable() ? 1 : 0);
        },
      });
    }
  }

  /** The exposition text, with every row queued before the scrape counted. */
  async render(): Promise<{ contentType: string; body: string }> {
    this.requests.apply();
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
