import { Redis } from 'ioredis';
import type { Logger } from '../../lib/logger.js';
import { settleWithin } from '../../lib/settle-within.js';
import type { RateCount, RateStore, RateTotals } from './shared-rate-limiter.js';

// The shared rate-limit counters in Redis: one integer per token and minute
// (`gateway:rate:<token id>:<minute>`), kept three minutes. A sync is one pipeline: INCRBY (or GET
// when there is nothing to add) on the minute's counter and GET on the minute before, per token.

const PREFIX = 'gateway:rate:';
const KEEP_MS = 3 * 60_000;

export class RedisRateStore implements RateStore {
  private readonly redis: Redis;

  /**
   * `timeoutMs`: how long a sync may wait for its answers. A Redis that stops answering without
   * refusing (a network partition) would otherwise hold the sync, and with it the limiter's view of
   * the store, for as long as TCP takes to give up: the sync fails instead, and the limiter reports
   * the store unreachable and counts on this node alone.
   */
  constructor(
    url: string,
    logger: Logger,
    private readonly timeoutMs = 1_000,
  ) {
    this.redis = new Redis(url, {
      // Probes a silent connection, so a partition is also found out below the sync's timeout.
      keepAlive: 10_000,
      // A sync that cannot reach Redis fails at once and is retried by the next one; commands are
      // never queued while disconnected, and the client reconnects on its own.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 2_000,
      lazyConnect: false,
    });
    // Outages are reported by the limiter; without a listener the client would print each error.
    this.redis.on('error', (err: Error) => logger.debug({ err: err.message }, 'redis connection error'));
  }

  async sync(counts: RateCount[]): Promise<RateTotals[]> {
    const pipeline = this.redis.pipeline();
    for (const c of counts) {
      const key = PREFIX + c.key + ':' + c.minute;
      if (c.add > 0) pipeline.incrby(key, c.add).pexpire(key, KEEP_MS);
      else pipeline.get(key);
      pipeline.get(PREFIX + c.key + ':' + (c.minute - 1));
    }
    const answered = await settleWithin(pipeline.exec(), this.timeoutMs);
    if (!answered.ok) throw answered.error ?? new Error(`redis did not answer within ${this.timeoutMs} ms`);
    const replies = answered.value ?? [];
    const totals: RateTotals[] = [];
    let i = 0;
    for (const c of counts) {
      const current = value(replies[i++]);
      if (c.add > 0) value(replies[i++]); // PEXPIRE's answer
      totals.push({ current, previous: value(replies[i++]) });
    }
    return totals;
  }

  connected(): boolean {
    return this.redis.status === 'ready';
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

/** A pipeline reply as a count; a failed command fails the whole sync. */
function value(reply: [Error | null, unknown] | undefined): number {
  if (!reply) throw new Error('redis: missing reply');
  if (reply[0]) throw reply[0];
  return Number(reply[1] ?? 0);
}
