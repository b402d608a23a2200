import { boundedMatch } from './regex.js';

// The match scorers of SPEC.md (5 pass, 1 fail) and the run aggregate.

export const SCORERS = ['llm-judge', 'exact-match', 'regex-match'] as const;
export type Scorer = (typeof SCORERS)[number];

export const PASS = 5;
export const FAIL = 1;

/** exact-match: the output's first whitespace-trimmed token equals expected (itself trimmed). */
export function exactMatch(output: string, expected: string): number {
  const first = output.trim().split(/\s+/, 1)[0] ?? '';
  return first === expected.trim() ? PASS : FAIL;
}

/** regex-match: the output matches the JavaScript regular expression in expected (bounded). */
export function regexMatch(output: string, expected: string): number {
  return boundedMatch(expected, output).matched ? PASS : FAIL;
}

export interface Aggregate {
  scorer: Scorer;
  /** Mean of the non-null scores (1-5); null before any case is scored. */
  avgScore: number | null;
  /** Match scorers: ((avgScore - 1) / 4) x 100, the pass rate in percent; null for llm-judge. */
  passRate: number | null;
  /** The run's headline figure: avgScore for llm-judge, passRate for the match scorers. */
  score: number | null;
  scoredCases: number;
}

export function aggregate(scorer: Scorer, scoreSum: number, scoredCases: number): Aggregate {
  const avgScore = scoredCases > 0 ? scoreSum / scoredCases : null;
  const passRate = scorer === 'llm-judge' || avgScore === null ? null : ((avgScore - 1) / 4) * 100;
  return { scorer, avgScore, passRate, score: scorer === 'llm-judge' ? avgScore : passRate, scoredCases };
}
