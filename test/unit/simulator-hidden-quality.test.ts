import { describe, expect, it } from 'vitest';
import { HiddenQuality } from '../../server/simulator/hidden-quality.js';

// The simulator's hidden per-cell quality: matched by prompt text, changing at a time on its
// clock, carried by an answer, and graded back with seeded noise.

describe('HiddenQuality', () => {
  it('answers with the last matching entry whose time has come', () => {
    let now = 1_000;
    const h = new HiddenQuality(1, () => now);
    h.configure({
      cellQualities: [
        { model: 'a', whenContains: '[cell x]', quality: 4.5 },
        { model: 'a', whenContains: '[cell x]', quality: 2, from: 2_000 },
        { model: 'a', quality: 3 },
      ],
    });
    expect(h.qualityOf('a', 'hello [cell x]')).toBe(3);
    h.configure({
      cellQualities: [
        { model: 'a', quality: 3 },
        { model: 'a', whenContains: '[cell x]', quality: 4.5 },
        { model: 'a', whenContains: '[cell x]', quality: 2, from: 2_000 },
      ],
    });
    expect(h.qualityOf('a', 'hello [cell x]')).toBe(4.5);
    expect(h.qualityOf('a', 'another cell')).toBe(3);
    expect(h.qualityOf('b', 'hello [cell x]')).toBeUndefined();
    now = 2_000;
    expect(h.qualityOf('a', 'hello [cell x]')).toBe(2);
  });

  it('reads the last quality an answer carries, and grades it with seeded noise', () => {
    const text = `USER: q\n\nASSISTANT ANSWER:\nSimulated reply ${HiddenQuality.tag(1.5)} then ${HiddenQuality.tag(4.25)}`;
    expect(HiddenQuality.taggedQuality(text)).toBe(4.25);
    expect(HiddenQuality.taggedQuality('no tag')).toBeUndefined();
    const quiet = new HiddenQuality(1);
    expect(quiet.grade(4.25)).toBe(4);
    const grades = (seed: number) => {
      const h = new HiddenQuality(seed);
      h.configure({ gradeNoise: 0.6 });
      return Array.from({ length: 400 }, () => h.grade(3.5));
    };
    const a = grades(9);
    expect(grades(9)).toEqual(a);
    expect(new Set(a).size).toBeGreaterThan(2);
    expect(Math.abs(a.reduce((s, g) => s + g, 0) / a.length - 3.5)).toBeLessThan(0.15);
  });

  it('refuses a malformed configuration', () => {
    const h = new HiddenQuality(1);
    expect(() => h.configure({ cellQualities: [{ model: 'a', quality: 9 }] })).toThrow(TypeError);
    expect(() => h.configure({ gradeNoise: -1 })).toThrow(TypeError);
  });
});
