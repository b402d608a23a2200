// Complexity from the request itself: how long the ask is, how many constraints and parts it
// has, how much material or code comes with it, and words that ask for design, proof or
// comparison (up) or for brevity (down). The weighted sum is cut at two thresholds; the
// confidence grows with the distance from the nearest one.

import type { Complexity } from '../types.js';
import { CHARS_PER_WORD, type TextSignals } from './signals.js';
import { codeShape } from './task.js';

/** Feature weights and thresholds, fitted on the labelled corpus (test/fixtures/classifier). */
export const WEIGHTS = {
  askLength: 1.3, // per doubling of the ask's words (log2(1 + words / 6))
  commas: 0.45, // each comma in the ask: lists of requirements
  cues: 0.6, // words for the shape of the ask (COMPLEXITY_CUES)
  hard: 1.3, // words for a hard kind of ask (HARD_ASK_CUES)
  sentences: 0.4, // each sentence of the ask after the first
  listItems: 0.5, // each list item in the ask
  questions: 0.4, // each question of the ask after the first
  material: 1.4, // per doubling of pasted material (log2(1 + words / 150))
  code: 0.3, // per doubling of code lines (log2(1 + lines / 6))
  debugging: 0.35, // a trace or a code paste: at least some work to read it
  previous: 0.2, // share of the previous user turn's score: follow-ups inherit weight
  images: 0.5, // each image after the first
  codeContext: 1.6, // earlier turns hold code: a follow-up edits existing code
};
export const THRESHOLDS = { simpleBelow: 2.6, complexFrom: 5.5 };
/**
 * Confidence at a threshold. A complexity miss is off by one level, and on the labelled corpus
 * even scores right at a threshold are right about three times in four, so this starts well
 * above a coin flip; it rises towards 0.95 with the distance from the nearest threshold.
 */
const BOUNDARY_CONFIDENCE = 0.55;

export interface ComplexityContext {
  /** Score of the previous user turn (0 when there is none). */
  previousScore: number;
  images: number;
  /** Some earlier turn holds code. */
  codeContext: boolean;
}

export function complexityScore(s: TextSignals, ctx: ComplexityContext): number {
  const w = WEIGHTS;
  let v = w.askLength * Math.log2(1 + s.askChars / CHARS_PER_WORD / 6);
  v += w.commas * Math.min(s.askCommas, 12);
  v += w.cues * Math.max(-3, Math.min(6, s.askCx));
  v += w.hard * Math.min(6, s.askHard);
  v += w.sentences * Math.min(Math.max(0, s.askSentences - 1), 6);
  v += w.listItems * Math.min(s.askListItems, 8);
  v += w.questions * Math.min(Math.max(0, s.askQuestions - 1), 4);
  v += w.material * Math.log2(1 + s.materialChars / CHARS_PER_WORD / 150);
  v += w.code * Math.log2(1 + s.codeLines / 6);
  if (s.fileRefs > 0 || s.errorWords > 0 || codeShape(s) >= 3) v += w.debugging;
  v += w.previous * Math.min(ctx.previousScore, 5);
  if (ctx.images > 1) v += w.images * (ctx.images - 1);
  if (ctx.codeContext) v += w.codeContext;
  return v;
}

export function complexityOf(score: number): { complexity: Complexity; confidence: number } {
  const { simpleBelow, complexFrom } = THRESHOLDS;
  let complexity: Complexity;
  let d: number;
  if (score < simpleBelow) {
    complexity = 'simple';
    d = simpleBelow - score;
  } else if (score >= complexFrom) {
    complexity = 'complex';
    d = score - complexFrom;
  } else {
    complexity = 'medium';
    d = Math.min(score - simpleBelow, complexFrom - score);
  }
  return { complexity, confidence: BOUNDARY_CONFIDENCE + (1 - BOUNDARY_CONFIDENCE - 0.05) * Math.tanh(d / 1.5) };
}
