import { getTableName } from 'drizzle-orm';
import type pg from 'pg';
import { costLogs, requests, type CostStatus, type RequestEndpoint, type RequestStatus } from '../db/schema/index.js';
import { corkedQuery } from '../db/corked-query.js';
import { settleWithin } from '../lib/settle-within.js';
import type { Logger } from '../lib/logger.js';
import { EncodeAhead, RowCodec, type Column } from './row-json.js';

// Group commit for the analytics rows. The request path only pushes into memory; a timer (or a
// full batch) writes the rows of both tables in one statement. On database errors the
// rows stay queued (bounded; the oldest are dropped past the bound, and counted) and the flush is
// retried with backoff, so a database outage of minutes loses nothing. Rows the database refuses
// for their content are found, dropped and counted instead, so they cannot block the rest.
// drain() empties the queue on shutdown.
//
// A retried batch may already be stored (the commit went through, its acknowledgement was lost).
// Every row has a unique key (request rows their id, cost rows tenant, request id, created_at and
// seq), and the batches sent after a failed flush insert with ON CONFLICT DO NOTHING: the retry adds
// nothing twice, and the triggers that keep the rollups and token_spend see only the rows actually
// inserted. Other batches insert plainly: ON CONFLICT costs PostgreSQL about 7 us more per row
// (a speculative insertion), and nothing else sends a row twice. onCommitted (the live tap) runs
// once per row all the same, for the attempt that succeeded.

export interface RequestLogRow {
  id: string;
  tenantId: string;
  createdAt: Date;
  tokenId: string | null;
  latencyMs: number;
  taskType: string | null;
  complexity: string | null;
  routedBy: string;
  provider: string | null;
  model: string | null;
  usedFallback: boolean;
  usedLlmFallback: boolean;
  cached: boolean;
  cacheType: string | null;
  tokensSavedInput: number;
  tokensSavedOutput: number;
  inputTokens: number;
  outputTokens: number;
  streamed: boolean;
  status: RequestStatus;
  errorType: string | null;
  abTestId: string | null;
  variant: string | null;
  promptVersionId: string | null;
  /** The endpoint called: the analytics count chat rows only. */
  endpoint: RequestEndpoint;
}

export interface CostLogRow {
  tenantId: string;
  requestId: string;
  /** The API token the call was made with (counted in token_spend); null for the gateway's own calls. */
  tokenId: string | null;
  provider: string;
  model: string;
  /** Every input token; the three below are parts of it. */
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  cacheWrite5mTokens: number;
  cacheWrite1hTokens: number;
  serviceTier: string | null;
  cost: number;
  status: CostStatus;
  createdAt: Date;
  /** Position among its call's cost rows (0, 1, 2... in call order); set by the writer. Part of the row's key. */
  seq?: number;
  /** The routing cell of the request the call served; set when the call is logged. */
  taskType?: string | null;
  complexity?: string | null;
}

/** A committed request row with what the live tap shows beside it (never persisted). */
export interface CommittedRequest {
  row: RequestLogRow;
  /** Sum of the request's cost rows, USD. */
  costUsd: number;
  /** A short preview of the prompt (last user message), or null. */
  preview: string | null;
}

export interface LogWriterStats {
  queuedRequests: number;
  queuedCosts: number;
  writtenRequests: number;
  writtenCosts: number;
  dropped: number;
  /** Rows PostgreSQL refused for their data (also counted in dropped). */
  rejectedRows: number;
  failedFlushes: number;
}

export interface LogWriterOptions {
  pool: pg.Pool;
  logger: Logger;
  flushIntervalMs: number;
  /** Flush at once when this many rows are queued. */
  batchSize?: number;
  /** Upper bound of rows held in memory while the database is unreachable. */
  maxBuffered: number;
  /** Called with the request rows of every committed batch (the live tap publishes from here). */
  onCommitted?: (rows: CommittedRequest[]) => void;
  /** Called with every row as it is queued (a request row, or null for cost rows alone): metrics. Must be cheap. */
  onQueued?: (request: RequestLogRow | null, costs: readonly CostLogRow[]) => void;
  /** A commit unanswered this long counts as failing (failingSince): a database that stopped answering. Default 5 s. */
  commitStuckMs?: number;
  /**
   * A commit unanswered this long fails, and its rows are sent again on another connection (as rows
   * that may be stored already). Without it, a connection a partition left open without answering
   * held every later row until TCP gave up on it (about 15 minutes). Default 30 s.
   */
  commitTimeoutMs?: number;
}

/** The bulk insert's columns, in its JSON rows' order; test/unit/log-writer-columns.test.ts pins them to the tables. */
export const REQUEST_COLUMNS: Array<Column<RequestLogRow>> = [
  ['id', 'id', 'text'],
  ['tenantId', 'tenant_id', 'text'],
  ['createdAt', 'created_at', 'timestamptz'],
  ['tokenId', 'token_id', 'text'],
  ['latencyMs', 'latency_ms', 'int4'],
  ['taskType', 'task_type', 'text'],
  ['complexity', 'complexity', 'text'],
  ['routedBy', 'routed_by', 'text'],
  ['provider', 'provider', 'text'],
  ['model', 'model', 'text'],
  ['usedFallback', 'used_fallback', 'bool'],
  ['usedLlmFallback', 'used_llm_fallback', 'bool'],
  ['cached', 'cached', 'bool'],
  ['cacheType', 'cache_type', 'text'],
  ['tokensSavedInput', 'tokens_saved_input', 'int4'],
  ['tokensSavedOutput', 'tokens_saved_output', 'int4'],
  ['inputTokens', 'input_tokens', 'int4'],
  ['outputTokens', 'output_tokens', 'int4'],
  ['streamed', 'streamed', 'bool'],
  ['status', 'status', 'text'],
  ['errorType', 'error_type', 'text'],
  ['abTestId', 'ab_test_id', 'text'],
  ['variant', 'variant', 'text'],
  ['promptVersionId', 'prompt_version_id', 'text'],
  ['endpoint', 'endpoint', 'text'],
];

export const COST_COLUMNS: Array<Column<CostLogRow>> = [
  ['tenantId', 'tenant_id', 'text'],
  ['requestId', 'request_id', 'text'],
  ['tokenId', 'token_id', 'text'],
  ['provider', 'provider', 'text'],
  ['model', 'model', 'text'],
  ['inputTokens', 'input_tokens', 'int4'],
  ['outputTokens', 'output_tokens', 'int4'],
  ['cost', 'cost', 'numeric'],
  ['status', 'status', 'text'],
  ['createdAt', 'created_at', 'timestamptz'],
  ['seq', 'seq', 'int2'],
  ['taskType', 'task_type', 'text'],
  ['complexity', 'complexity', 'text'],
  ['cachedInputTokens', 'cached_input_tokens', 'int4'],
  ['cacheWrite5mTokens', 'cache_write_5m_tokens', 'int4'],
  ['cacheWrite1hTokens', 'cache_write_1h_tokens', 'int4'],
  ['serviceTier', 'service_tier', 'text'],
];

const REQUESTS = new RowCodec<RequestLogRow>(getTableName(requests), REQUEST_COLUMNS);
const COSTS = new RowCodec<CostLogRow>(getTableName(costLogs), COST_COLUMNS);

/** A whole batch in one statement (one round trip, atomic without begin/commit), prepared once per connection. */
const INSERT_BATCH = {
  name: 'gateway_log_batch',
  text: `with requests_added as (${REQUESTS.insertFrom('$1')}), costs_added as (${COSTS.insertFrom('$2')}) select 1`,
};

/** INSERT_BATCH for rows that may be stored already: those skip (cost rows: the unique index cost_logs_call_idx). */
const INSERT_BATCH_AGAIN = {
  name: 'gateway_log_batch_again',
  text:
    `with requests_added as (${REQUESTS.insertFrom('$1', ' on conflict (id) do nothing')}), ` +
    `costs_added as (${COSTS.insertFrom('$2', ' on conflict (tenant_id, request_id, created_at, seq) do nothing')}) select 1`,
};

export class LogWriter {
  private requests: RequestLogRow[] = [];
  /** Live-tap extras by request id, kept only until the row is committed. */
  private extras = new Map<string, { costUsd: number; preview: string | null }>();
  private costs: CostLogRow[] = [];
  private readonly encodeQueue = new EncodeAhead();
  private timer: NodeJS.Timeout | undefined;
  /** When the armed timer fires (Date.now() clock). */
  private timerDue = 0;
  private flushing: Promise<void> | undefined;
  /** Rows of the batch being committed (counted in the drain's "rows lost" if it never settles), by table. */
  private inFlightRequests = 0;
  private inFlightCosts = 0;
  /** When the commit in flight started (Date.now()). */
  private flushStartedAt: number | undefined;
  private backoffMs = 0;
  private closed = false;
  /** drain() has returned: nothing queued from now on is written. */
  private drained = false;
  /** A flush failed, so rows queued again may be stored already: send them with INSERT_BATCH_AGAIN. */
  private maybeStored = false;
  /** Since when (Date.now()) flushes fail, none having succeeded since. */
  private failedSince: number | undefined;
  readonly stats: LogWriterStats = {
    queuedRequests: 0,
    queuedCosts: 0,
    writtenRequests: 0,
    writtenCosts: 0,
    dropped: 0,
    rejectedRows: 0,
    failedFlushes: 0,
  };

  constructor(private readonly opts: LogWriterOptions) {}

  /**
   * Since when (Date.now()) rows cannot be committed: flushes fail, none having succeeded since, or
   * the commit in flight has had no answer for commitStuckMs (a partition: the database neither
   * answers nor refuses, and no flush fails). Undefined while commits succeed.
   */
  get failingSince(): number | undefined {
    if (this.failedSince !== undefined) return this.failedSince;
    const started = this.flushStartedAt;
    return started !== undefined && Date.now() - started >= (this.opts.commitStuckMs ?? 5_000) ? started : undefined;
  }

  private get inFlightRows(): number {
    return this.inFlightRequests + this.inFlightCosts;
  }

  /** Queue one request row and the cost rows of its upstream calls. Never blocks, never throws. */
  write(request: RequestLogRow, costs: CostLogRow[], preview: string | null = null): void {
    if (this.drained) this.reportLateRows(1, costs.length);
    this.requests.push(request);
    const costUsd = this.queueCosts(costs);
    if (this.opts.onCommitted) this.extras.set(request.id, { costUsd, preview });
    this.opts.onQueued?.(request, costs);
    this.encodeAhead(request, costs);
    this.enforceBound();
    if (this.requests.length + this.costs.length >= (this.opts.batchSize ?? 1000)) this.flushSoon(0);
    else this.flushSoon(this.opts.flushIntervalMs);
  }

  /** The cost rows of one call that has no request row (the judge, evals). */
  writeCosts(costs: CostLogRow[]): void {
    if (this.drained) this.reportLateRows(0, costs.length);
    this.queueCosts(costs);
    this.opts.onQueued?.(null, costs);
    this.enforceBound();
    this.flushSoon(this.opts.flushIntervalMs);
  }

  /** Commit what is queued now (e.g. before looking a request row up); errors are left to the retry loop. */
  async flushNow(): Promise<void> {
    if (this.flushing) await this.flushing;
    await this.flush();
  }

  /**
   * Write everything queued; resolves when the queue is empty or `timeoutMs` has passed. Calls cut
   * at shutdown log their rows a few ticks after their connection closed, so the drain goes on
   * until nothing is queued and nothing more came for one turn of the event loop.
   */
  async drain(timeoutMs = 30_000): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const deadline = Date.now() + timeoutMs;
    do {
      while ((this.requests.length || this.costs.length || this.flushing) && Date.now() < deadline) {
        // A database that stopped answering holds a flush for as long as the socket lives: the
        // bound holds all the same.
        await settleWithin(this.flushing ?? this.flush(), deadline - Date.now());
        if (this.requests.length || this.costs.length)
          await sleep(Math.min(this.backoffMs || 50, Math.max(0, deadline - Date.now())));
      }
      await new Promise((r) => setImmediate(r));
    } while ((this.requests.length || this.costs.length) && Date.now() < deadline);
    this.drained = true;
    if (this.requests.length || this.costs.length || this.flushing) {
      // A batch still being committed may or may not be stored: counted as lost, and said so.
      this.opts.logger.error(
        {
          requests: this.requests.length,
          costs: this.costs.length,
          uncommittedBatchRows: this.flushing ? this.inFlightRows : 0,
        },
        'log writer could not drain before shutdown; rows lost',
      );
    }
  }

  /** Queues one call's cost rows, numbered in call order (their key's seq); returns their USD total. */
  private queueCosts(costs: CostLogRow[]): number {
    let usd = 0;
    for (let i = 0; i < costs.length; i++) {
      const c = costs[i]!;
      c.seq = i;
      this.costs.push(c);
      usd += c.cost;
    }
    return usd;
  }

  /** A row queued after drain() returned is never written: say so rather than lose it silently. */
  private reportLateRows(requests: number, costs: number): void {
    this.opts.logger.error({ requests, costs }, 'log rows queued after the log writer was drained; rows lost');
  }

  /**
   * Arms the flush timer, or brings an armed one forward; never pushes it later. A full batch asks
   * for a flush at once, which after a failure still waits out the backoff: re-armed on every such
   * write, the timer would move a backoff further out each time, and under steady traffic no flush
   * would run again until the traffic stopped.
   */
  private flushSoon(delayMs: number): void {
    if (this.flushing || this.closed) return;
    if (this.timer && delayMs > 0) return;
    const wait = Math.max(delayMs, this.backoffMs);
    const due = Date.now() + wait;
    if (this.timer) {
      if (due >= this.timerDue) return;
      clearTimeout(this.timer);
    }
    this.timerDue = due;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, wait);
  }

  private flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    if (!this.requests.length && !this.costs.length) return Promise.resolve();
    const requests = this.requests;
    const costs = this.costs;
    this.requests = [];
    this.costs = [];
    // Every row queued again after a failure is in this batch: the next one is plain again.
    const again = this.maybeStored;
    this.inFlightRequests = requests.length;
    this.inFlightCosts = costs.length;
    this.flushStartedAt = Date.now();
    this.updateQueued();
    this.flushing = this.commitBatch(requests, costs, again)
      .then(
        (written) => {
          this.backoffMs = 0;
          this.maybeStored = false;
          this.failedSince = undefined;
          this.recordCommitted(requests, written);
        },
        (err: unknown) => {
          // Put back what was not committed, in front of anything queued since, then retry later.
          // A split batch (see commitBatch) may have committed part of itself before the failure.
          const left = err instanceof UncommittedRows ? err : { requests, costs };
          if (err instanceof UncommittedRows) this.recordCommitted(requests, err.written, err.requests);
          this.requests = left.requests.concat(this.requests);
          this.costs = left.costs.concat(this.costs);
          this.enforceBound();
          this.stats.failedFlushes++;
          this.failedSince ??= this.flushStartedAt ?? Date.now();
          // The connection may have failed after the commit.
          this.maybeStored = true;
          this.backoffMs = Math.min(Math.max(this.backoffMs * 2, 100), 5_000);
          if (this.stats.failedFlushes === 1 || this.stats.failedFlushes % 20 === 0) {
            this.opts.logger.warn(
              { err: (err as Error).message, queued: this.requests.length + this.costs.length },
              'log writer flush failed; rows kept for retry',
            );
          }
        },
      )
      .finally(() => {
        this.flushing = undefined;
        this.inFlightRequests = 0;
        this.inFlightCosts = 0;
        this.flushStartedAt = undefined;
        this.updateQueued();
        if (!this.closed && (this.requests.length || this.costs.length)) this.flushSoon(this.opts.flushIntervalMs);
      });
    return this.flushing;
  }

  /**
   * Counts the rows of `batch` that were committed and tells the live tap. Rows neither committed
   * nor put back (`requeued`) were rejected and dropped: their live-tap extras go too.
   */
  private recordCommitted(batch: RequestLogRow[], written: RowBatch, requeued: RequestLogRow[] = []): void {
    this.stats.writtenRequests += written.requests.length;
    this.stats.writtenCosts += written.costs.length;
    if (written.requests !== batch) {
      const kept = new Set(written.requests.concat(requeued));
      for (const r of batch) if (!kept.has(r)) this.extras.delete(r.id);
    }
    if (written.requests.length && this.opts.onCommitted) {
      const committed = written.requests.map((row) => {
        const extra = this.extras.get(row.id);
        this.extras.delete(row.id);
        return { row, costUsd: extra?.costUsd ?? 0, preview: extra?.preview ?? null };
      });
      this.opts.onCommitted(committed);
    }
  }

  /**
   * Commits a batch. When PostgreSQL rejects it for its data rather than for the connection, the
   * batch is split in halves until the rejected rows (a request row with its cost rows) are found;
   * those are dropped and counted, the rest is committed. Retrying the batch whole would fail
   * forever and, as new rows join it, stop all logging.
   */
  private async commitBatch(requests: RequestLogRow[], costs: CostLogRow[], again: boolean): Promise<RowBatch> {
    try {
      await this.commit(requests, costs, again);
      return { requests, costs };
    } catch (err) {
      if (!isDataError(err)) throw err;
    }
    const written: RowBatch = { requests: [], costs: [] };
    const groups = groupByRequest(requests, costs);
    const isolate = async (part: RowGroup[], done: number): Promise<void> => {
      try {
        await this.commit(
          part.flatMap((g) => g.requests),
          part.flatMap((g) => g.costs),
          again,
        );
        for (const g of part) {
          written.requests.push(...g.requests);
          written.costs.push(...g.costs);
        }
      } catch (err) {
        if (!isDataError(err)) throw new UncommittedRows(groups.slice(done), written, err);
        if (part.length === 1) {
          const g = part[0]!;
          this.stats.dropped += g.requests.length + g.costs.length;
          this.stats.rejectedRows += g.requests.length + g.costs.length;
          this.opts.logger.error(
            { err: (err as Error).message, requestId: g.requestId },
            'log rows rejected by the database; dropped',
          );
          return;
        }
        const mid = part.length >> 1;
        await isolate(part.slice(0, mid), done);
        await isolate(part.slice(mid), done + mid);
      }
    };
    await isolate(groups, 0);
    return written;
  }

  /** `again`: the rows may be stored already (see the top of this file). */
  private async commit(requests: RequestLogRow[], costs: CostLogRow[], again: boolean): Promise<void> {
    const statement = again ? INSERT_BATCH_AGAIN : INSERT_BATCH;
    await corkedQuery(this.opts.pool, {
      name: statement.name,
      text: statement.text,
      values: [REQUESTS.param(requests), COSTS.param(costs)],
      query_timeout: this.opts.commitTimeoutMs ?? 30_000,
    });
  }

  /**
   * Has the rows' JSON built before their batch is flushed (see row-json.ts). Not while a backlog
   * builds up (the database is unreachable): the JSON would double the memory held per queued row.
   */
  private encodeAhead(request: RequestLogRow, costs: CostLogRow[]): void {
    if (this.requests.length + this.costs.length > ENCODE_AHEAD_MAX_QUEUED) return;
    this.encodeQueue.add(request, REQUESTS);
    for (const c of costs) this.encodeQueue.add(c, COSTS);
  }

  private enforceBound(): void {
    const over = this.requests.length + this.costs.length - this.opts.maxBuffered;
    if (over > 0) {
      // Keep the newest rows; drop from the oldest, costs first (requests carry the counts).
      const fromCosts = Math.min(over, this.costs.length);
      this.costs.splice(0, fromCosts);
      if (over > fromCosts) for (const r of this.requests.splice(0, over - fromCosts)) this.extras.delete(r.id);
      // Said once per outage's first drop and then every 10,000 rows, not on every write.
      if (
        Math.floor(this.stats.dropped / 10_000) !== Math.floor((this.stats.dropped + over) / 10_000) ||
        this.stats.dropped === 0
      ) {
        this.opts.logger.error(
          { dropped: this.stats.dropped + over, maxBuffered: this.opts.maxBuffered },
          'log writer queue full (GATEWAY_LOG_BUFFER_MAX): oldest rows dropped',
        );
      }
      this.stats.dropped += over;
    }
    this.updateQueued();
  }

  /** Rows not committed yet: queued, or in the commit in flight. */
  private updateQueued(): void {
    this.stats.queuedRequests = this.requests.length + this.inFlightRequests;
    this.stats.queuedCosts = this.costs.length + this.inFlightCosts;
  }
}

/** Queued rows above which rows are encoded only when their batch is flushed. */
const ENCODE_AHEAD_MAX_QUEUED = 2_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A request row and the cost rows written with it (or cost rows of an internal call alone). */
interface RowGroup {
  requestId: string;
  requests: RequestLogRow[];
  costs: CostLogRow[];
}

function groupByRequest(requests: RequestLogRow[], costs: CostLogRow[]): RowGroup[] {
  const groups = new Map<string, RowGroup>();
  const group = (requestId: string): RowGroup => {
    let g = groups.get(requestId);
    if (!g) groups.set(requestId, (g = { requestId, requests: [], costs: [] }));
    return g;
  };
  for (const r of requests) group(r.id).requests.push(r);
  for (const c of costs) group(c.requestId).costs.push(c);
  return [...groups.values()];
}

/**
 * PostgreSQL refused the rows themselves (SQLSTATE class 22, data exception, or 23, integrity
 * constraint violation): sending them again cannot succeed.
 */
function isDataError(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' && (code.startsWith('22') || code.startsWith('23'));
}

/** Isolating rejected rows stopped on a connection error: these groups are not committed yet. */
interface RowBatch {
  requests: RequestLogRow[];
  costs: CostLogRow[];
}

/** A split batch's connection failed: `requests` and `costs` are still to commit, `written` was committed before. */
class UncommittedRows extends Error {
  readonly requests: RequestLogRow[];
  readonly costs: CostLogRow[];
  constructor(
    groups: RowGroup[],
    readonly written: RowBatch,
    cause: unknown,
  ) {
    super((cause as Error)?.message ?? String(cause), { cause });
    this.requests = groups.flatMap((g) => g.requests);
    this.costs = groups.flatMap((g) => g.costs);
  }
}
