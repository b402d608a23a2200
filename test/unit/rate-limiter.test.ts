import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../server/gateway/limits/rate-limiter.js';

const MINUTE = 60_000;

describe('RateLimiter (one process)', () => {
  it('says in Retry-After when a request would be allowed again, as the window slides', () => {
    // Limit 2, used up 6 s into a minute, refused at 10 s: the two still weigh 1 half-way through
    // the next minute, so 50 s + 30 s.
    const clock = { t: 2000 * MINUTE + 6_000 };
    const limiter = new RateLimiter(() => clock.t);
    limiter.take('tok_a', 2);
    limiter.take('tok_a', 2);
    clock.t = 2000 * MINUTE + 10_000;
    const refused = limiter.take('tok_a', 2);
    expect(refused).toMatchObject({ allowed: false, retryAfterSeconds: 80 });
    clock.t += 79_000;
    expect(limiter.take('tok_a', 2).allowed).toBe(false);
    clock.t += 1_000;
    expect(limiter.take('tok_a', 2).allowed).toBe(true);

    // Limit 10, used up in a minute's last second, refused 0.6 s into the next: the previous
    // minute's share falls to 9 within 6 s, not 60.
    clock.t = 3000 * MINUTE + 59_500;
    for (let i = 0; i < 10; i++) limiter.take('tok_b', 10);
    clock.t = 3001 * MINUTE + 600;
    const soon = limiter.take('tok_b', 10);
    expect(soon).toMatchObject({ allowed: false, retryAfterSeconds: 6 });
    clock.t += 6_000;
    expect(limiter.take('tok_b', 10).allowed).toBe(true);
  });

  it('weights the minute before by the part of it still inside the last 60 s', () => {
    const clock = { t: 1000 * MINUTE + 59_000 };
    const limiter = new RateLimiter(() => clock.t);
    const states = Array.from({ length: 11 }, () => limiter.take('tok_1', 10));
    expect(states.filter((s) => s.allowed)).toHaveLength(10);
    expect(states[9]!.remaining).toBe(0);
    // Not the 1 s left in the minute: the ten weigh 10 then, and fade below the limit 6 s later.
    expect(states[10]!.retryAfterSeconds).toBe(7);
    // 30 s into the next minute half of the ten still count.
    clock.t = 1001 * MINUTE + 30_000;
    expect(Array.from({ length: 10 }, () => limiter.take('tok_1', 10)).filter((s) => s.allowed)).toHaveLength(5);
    // Two minutes on, nothing of it counts.
    clock.t = 1003 * MINUTE;
    expect(limiter.take('tok_1', 10).remaining).toBe(9);
  });
});
