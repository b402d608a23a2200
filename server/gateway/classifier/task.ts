// Code shape: coding evidence from the shape of a text, whatever its words. The task type itself
// is decided by the learned model (model.ts); complexity.ts and the context reading in index.ts
// use this to tell that a turn holds code.

import type { TextSignals } from './signals.js';

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
