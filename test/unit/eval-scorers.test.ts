import { describe, expect, it } from 'vitest';
import { boundedMatch, parsePattern, patternProblem } from '../../server/modules/evals/regex.js';
import { aggregate, exactMatch, regexMatch } from '../../server/modules/evals/scorers.js';

describe('eval scorers', () => {
  it('exact-match compares the first whitespace-trimmed token', () => {
    expect(exactMatch('  Paris is lovely', 'Paris')).toBe(5);
    expect(exactMatch('Paris.', 'Paris')).toBe(1);
    expect(exactMatch('', 'Paris')).toBe(1);
    expect(exactMatch('qa/simple (conf=0.91/0.80)', 'qa/simple')).toBe(5);
  });

  it('regex-match reads bare patterns and /source/flags literals', () => {
    expect(parsePattern('/^a$/gi')).toEqual({ source: '^a$', flags: 'i' });
    expect(parsePattern('^a$')).toEqual({ source: '^a$', flags: '' });
    expect(regexMatch('Hello World', '/world/i')).toBe(5);
    expect(regexMatch('Hello World', 'world')).toBe(1);
    expect(patternProblem('(')).toMatch(/Invalid regular expression/);
  });

  it('a catastrophic pattern does not stall: RE2 in linear time, or the JavaScript engine cut at its limit', () => {
    const text = `${'a'.repeat(50_000)}b`;
    let started = performance.now();
    expect(boundedMatch('^(a+)+$', text)).toEqual({ matched: false });
    expect(performance.now() - started).toBeLessThan(2_000);
    // A backreference keeps the pattern off RE2: the JavaScript engine runs it with a time limit.
    started = performance.now();
    expect(boundedMatch('^(a|a)+\\1$', `${'a'.repeat(40)}b`)).toEqual({ matched: false, timedOut: true });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(boundedMatch('(J)upiter \\1', 'Jupiter J').matched).toBe(true);
  });

  it('aggregates as SPEC.md says', () => {
    expect(aggregate('llm-judge', 4 + 2, 2)).toEqual({
      scorer: 'llm-judge',
      avgScore: 3,
      passRate: null,
      score: 3,
      scoredCases: 2,
    });
    // 3 passes and 1 fail: avg 4, ((4 - 1) / 4) x 100 = 75.
    expect(aggregate('exact-match', 5 + 5 + 5 + 1, 4)).toMatchObject({ avgScore: 4, passRate: 75, score: 75 });
    expect(aggregate('regex-match', 0, 0)).toMatchObject({ avgScore: null, passRate: null, score: null });
  });
});
