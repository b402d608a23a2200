import { describe, expect, it } from 'vitest';
import { newTimeOrderedId } from '../../server/lib/ids.js';

describe('time-ordered ids', () => {
  it('are the prefix, nine base-36 clock characters and eleven random ones', () => {
    const id = newTimeOrderedId('req');
    expect(id).toMatch(/^req_[0-9a-z]{9}[0-9A-Za-z]{11}$/);
    expect(newTimeOrderedId('req', 0).slice(4, 13)).toBe('000000000');
    expect(newTimeOrderedId('req', 36 ** 9 - 1).slice(4, 13)).toBe('zzzzzzzzz');
  });

  it('sort by their time as strings, across digit and letter boundaries', () => {
    const times = [0, 9, 10, 35, 36, 1_295, 1_296, 1e9, Date.UTC(2026, 0, 1), Date.now(), Date.now() + 1, 36 ** 9 - 1];
    const ids = times.flatMap((t) => [newTimeOrderedId('req', t), newTimeOrderedId('req', t)]);
    const byString = [...ids].sort();
    const clock = (id: string) => parseInt(id.slice(4, 13), 36);
    expect(byString.map(clock)).toEqual([...times, ...times].sort((a, b) => a - b));
  });

  it('stay unique within one millisecond', () => {
    const now = Date.now();
    const ids = new Set(Array.from({ length: 20_000 }, () => newTimeOrderedId('req', now)));
    expect(ids.size).toBe(20_000);
  });
});
