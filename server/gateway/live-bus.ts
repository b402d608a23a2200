import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { corkedQuery } from '../db/corked-query.js';
import { listenersPresent, PgListener } from '../db/listener.js';
import { jsonParam } from '../db/json-param.js';
import type { Logger } from '../lib/logger.js';
import { TOKENS_CHANNEL } from '../modules/tokens/repository.js';
import type { CommittedRequest } from './log-writer.js';
import type { LiveEvent } from '../../contracts/live.js';

// The live tap behind GET /v1/analytics/live. Every committed request row becomes a compact
// summary sent with NOTIFY on one channel; each process LISTENs on it through its one LISTEN
// connection (db/listener.ts), only while it has local subscribers, and fans the notifications out
// to its subscribers of the event's tenant. Several gateway processes sharing a database therefore
// all see every event.
// Nothing is persisted: a subscriber sees what is committed while it is connected, and events are
// dropped (and counted) rather than queued without bound when the database or a consumer is slow.
//
// Presence: NOTIFY is not free (a query per batch, and every notifying transaction takes one
// cluster-wide lock at commit), so nothing is published while no process listens. The channel is
// LISTENed advertised (an advisory lock the LISTEN connection holds meanwhile), and a publisher
// looks for that lock (listenersPresent) at most once per `presenceMs` while it has rows to publish.
// An answer checked at time s is trusted for rows committed before s + presenceMs; older answers
// are checked again before their rows are published or dropped. A new listener therefore waits
// `presenceMs` (plus a margin) after its LISTEN before it reports itself ready: by then every
// publisher's answer has seen it, so every event committed after `ready` arrives.
//
// Token changes: the same LISTEN connection hears the channel token changes are announced on (in
// the transaction that makes them). PostgreSQL delivers a connection's notifications in commit
// order, so a subscriber hears that its token changed before any event committed after the change,
// whichever process made it, and can stop its stream before that event is shown (see http/live.ts).

export const LIVE_CHANNEL = 'gateway_live';

export type { LiveEvent } from '../../contracts/live.js';

export type LiveListener = (event: LiveEvent) => void;

/** A subscriber's token, and what to call when it may have changed. */
export interface TokenWatch {
  tokenId: string;
  /**
   * The token was changed (or changes may have been missed while the LISTEN connection was down).
   * Called before any event committed after the change is delivered; must not throw.
   */
  onChange: () => void;
}

interface Subscriber {
  listener: LiveListener;
  /** Called when the bus ends every subscription (shutdown). */
  onEnd?: () => void;
  token?: TokenWatch;
}

export interface LiveSubscription {
  /** Resolves once this process is listening, so events committed from then on arrive. */
  ready: Promise<void>;
  unsubscribe(): void;
}

export interface LiveBusStats {
  published: number;
  /** Events not published: the publish queue was full or the NOTIFY failed. */
  publishDropped: number;
  /** Events not published because no process was listening. */
  unobserved: number;
  received: number;
  delivered: number;
  reconnects: number;
}

export interface LiveBusOptions {
  /** Sends the NOTIFYs (any pool connection). */
  pool: pg.Pool;
  /** The process's LISTEN connection (services.ts). Without it, the bus opens one of its own from connectionString. */
  listener?: PgListener;
  /** For a LISTEN connection of the bus's own, when no listener is given. */
  connectionString?: string;
  logger: Logger;
  channel?: string;
  /** Where token changes are announced (default TOKENS_CHANNEL). */
  tokenChannel?: string;
  /** Keep LISTENing this long after the last local subscriber leaves (default 30 s). */
  idleMs?: number;
  /** First retry delay when the bus's own LISTEN connection cannot be opened; doubles up to 10 s (default 500 ms). */
  reconnectMs?: number;
  /** Events waiting to be published at most; the oldest are dropped past it (default 10 000). */
  maxPending?: number;
  /** How long an answer to "is any process listening?" is trusted (default 1 s); see the top of this file. */
  presenceMs?: number;
}

/** NOTIFY payloads must stay under 8000 bytes. */
const MAX_PAYLOAD_BYTES = 7_900;
const NOTIFY_CHUNK = 500;
/** Payloads start with the tenant id (encodeLivePayload). */
const TENANT_PREFIX = '{"tenantId":"';
const MAX_RECONNECT_MS = 10_000;
/** Slack for a presence check's own round trip and timer lateness. */
const PRESENCE_MARGIN_MS = 250;

/** A NOTIFY payload: the tenant id first (dispatch reads it off the front), then the event. */
export type LivePayload = { tenantId: string } & LiveEvent;

/** Built as one literal: a spread of the event after `tenantId` would take V8's slow copy path. */
function livePayloadOf(c: CommittedRequest): LivePayload {
  const r = c.row;
  return {
    tenantId: r.tenantId,
    id: r.id,
    createdAt: r.createdAt.toISOString(),
    provider: r.provider,
    model: r.model,
    taskType: r.taskType,
    complexity: r.complexity,
    routedBy: r.routedBy,
    cached: r.cached,
    status: r.status,
    latencyMs: r.latencyMs,
    inputTokens: r.inputTokens,
    outputTokens: r.outputTokens,
    cost: c.costUsd,
    preview: c.preview,
    endpoint: r.endpoint,
  };
}

/** Compact JSON; the preview is shortened if the payload would not fit. */
export function encodeLivePayload(payload: LivePayload): string {
  const text = JSON.stringify(payload);
  // Bytes are at most 3 per UTF-16 unit: most payloads are measured without encoding them.
  if (text.length * 3 <= MAX_PAYLOAD_BYTES || Buffer.byteLength(text) <= MAX_PAYLOAD_BYTES) return text;
  return encodeShortened(payload);
}

function encodeShortened(payload: LivePayload): string {
  let preview = payload.preview ?? '';
  let text = '';
  do {
    preview = preview.slice(0, Math.floor(preview.length / 2));
    text = JSON.stringify({ ...payload, preview: preview ? `${preview}…` : null });
  } while (preview.length > 0 && Buffer.byteLength(text) > MAX_PAYLOAD_BYTES);
  return Buffer.byteLength(text) <= MAX_PAYLOAD_BYTES ? text : JSON.stringify({ ...payload, preview: null });
}

export class LiveBus {
  readonly stats: LiveBusStats = {
    published: 0,
    publishDropped: 0,
    unobserved: 0,
    received: 0,
    delivered: 0,
    reconnects: 0,
  };
  private readonly channel: string;
  private readonly tokenChannel: string;
  private readonly presenceMs: number;
  /** The latest presence answer, and when (performance.now()) its check started. */
  private presence: { checkedAt: number; present: boolean } | undefined;
  private presenceCheck: Promise<void> | undefined;
  /** When every publisher will have seen this process's LISTEN connection (performance.now()). */
  private seenAt = 0;
  private readonly subscribers = new Map<string, Set<Subscriber>>();
  private subscriberTotal = 0;
  /** Committed rows waiting to be encoded (publish), then their payloads waiting to be sent (pump). */
  private unencoded: CommittedRequest[] = [];
  private encodeSoon: NodeJS.Immediate | undefined;
  private pending: string[] = [];
  private publishing = false;
  /** The shared LISTEN connection, or the bus's own (`ownListener`). */
  private readonly listener: PgListener;
  private readonly ownListener: boolean;
  private listenerStarted: Promise<void> | undefined;
  /** Ends the bus's subscriptions on the listener (the live channel and the token channel); set while LISTENing. */
  private unlisten: (() => Promise<void>) | undefined;
  private connecting: Promise<void> | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private retryDelay: number;
  private cancelSleep: (() => void) | undefined;
  private closed = false;
  /** Resolves when the bus closes: nothing waits on the LISTEN connection after that. */
  private readonly whenClosed: Promise<void>;
  private stopWaiting: () => void = () => undefined;

  constructor(private readonly opts: LiveBusOptions) {
    this.channel = opts.channel ?? LIVE_CHANNEL;
    this.tokenChannel = opts.tokenChannel ?? TOKENS_CHANNEL;
    this.presenceMs = opts.presenceMs ?? 1_000;
    this.retryDelay = opts.reconnectMs ?? 500;
    this.whenClosed = new Promise((resolve) => {
      this.stopWaiting = resolve;
    });
    this.ownListener = !opts.listener;
    if (opts.listener) this.listener = opts.listener;
    else if (opts.connectionString)
      this.listener = new PgListener(opts.connectionString, opts.logger, opts.reconnectMs ?? 500);
    else throw new Error('LiveBus needs a listener or a connectionString');
  }

  /**
   * Publish committed request rows (the log writer's onCommitted). Never blocks, never throws.
   * The rows are encoded on a later turn of the event loop, not in the log writer's commit callback:
   * upstream answers that arrived meanwhile are handled first, so a batch's encoding does not
   * land in one piece on the requests in flight.
   */
  publish(rows: CommittedRequest[]): void {
    if (this.closed || rows.length === 0) return;
    for (const c of rows) this.unencoded.push(c);
    const over = this.unencoded.length + this.pending.length - (this.opts.maxPending ?? 10_000);
    if (over > 0) {
      // The oldest go first: those already encoded, then the oldest rows not yet encoded.
      const fromPending = Math.min(over, this.pending.length);
      this.pending.splice(0, fromPending);
      this.unencoded.splice(0, over - fromPending);
      this.stats.publishDropped += over;
    }
    this.encodeSoon ??= setImmediate(this.encodeStep);
  }

  /** Publishes or drops the queued rows, once it is known whether anyone listens. */
  private readonly encodeStep = (): void => {
    this.encodeSoon = undefined;
    if (this.unencoded.length === 0) return;
    const watched = this.watched();
    if (watched === undefined) {
      void this.checkPresence();
      return;
    }
    if (!watched) {
      this.stats.unobserved += this.unencoded.length;
      this.unencoded = [];
      return;
    }
    this.encodeQueued();
    void this.pump();
  };

  /**
   * Whether any process listens, as far as rows committed by now are concerned; undefined when
   * the last answer is too old to say. A half-expired answer is refreshed ahead of time, so rows
   * do not wait for the check under steady traffic.
   */
  private watched(): boolean | undefined {
    if (this.subscriberTotal > 0 || this.unlisten || this.connecting) return true;
    const p = this.presence;
    if (!p) return undefined;
    const age = performance.now() - p.checkedAt;
    if (age >= this.presenceMs) return undefined;
    if (age >= this.presenceMs / 2) void this.checkPresence();
    return p.present;
  }

  /** Asks the database whether any LISTEN connection of the channel exists; queued rows move on after. */
  private checkPresence(): Promise<void> {
    this.presenceCheck ??= (async () => {
      const checkedAt = performance.now();
      try {
        this.presence = { checkedAt, present: await listenersPresent(this.opts.pool, this.channel) };
      } catch {
        // Unknown: publish. If the database is unreachable the NOTIFY fails too, and is counted there.
        this.presence = { checkedAt, present: true };
      }
    })().finally(() => {
      this.presenceCheck = undefined;
      if (this.unencoded.length > 0 && !this.closed) this.encodeSoon ??= setImmediate(this.encodeStep);
    });
    return this.presenceCheck;
  }

  private encodeQueued(): void {
    for (const c of this.unencoded) this.pending.push(encodeLivePayload(livePayloadOf(c)));
    this.unencoded = [];
  }

  /**
   * Receive every event of `tenantId` committed by any process while subscribed. `onEnd` is called
   * if the bus ends the subscription itself (endAll, close): the caller should end its stream.
   * `token` is told when the subscriber's token changes (see the top of this file).
   */
  subscribe(tenantId: string, listener: LiveListener, onEnd?: () => void, token?: TokenWatch): LiveSubscription {
    if (this.closed) {
      const ready = Promise.reject(new Error('live bus is closed'));
      ready.catch(() => undefined);
      return { ready, unsubscribe: () => undefined };
    }
    let set = this.subscribers.get(tenantId);
    if (!set) this.subscribers.set(tenantId, (set = new Set()));
    // An entry per subscription, so one listener subscribed twice is two subscriptions.
    const entry: Subscriber = { listener, onEnd, token };
    set.add(entry);
    this.subscriberTotal++;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    const ready = this.listen().then(() => this.untilSeen());
    ready.catch(() => undefined);
    let active = true;
    return {
      ready,
      unsubscribe: () => {
        if (!active) return;
        active = false;
        if (this.closed) return;
        set.delete(entry);
        if (set.size === 0 && this.subscribers.get(tenantId) === set) this.subscribers.delete(tenantId);
        this.subscriberTotal--;
        if (this.subscriberTotal === 0) this.scheduleIdleClose();
      },
    };
  }

  /**
   * End every local subscription (their onEnd runs). Call when shutting down: open event streams
   * would otherwise keep the HTTP server from closing. New subscriptions are still accepted.
   */
  endAll(): void {
    const entries = [...this.subscribers.values()].flatMap((set) => [...set]);
    for (const entry of entries) {
      try {
        entry.onEnd?.();
      } catch (err) {
        this.opts.logger.warn({ err: (err as Error).message }, 'live tap subscriber failed to end');
      }
    }
  }

  /** Local subscribers, of one tenant or in all. */
  subscriberCount(tenantId?: string): number {
    return tenantId === undefined ? this.subscriberTotal : (this.subscribers.get(tenantId)?.size ?? 0);
  }

  /** Whether this process LISTENs on the live channel now. */
  get listening(): boolean {
    return this.unlisten !== undefined && this.listener.listening(this.channel);
  }

  /** Backend pid of the LISTEN connection (diagnostics and tests). */
  async listenerPid(): Promise<number | undefined> {
    return this.listening ? this.listener.backendPid() : undefined;
  }

  /** End the subscriptions, publish what is queued, then drop the LISTEN connection. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.endAll();
    this.closed = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.cancelSleep?.();
    this.stopWaiting();
    if (this.encodeSoon) clearImmediate(this.encodeSoon);
    this.encodeSoon = undefined;
    if (this.unencoded.length > 0) {
      if (this.watched() === undefined) await this.checkPresence();
      if (this.watched() === false) {
        this.stats.unobserved += this.unencoded.length;
        this.unencoded = [];
      } else {
        this.encodeQueued();
        void this.pump();
      }
    }
    const deadline = Date.now() + 2_000;
    while ((this.publishing || this.pending.length) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    this.subscribers.clear();
    this.subscriberTotal = 0;
    await this.connecting?.catch(() => undefined);
    await this.dropClient();
    if (this.ownListener) await this.listener.close();
  }

  // --- publishing ----------------------------------------------------------------------------

  private async pump(): Promise<void> {
    if (this.publishing) return;
    this.publishing = true;
    try {
      while (this.pending.length) {
        const batch = this.pending.splice(0, NOTIFY_CHUNK);
        try {
          // The payloads travel as one JSON array: pg would escape every quote of every payload to
          // build a text[] literal, where JSON.stringify is native.
          await corkedQuery(this.opts.pool, {
            text: 'select pg_notify($1, p) from json_array_elements_text($2::json) as p',
            values: [this.channel, jsonParam(batch)],
          });
          this.stats.published += batch.length;
        } catch (err) {
          this.stats.publishDropped += batch.length;
          this.opts.logger.warn(
            { err: (err as Error).message, events: batch.length },
            'live tap publish failed; events dropped',
          );
        }
      }
    } finally {
      this.publishing = false;
    }
  }

  // --- listening -----------------------------------------------------------------------------

  private listen(): Promise<void> {
    if (this.listening) return Promise.resolve();
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  /**
   * LISTENs (the token channel, then the live channel, advertised); retries with backoff until it
   * works or nobody is subscribed.
   */
  private async connect(): Promise<void> {
    for (;;) {
      if (this.closed) throw new Error('live bus is closed');
      if (this.subscriberTotal === 0) throw new Error('no live subscribers left');
      try {
        if (this.ownListener) {
          this.listenerStarted ??= this.listener.start().catch((err: unknown) => {
            this.listenerStarted = undefined;
            throw err;
          });
          await this.listenerStarted;
        }
        this.unlisten ??= await this.subscribeChannels();
        // The shared connection may be down: the channel is LISTENed when it is back.
        await Promise.race([this.listener.listened(this.channel), this.whenClosed]);
        if (this.closed) throw new Error('live bus is closed');
        this.heard();
        this.retryDelay = this.opts.reconnectMs ?? 500;
        if (this.subscriberTotal === 0) this.scheduleIdleClose();
        return;
      } catch (err) {
        if (this.closed) throw err;
        this.opts.logger.warn({ err: (err as Error).message }, 'live tap LISTEN connection failed; retrying');
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.nextDelay());
          this.cancelSleep = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.cancelSleep = undefined;
      }
    }
  }

  private async subscribeChannels(): Promise<() => Promise<void>> {
    const offTokens = await this.listener.listen(this.tokenChannel, (id) => this.tokenChanged(id || undefined));
    const offLive = await this.listener.listen(
      this.channel,
      (payload) => {
        if (payload) this.dispatch(payload);
      },
      () => this.reconnected(),
      { advertise: true },
    );
    return async () => {
      await offLive();
      await offTokens();
    };
  }

  /** Publishers see this process listening from now on; every one will have within a presence period. */
  private heard(): void {
    this.seenAt = performance.now() + this.presenceMs + PRESENCE_MARGIN_MS;
  }

  /** The LISTEN connection came back after dropping: token changes may have gone unheard meanwhile. */
  private reconnected(): void {
    if (this.closed || !this.unlisten) return;
    this.stats.reconnects++;
    this.heard();
    this.opts.logger.warn({ channel: this.channel }, 'live tap LISTEN connection was lost and is back');
    this.tokenChanged(undefined);
  }

  /** Resolves once every publisher has had time to see this process's LISTEN connection. */
  private untilSeen(): Promise<void> | undefined {
    const wait = this.seenAt - performance.now();
    if (wait <= 0) return undefined;
    return new Promise((resolve) => setTimeout(resolve, wait).unref());
  }

  private nextDelay(): number {
    const delay = this.retryDelay;
    this.retryDelay = Math.min(this.retryDelay * 2, MAX_RECONNECT_MS);
    return delay;
  }

  private scheduleIdleClose(): void {
    if (this.idleTimer || this.closed) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      if (this.subscriberTotal === 0) void this.dropClient();
    }, this.opts.idleMs ?? 30_000);
    this.idleTimer.unref();
  }

  /** Stops LISTENing (idle, or closing). */
  private async dropClient(): Promise<void> {
    const unlisten = this.unlisten;
    this.unlisten = undefined;
    await unlisten?.().catch(() => undefined);
  }

  /** Tells the subscribers holding `tokenId` (every subscriber when undefined) that it changed. */
  private tokenChanged(tokenId: string | undefined): void {
    for (const set of this.subscribers.values()) {
      for (const entry of set) {
        if (!entry.token || (tokenId !== undefined && entry.token.tokenId !== tokenId)) continue;
        try {
          entry.token.onChange();
        } catch (err) {
          this.opts.logger.warn({ err: (err as Error).message }, 'live tap subscriber failed to handle a token change');
        }
      }
    }
  }

  private dispatch(payload: string): void {
    this.stats.received++;
    // Every process listening sees every tenant's events: read the tenant id off the front of the
    // payload and parse the rest only for tenants with subscribers here.
    const quick = payload.startsWith(TENANT_PREFIX)
      ? payload.slice(TENANT_PREFIX.length, payload.indexOf('"', TENANT_PREFIX.length))
      : '';
    if (quick && !quick.includes('\\') && !this.subscribers.has(quick)) return;
    let parsed: LivePayload | undefined;
    try {
      parsed = JSON.parse(payload) as LivePayload;
    } catch {
      return;
    }
    if (typeof parsed?.tenantId !== 'string') return;
    const set = this.subscribers.get(parsed.tenantId);
    if (!set) return;
    const { tenantId: _tenant, ...event } = parsed;
    for (const entry of set) {
      try {
        entry.listener(event);
        this.stats.delivered++;
      } catch (err) {
        this.opts.logger.warn({ err: (err as Error).message }, 'live tap subscriber failed');
      }
    }
  }
}
