import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../server/gateway/limits/rate-limiter.js';

const MINUTE = 60_000;

describe('RateLimiter (one process)', () => {
  it('weights the minute before by the part of it still inside the last 60 s', () => {
    const clock = { t: 1000 * MINUTE + 59_000 };
    const limiter = new RateLimiter(() => clock.t);
    const states = Array.from({ length: 11 }, () => limiter.take('tok_1', 10));
    expect(states.filter((s) => s.allowed)).toHaveLength(10);
    expect(states[9]!.remaining).toBe(0);
    expect(states[10]!.retryAfterSeconds).toBe(1);
    // 30 s into the next minute half of the ten still count.
    clock.t = 1001 * MINUTE + 30_000;
    expect(Array.from({ length: 10 }, () => limiter.take('tok_1', 10)).filter((s) => s.allowed)).toHaveLength(5);
    // Two minutes on, nothing of it counts.
    clock.t = 1003 * MINUTE;
    expect(limiter.take('tok_1', 10).remaining).toBe(9);
  });
});
