// The sliding-window decision both rate limiters share: a token's usage is its count in the
// current minute plus the previous minute's count weighted by the part of that minute still inside
// the last 60 seconds, so a burst at a minute's edge cannot double the allowance.

export interface RateState {
  limit: number;
  remaining: number;
  allowed: boolean;
  /** Seconds until a request would be allowed again (when refused). */
  retryAfterSeconds: number;
}

/** Per-token requests-per-minute limit; `key` is the token id. */
export interface RateLimit {
  /** A promise when the limiter must learn the key's counts before its first decision here. */
  ready?(key: string): Promise<void> | undefined;
  take(key: string, limit: number): RateState;
}

export const WINDOW_MS = 60_000;

/** The minute `t` falls in, and how far into it (0..1). */
export function minuteOf(t: number): { minute: number; elapsed: number } {
  return { minute: Math.floor(t / WINDOW_MS), elapsed: (t % WINDOW_MS) / WINDOW_MS };
}

/** Whether one more request fits, given the two minutes' counts. */
export function decide(limit: number, current: number, previous: number, elapsed: number): RateState {
  const used = previous * (1 - elapsed) + current;
  if (used + 1 > limit) {
    return {
      limit,
      remaining: 0,
      allowed: false,
      retryAfterSeconds: Math.max(1, Math.ceil(Math.round(waitMs(limit, current, previous, elapsed)) / 1000)),
    };
  }
  return { limit, remaining: Math.max(0, Math.floor(limit - used - 1)), allowed: true, retryAfterSeconds: 0 };
}

/**
 * How long until one more request fits, if none is taken meanwhile: the previous minute's share
 * fades as the window slides, and at the minute's end this minute's count becomes the one fading.
 * (Not "the rest of this minute": that can be too short, the current count still weighing after
 * it, or too long, when the previous minute's share fades below the limit within seconds.)
 */
function waitMs(limit: number, current: number, previous: number, elapsed: number): number {
  const rest = (1 - elapsed) * WINDOW_MS;
  // Within this minute: previous x (1 - elapsed') + current + 1 <= limit.
  const room = limit - current - 1;
  if (room >= 0 && previous > 0) {
    const wait = WINDOW_MS * (1 - elapsed - room / previous);
    if (wait <= rest) return Math.max(0, wait);
  }
  // In the next minute: current x (1 - elapsed') + 1 <= limit.
  const fade = current > 0 ? Math.max(0, 1 - (limit - 1) / current) : 0;
  return rest + WINDOW_MS * fade;
}
