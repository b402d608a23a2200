import type { Logger } from '../../lib/logger.js';
import { decide, minuteOf, type RateLimit, type RateState } from './sliding-window.js';

// Per-token requests-per-minute limit shared by every gateway node (REDIS_URL set), without a
// round trip on the request path. Each node decides at once from the counts the store last gave
// it plus its own admissions since, and a sync loop (every GATEWAY_RATE_SYNC_MS) adds its new
// admissions to the store's per-minute counters and reads back every node's totals. A limit can
// therefore be overshot by what the other nodes admit within one sync interval, never more. While
// the store is unreachable each node keeps counting on its own (the limit then holds per node, as
// with the in-memory limiter) and hands the store what it admitted once it is back.

/** Admissions to add to a key's counter for one minute (0: only read it). */
export interface RateCount {
  key: string;
  minute: number;
  add: number;
}

/** Every node's totals for a RateCount's minute and the minute before, after the addition. */
export interface RateTotals {
  current: number;
  previous: number;
}

export interface RateStore {
  /** Applies every count in one exchange and answers their totals, in order. */
  sync(counts: RateCount[]): Promise<RateTotals[]>;
  /** Whether the store's connection is up now, without an exchange (there is none while no limited token is used). */
  connected(): boolean;
  close(): Promise<void>;
}

interface SharedWindow {
  minute: number;
  /** Every node's admissions in `minute`, as the store last answered (this node's synced ones included). */
  current: number;
  /** Every node's admissions in the minute before. */
  previous: number;
  /** This node's admissions in `minute` that `current` does not hold yet (queued or on their way). */
  unsynced: number;
  /** The part of `unsynced` not yet sent. */
  queued: number;
  lastUsed: number;
}

/** Keys used within this long are read back on every sync, so other nodes' use shows here. */
const ACTIVE_MS = 2 * 60_000;
const MAX_KEYS = 100_000;
/** The longest a token's first request on this node waits for the store. */
const FIRST_SIGHT_WAIT_MS = 50;

export class SharedRateLimiter implements RateLimit {
  private readonly windows = new Map<string, SharedWindow>();
  /** Keys whose first exchange is under way, and the wait for it. */
  private readonly firstSight = new Map<string, Promise<void>>();
  /** Queued admissions of a minute that ended before they were sent. */
  private carried: RateCount[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** Exchanges run one after another; this is the last one asked for. */
  private chain: Promise<void> = Promise.resolve();
  /** Exchanges asked for and not finished (the running one included). */
  private queuedSyncs = 0;
  private storeDown = false;

  constructor(
    private readonly store: RateStore,
    private readonly opts: { syncMs: number; logger: Logger; now?: () => number },
  ) {}

  /** Whether the last exchange with the store succeeded and its connection is up now. */
  get storeReachable(): boolean {
    return !this.storeDown && this.store.connected();
  }

  private now(): number {
    return this.opts.now ? this.opts.now() : Date.now();
  }

  /**
   * A token this node has not counted yet (or forgot after two idle minutes) may be in use on
   * others: its first request here waits for one exchange (at most FIRST_SIGHT_WAIT_MS) so that
   * it is decided on every node's counts. Later ones are decided at once.
   */
  ready(key: string): Promise<void> | undefined {
    // Every request that comes while that first exchange runs waits for it too, not only the
    // first: decided at once, they would all count on this node's zero.
    const pending = this.firstSight.get(key);
    if (pending) return pending;
    if (this.windows.has(key)) return undefined;
    this.addWindow(key, this.now());
    const wait = Promise.race([
      this.nextSync(),
      new Promise<void>((resolve) => setTimeout(resolve, FIRST_SIGHT_WAIT_MS).unref()),
    ]).finally(() => this.firstSight.delete(key));
    this.firstSight.set(key, wait);
    return wait;
  }

  take(key: string, limit: number): RateState {
    const t = this.now();
    const { minute, elapsed } = minuteOf(t);
    let w = this.windows.get(key);
    if (!w) {
      // Not made ready (or forgotten meanwhile): decided on this node's counts, the others' follow.
      w = this.addWindow(key, t);
      void this.nextSync();
    } else {
      this.roll(key, w, minute);
    }
    w.lastUsed = t;
    const state = decide(limit, w.current + w.unsynced, w.previous, elapsed);
    if (state.allowed) {
      w.unsynced++;
      w.queued++;
    }
    return state;
  }

  /** Starts the sync loop. */
  start(): void {
    // A tick is skipped while an exchange is still running (a slow store must not pile them up).
    this.timer ??= setInterval(() => {
      if (this.queuedSyncs === 0) void this.sync();
    }, this.opts.syncMs);
    this.timer.unref();
  }

  /** Stops the loop, hands the store what is still queued (best effort) and closes it. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.sync();
    await this.store.close();
  }

  /**
   * An exchange with the store that starts after this call (once the running one, if any, ends):
   * queued admissions out, every node's totals in. Never rejects.
   */
  sync(): Promise<void> {
    this.queuedSyncs++;
    this.chain = this.chain
      .then(() => this.exchange())
      .catch((err: unknown) => this.opts.logger.error({ err }, 'rate limit sync failed'))
      .finally(() => {
        this.queuedSyncs--;
      });
    return this.chain;
  }

  /** An exchange that has not started yet: the one already waiting, else a new one. */
  private nextSync(): Promise<void> {
    return this.queuedSyncs >= 2 ? this.chain : this.sync();
  }

  private markReachable(): void {
    if (this.storeDown) this.opts.logger.info('rate limit store reachable again: limits are shared across nodes');
    this.storeDown = false;
  }

  private async exchange(): Promise<void> {
    const t = this.now();
    const { minute } = minuteOf(t);
    // Windows move to this minute first, so what they queued in the last one goes out now too.
    for (const [key, w] of this.windows) this.roll(key, w, minute);
    const sent: Array<{ key: string; w: SharedWindow | undefined; count: RateCount }> = [];
    for (const c of this.carried) sent.push({ key: c.key, w: this.windows.get(c.key), count: c });
    this.carried = [];
    for (const [key, w] of this.windows) {
      if (w.queued === 0 && t - w.lastUsed > ACTIVE_MS) continue;
      sent.push({ key, w, count: { key, minute: w.minute, add: w.queued } });
      w.queued = 0;
    }
    this.forgetIdle(t, ACTIVE_MS);
    if (sent.length === 0) {
      // Nothing to exchange: a store that came back is known by its connection alone.
      if (this.storeDown && this.store.connected()) this.markReachable();
      return;
    }
    let totals: RateTotals[];
    try {
      totals = await this.store.sync(sent.map((s) => s.count));
    } catch (err) {
      this.requeue(sent, minuteOf(this.now()).minute);
      if (!this.storeDown)
        this.opts.logger.warn(
          { err: (err as Error).message },
          'rate limit store unreachable: each node enforces limits on its own until it is back',
        );
      this.storeDown = true;
      return;
    }
    this.markReachable();
    sent.forEach(({ w, count }, i) => {
      const total = totals[i]!;
      if (!w) return;
      if (w.minute === count.minute) {
        // Counters only grow within a minute: an older answer never lowers what is known.
        w.current = Math.max(w.current, total.current);
        w.previous = Math.max(w.previous, total.previous);
        w.unsynced -= count.add;
      } else if (w.minute === count.minute + 1) {
        w.previous = Math.max(w.previous, total.current);
      }
    });
  }

  /** A failed exchange: its admissions are sent again next time (to the minute they belong to). */
  private requeue(sent: Array<{ key: string; w: SharedWindow | undefined; count: RateCount }>, minute: number): void {
    for (const { key, w, count } of sent) {
      if (count.add === 0 || count.minute < minute - 1) continue; // nothing to add, or too old to matter
      if (w && w.minute === count.minute) w.queued += count.add;
      else this.carried.push({ key, minute: count.minute, add: count.add });
    }
  }

  /** Moves a window to `minute`; what it had queued is carried to its own minute's counter. */
  private roll(key: string, w: SharedWindow, minute: number): void {
    if (w.minute === minute) return;
    if (w.queued > 0) this.carried.push({ key, minute: w.minute, add: w.queued });
    w.previous = w.minute === minute - 1 ? w.current + w.unsynced : 0;
    w.current = 0;
    w.unsynced = 0;
    w.queued = 0;
    w.minute = minute;
  }

  private addWindow(key: string, t: number): SharedWindow {
    if (this.windows.size >= MAX_KEYS) this.forgetIdle(t, 0);
    const w: SharedWindow = {
      minute: minuteOf(t).minute,
      current: 0,
      previous: 0,
      unsynced: 0,
      queued: 0,
      lastUsed: t,
    };
    this.windows.set(key, w);
    return w;
  }

  private forgetIdle(t: number, idleMs: number): void {
    for (const [key, w] of this.windows) if (w.queued === 0 && t - w.lastUsed > idleMs) this.windows.delete(key);
  }
}
