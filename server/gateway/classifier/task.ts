// Task type from the scanned turns: weighted lexical evidence plus code shape, the latest user
// turn weighing most, then a softmax whose top probability is the confidence.

import type { TaskType } from '../types.js';
import { CODING, GENERAL, QA, SUMMARIZATION, TEXT_TASKS } from './lexicon.js';
import type { TextSignals } from './signals.js';

const N = TEXT_TASKS.length;

/** General is the fallback: a request with no evidence for anything else is general. */
const GENERAL_PRIOR = 1;
/** Softmax temperature. */
const TEMPERATURE = 1;
/**
 * Context counts in full when the latest turn says little ("make it faster") and fades as the
 * latest turn's own evidence grows: at this much evidence it counts half, so "now write me a
 * haiku" after a coding chat is creative.
 */
const CONTEXT_HALF_AT = 4;

export interface Turn {
  signals: TextSignals;
  /** How much this turn counts: 1 for the latest user turn, less for context. */
  weight: number;
  /**
   * The most this turn adds to any one task's score. Scaling alone is not enough: a long system
   * prompt full of one task's vocabulary would still decide, and it should only nudge.
   */
  cap: number;
}

/** Coding evidence from the shape of the text, whatever its words: fences, code lines, traces. */
export function codeShape(s: TextSignals): number {
  let v = 0;
  if (s.fences > 0) v += 2.5;
  v += 0.3 * Math.min(s.codeLines, 30);
  v += Math.min(s.fileRefs, 4) + 0.5 * Math.min(s.fileLineRefs, 4);
  if (s.diffLines > 0) v += 2;
  if (s.shellLines > 0) v += 1.5;
  v += 0.35 * Math.min(s.identifiers, 10) + 0.35 * Math.min(s.operators, 10) + 0.3 * Math.min(s.calls, 10);
  v += 1.5 * Math.min(s.inlineCode, 3); // `inline code` spans
  return Math.min(v, 8);
}

export interface TaskResult {
  taskType: Exclude<TaskType, 'vision'>;
  confidence: number;
  scores: Float64Array;
}

/** `turns[0]` is the latest user turn; the rest are context. */
export function scoreTask(latest: TextSignals, turns: readonly Turn[]): TaskResult {
  const scores = new Float64Array(N);
  const latestShape = codeShape(latest);
  let strength = latestShape + latest.task[CODING]!;
  for (let k = 1; k < N; k++) if (latest.task[k]! > strength) strength = latest.task[k]!;
  const contextFactor = 1 / (1 + Math.max(0, strength) / CONTEXT_HALF_AT);
  for (let i = 0; i < turns.length; i++) {
    const t = turns[i]!;
    const s = t.signals;
    const shape = i === 0 ? latestShape : codeShape(s);
    const f = i === 0 ? 1 : contextFactor;
    for (let k = 0; k < N; k++) {
      const v = t.weight * (s.task[k]! + (k === CODING ? shape : 0));
      scores[k]! += f * Math.min(v, t.cap);
    }
  }
  scores[GENERAL]! += GENERAL_PRIOR;
  // "summarize" over a long paste is about as certain as it gets.
  if (latest.materialChars >= 600 && latest.task[SUMMARIZATION]! >= 2) scores[SUMMARIZATION]! += 1.5;
  // A short question with no code in it leans factual.
  if (latest.endsWithQuestion && latest.chars < 200 && codeShape(latest) < 1) scores[QA]! += 0.5;

  let best = GENERAL;
  for (let k = 0; k < N; k++) if (scores[k]! > scores[best]!) best = k;
  let z = 0;
  for (let k = 0; k < N; k++) z += Math.exp((scores[k]! - scores[best]!) / TEMPERATURE);
  return { taskType: TEXT_TASKS[best]!, confidence: 1 / z, scores };
}
