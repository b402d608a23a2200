import { decide, minuteOf, type RateLimit, type RateState } from './sliding-window.js';

// Per-token requests-per-minute limit, in memory: the limiter of a single gateway node. With
// several nodes, REDIS_URL switches to SharedRateLimiter (shared-rate-limiter.ts).

interface Window {
  minute: number;
  current: number;
  previous: number;
}

const MAX_KEYS = 100_000;

export class RateLimiter implements RateLimit {
  private readonly windows = new Map<string, Window>();

  constructor(private readonly now: () => number = Date.now) {}

  take(key: string, limit: number): RateState {
    const { minute, elapsed } = minuteOf(this.now());
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
    const state = decide(limit, w.current, w.previous, elapsed);
    if (state.allowed) w.current++;
    return state;
  }
}
