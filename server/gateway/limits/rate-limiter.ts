// Per-token requests-per-minute limit, in memory (per process). A sliding window over the current
// and previous minute keeps bursts at a window edge from doubling the allowance. With several
// gateway nodes each enforces its own share; DESIGN.md section 9 moves this to Redis.

export interface RateState {
  limit: number;
  remaining: number;
  allowed: boolean;
  /** Seconds until a request would be allowed again (when refused). */
  retryAfterSeconds: number;
}

interface Window {
  minute: number;
  current: number;
  previous: number;
}

const WINDOW_MS = 60_000;
const MAX_KEYS = 100_000;

export class RateLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(private readonly now: () => number = Date.now) {}

  take(key: string, limit: number): RateState {
    const t = this.now();
    const minute = Math.floor(t / WINDOW_MS);
    let w = this.windows.get(key);
    if (!w) {
      if (this.windows.size >= MAX_KEYS) this.windows.clear();
      w = { minute, current: 0, previous: 0 };
      this.windows.set(key, w);
    } else if (w.minute !== minute) {
      w.previous = w.minute === minute - 1 ? w.current : 0;
      w.current = 0;
      w.minute = minute;
    }
    const elapsed = (t % WINDOW_MS) / WINDOW_MS;
    const used = w.previous * (1 - elapsed) + w.current;
    if (used + 1 > limit) {
      return { limit, remaining: 0, allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(((1 - elapsed) * WINDOW_MS) / 1000)) };
    }
    w.current++;
    return { limit, remaining: Math.max(0, Math.floor(limit - used - 1)), allowed: true, retryAfterSeconds: 0 };
  }
}
