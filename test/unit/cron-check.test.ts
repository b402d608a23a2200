import { afterEach, describe, expect, it, vi } from 'vitest';
import { dueWithinLastMinute, pgBossCronParser, pgBossShouldSendIt } from '../../server/jobs/cron-check.js';

// The field check that answers pg-boss's "is this schedule due?" must give pg-boss's own answer
// (cron-parser's prev() within the last 60 s) for every expression it reads, at any time.

const EXPRESSIONS = [
  '* * * * *',
  '*/15 * * * *',
  '*/5 * * * *',
  '0 * * * *',
  '30 3 * * *',
  '45 3 * * *',
  '17 */6 * * *',
  '0 9-17 * * 1-5',
  '0 0 1 * *',
  '0 12 15 * 5',
  '5,35 2 * 1,6,12 *',
  '0 4 * * 0',
  '0 4 * * 7',
  '59 23 31 12 *',
];

function lcg(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1_103_515_245 + 12_345) % 2 ** 31;
    return x / 2 ** 31;
  };
}

describe('the schedule check in front of pg-boss', () => {
  const parser = pgBossCronParser();
  afterEach(() => {
    vi.useRealTimers();
  });

  it("gives pg-boss's answer for every expression at hundreds of times, due ones included", () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const random = lcg(7);
    const start = Date.UTC(2026, 0, 1);
    let due = 0;
    for (const cron of EXPRESSIONS) {
      const cache = new Map();
      const times: number[] = [];
      for (let i = 0; i < 20; i++) times.push(start + Math.floor(random() * 2 * 365 * 1440) * 60_000);
      // The minutes the expression names, and the ones next to them, where a wrong answer would show.
      const first = parser.parseExpression(cron, { tz: 'UTC' }) as unknown as { next(): { getTime(): number } };
      for (let i = 0; i < 5; i++) {
        const t = first.next().getTime();
        times.push(t, t - 60_000, t + 60_000);
      }
      for (const minute of times) {
        const at = minute + 5_000 + Math.floor(random() * 50_000);
        const ours = dueWithinLastMinute(parser, cache, cron, at);
        vi.setSystemTime(at); // cron-parser reads the clock itself
        const theirs = pgBossShouldSendIt.call({ clockSkew: 0 }, cron, 'UTC');
        expect(ours, `${cron} at ${new Date(at).toISOString()}`).toBe(theirs);
        if (ours) due++;
      }
    }
    expect(due).toBeGreaterThan(50);
  });

  it('leaves expressions it does not read to pg-boss', () => {
    const cache = new Map();
    for (const cron of ['0 0 L * *', '0 0 * * 5#3', '*/10 * * * * *'])
      expect(dueWithinLastMinute(parser, cache, cron, Date.now())).toBeNull();
  });
});
