// Task type from the scanned turns: weighted lexical evidence plus code shape, the latest user
// turn weighing most, then a softmax whose top probability is the confidence.

import type { TaskType } from '../types.js';
import { CODING, GENERAL, QA, SUMMARIZATION, TEXT_TASKS } from './lexicon.js';
import type { TextSignals } from './signals.js';

const N = TEXT_TASKS.length;

/** General is the fallback: a request with no evidence for anything else is general. */
const GENERAL_PRIOR = 1;
/** Softmax temperature; tuned so confidence tracks the accuracy seen on the labelled corpus. */
const TEMPERATURE = 1;

export interface Turn {
  signals: TextSignals;
  /** How much this turn counts: 1 for the latest user turn, less for context. */
  weight: number;
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

export function scoreTask(latest: TextSignals, turns: readonly Turn[]): TaskResult {
  const scores = new Float64Array(N);
  scores[GENERAL] = GENERAL_PRIOR;
  for (const t of turns) {
    const s = t.signals;
    for (let k = 0; k < N; k++) scores[k]! += t.weight * s.task[k]!;
    scores[CODING]! += t.weight * codeShape(s);
  }
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
