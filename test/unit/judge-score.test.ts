import { describe, expect, it } from 'vitest';
import { parseJudgeScore } from '../../server/modules/feedback/judge-prompt.js';

// The judge's grade, read from the grader model's answer.

describe('parseJudgeScore', () => {
  it.each([
    ['4', 4],
    [' 5 ', 5],
    ['3/5', 3],
    ['2 / 5.', 2],
    ['Score: 1', 1],
    ['score=5 because it is right', 5],
    ['6', undefined],
    ['four', undefined],
    ['', undefined],
  ])('reads %j as %s', (text, score) => {
    expect(parseJudgeScore(text)).toBe(score);
  });

  it('reads a padded answer (a grader coaxed into it by the graded prompt) without backtracking through it', () => {
    // Cubic before: 4,000 spaces took about 30 s. Returns at once now, without a grade.
    expect(parseJudgeScore(`1${' '.repeat(50_000)}x`)).toBeUndefined();
    expect(parseJudgeScore(`score${' '.repeat(50_000)}x`)).toBeUndefined();
  });
});
