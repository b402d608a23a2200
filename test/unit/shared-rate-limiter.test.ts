import { describe, expect, it } from 'vitest';
import {
  SharedRateLimiter,
  type RateCount,
  type RateStore,
  type RateTotals,
} from '../../server/gateway/limits/shared-rate-limiter.js';
import { createLogger } from '../../server/lib/logger.js';

// The shared limiter's bookkeeping against a store that behaves like the Redis one (counters per
// key and minute) and can be switched off. The Redis store itself is tested in
// test/integration/system/shared-rate-limits.test.ts.

class CounterStore implements RateStore {
  readonly counters = new Map<string, number>();
  down = false;
  exchanges = 0;

  async sync(counts: RateCount[]): Promise<RateTotals[]> {
    this.exchanges++;
    await new Promise((r) => setImmediate(r));
    if (this.down) throw new Error('connection refused');
    return counts.map((c) => {
      const key = `${c.key}:${c.minute}`;
      const current = (this.counters.get(key) ?? 0) + c.add;
      this.counters.set(key, current);
      return { current, previous: this.counters.get(`${c.key}:${c.minute - 1}`) ?? 0 };
    });
  }

  connected(): boolean {
    return !this.down;
  }

  async close(): Promise<void> {}
}

const MINUTE = 60_000;
const logger = createLogger('silent');

/** `n` nodes sharing one store and one settable clock that starts at `t`. */
function cluster(t: number, n = 2): { store: CounterStore; clock: { t: number }; nodes: SharedRateLimiter[] } {
  const store = new CounterStore();
  const clock = { t };
  return {
    store,
    clock,
    nodes: Array.from({ length: n }, () => new SharedRateLimiter(store, { syncMs: 100, logger, now: () => clock.t })),
  };
}

const admitted = (limiter: SharedRateLimiter, key: string, limit: number, tries: number) =>
  Array.from({ length: tries }, () => limiter.take(key, limit)).filter((s) => s.allowed).length;

describe('SharedRateLimiter', () => {
  it("makes every request that comes during a token's first exchange wait for it, not only the first", async () => {
    const {
      nodes: [a, b],
    } = cluster(1000 * MINUTE + 1_000);
    expect(admitted(a!, 'tok_burst', 5, 5)).toBe(5);
    await a!.sync();
    // A burst reaches b before its first exchange for the token has come back.
    const waits = Array.from({ length: 10 }, () => b!.ready('tok_burst'));
    expect(waits.every((w) => w !== undefined)).toBe(true);
    await Promise.all(waits);
    expect(admitted(b!, 'tok_burst', 5, 10)).toBe(0);
  });

  it('shares one limit between nodes once they have synced', async () => {
    const {
      store,
      nodes: [a, b],
    } = cluster(1000 * MINUTE + 1_000);
    expect(admitted(a!, 'tok_1', 10, 6)).toBe(6);
    await a!.sync();
    // b has not seen the token yet: made ready, its first decision already counts a's six.
    await b!.ready('tok_1');
    expect(b!.ready('tok_1')).toBeUndefined();
    expect(b!.take('tok_1', 10).remaining).toBe(3);
    expect(admitted(b!, 'tok_1', 10, 10)).toBe(3);
    await b!.sync();
    await a!.sync();
    const refused = a!.take('tok_1', 10);
    expect(refused.allowed).toBe(false);
    expect(refused.remaining).toBe(0);
    // The ten still weigh 9 after this minute's 59 s left, and fade to 9 in 6 s more.
    expect(refused.retryAfterSeconds).toBe(65);
    expect(store.counters.get(`tok_1:1000`)).toBe(10);
    // Other tokens are counted apart.
    expect(a!.take('tok_2', 10).allowed).toBe(true);
  });

  it('decides a token it was not made ready for on its own counts, and learns the others at once', async () => {
    const {
      store,
      nodes: [a, b],
    } = cluster(1000 * MINUTE + 1_000);
    expect(admitted(a!, 'tok_1', 3, 3)).toBe(3);
    await a!.sync();
    expect(b!.take('tok_1', 3).remaining).toBe(2);
    // That first take started an exchange by itself; once it is done b knows all four.
    await b!.sync();
    expect(b!.take('tok_1', 3).allowed).toBe(false);
    expect(store.counters.get('tok_1:1000')).toBe(4);
  });

  it('counts on its own while the store is down and hands over what it admitted when it is back', async () => {
    const {
      store,
      nodes: [a, b],
    } = cluster(1000 * MINUTE + 1_000);
    store.down = true;
    expect(admitted(a!, 'tok_1', 5, 8)).toBe(5);
    await a!.sync();
    expect(admitted(b!, 'tok_1', 5, 8)).toBe(5);
    store.down = false;
    await a!.sync();
    await b!.sync();
    expect(store.counters.get('tok_1:1000')).toBe(10);
    await a!.sync();
    expect(a!.take('tok_1', 5).allowed).toBe(false);
  });

  it('reports the store unreachable by its connection, also while no limited token is in use', async () => {
    const {
      store,
      nodes: [a],
    } = cluster(1000 * MINUTE + 1_000);
    expect(a!.storeReachable).toBe(true);
    store.down = true;
    // No token has been used: nothing to exchange, and still the health check must see the outage.
    await a!.sync();
    expect(store.exchanges).toBe(0);
    expect(a!.storeReachable).toBe(false);
    // A failed exchange keeps it unreachable until an exchange succeeds or, with nothing to send, the connection is back.
    a!.take('tok_1', 5);
    await a!.sync();
    expect(store.exchanges).toBeGreaterThan(0);
    store.down = false;
    expect(a!.storeReachable).toBe(false);
    await a!.sync();
    expect(a!.storeReachable).toBe(true);
    store.down = true;
    await a!.sync();
    expect(a!.storeReachable).toBe(false);
    store.down = false;
    // The token's window is still active, so this sync is an exchange; with none, the connection alone tells.
    await a!.sync();
    expect(a!.storeReachable).toBe(true);
  });

  it('sends admissions queued when a minute ends to that minute, and weights the minute before', async () => {
    const {
      store,
      clock,
      nodes: [a, b],
    } = cluster(1000 * MINUTE + 50_000);
    await a!.sync();
    expect(admitted(a!, 'tok_1', 10, 10)).toBe(10);
    // The minute ends before a syncs: the 10 belong to minute 1000, not 1001.
    clock.t = 1001 * MINUTE + 30_000;
    await a!.sync();
    expect(store.counters.get('tok_1:1000')).toBe(10);
    expect(store.counters.get('tok_1:1001') ?? 0).toBe(0);
    // Half of the minute before still counts: 10 x 0.5 = 5 used, so 5 more fit, on either node.
    b!.take('tok_1', 10);
    await b!.sync();
    expect(admitted(b!, 'tok_1', 10, 10)).toBe(4);
    await b!.sync();
    await a!.sync();
    expect(a!.take('tok_1', 10).allowed).toBe(false);
  });

  it('makes many tokens new to it ready in one or two exchanges, not one each', async () => {
    const {
      store,
      nodes: [a],
    } = cluster(1000 * MINUTE, 1);
    await Promise.all(Array.from({ length: 100 }, (_, i) => a!.ready(`tok_${i}`)));
    expect(store.exchanges).toBeLessThanOrEqual(2);
    expect(a!.ready('tok_5')).toBeUndefined();
  });

  it('pushes what is left when it closes', async () => {
    const {
      store,
      nodes: [a],
    } = cluster(1000 * MINUTE, 1);
    await a!.sync();
    a!.take('tok_1', 100);
    a!.take('tok_1', 100);
    await a!.close();
    expect(store.counters.get('tok_1:1000')).toBe(2);
  });
});

describe('SharedRateLimiter at a minute boundary', () => {
  it('sends what a window queued in the minute that ended in the first exchange after it', async () => {
    const {
      store,
      clock,
      nodes: [a],
    } = cluster(1000 * MINUTE + 59_000, 1);
    await a!.ready('tok_1');
    a!.take('tok_1', 100);
    a!.take('tok_1', 100);
    clock.t = 1001 * MINUTE + 1_000;
    const exchanges = store.exchanges;
    await a!.sync();
    expect(store.exchanges).toBe(exchanges + 1);
    expect(store.counters.get('tok_1:1000')).toBe(2);
  });
});
