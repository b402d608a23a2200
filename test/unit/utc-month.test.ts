import { describe, expect, it } from 'vitest';
import { utcMonth } from '../../server/lib/utc-month.js';

describe('utcMonth', () => {
  it('names the UTC month of any time, across month and year boundaries, in any order of asking', () => {
    const times = [
      Date.UTC(2026, 10, 29, 12),
      Date.UTC(2026, 11, 1) - 1,
      Date.UTC(2026, 11, 1),
      Date.UTC(2027, 0, 1) - 1,
      Date.UTC(2027, 0, 1),
      Date.UTC(2024, 1, 29, 23, 59, 59, 999),
      Date.UTC(2026, 10, 30, 23, 59),
    ];
    for (const t of [...times, ...times.reverse()]) expect(utcMonth(t)).toBe(new Date(t).toISOString().slice(0, 7));
  });
});
