// Feature extraction: what one message's text shows, read in a single pass by scanner.ts.
//
// Long texts are read through a head and a tail window only. The request usually sits at the
// start or the end; what lies between is pasted material, and its length is known without
// reading it. ask.ts then tells the request from the material: cues in the request count in
// full, cues in material are damped, so a pasted article's vocabulary cannot outvote the
// "summarize" above it.

import { Para, pickAsk } from './ask.js';
import { N_TASKS } from './cues.js';
import { beginScan, endScan, scanRange, skipGap } from './scanner.js';
import { TextSignals } from './text-signals.js';

export { TextSignals } from './text-signals.js';

/**
 * Material evidence is scaled by 1 / (1 + words / MATERIAL_DAMP_WORDS) and capped per task:
 * pasted text tells the topic, not what is asked of it, and a topic word repeated fifty times
 * in an article must not outvote one "summarize".
 */
const MATERIAL_DAMP_WORDS = 50;
const MATERIAL_CAP = 2.5;
/** Average characters per word, for turning lengths into word counts without counting. */
export const CHARS_PER_WORD = 5.5;

/** The request's prose statistics, reused across calls. */
const ask = new Para();

function isBoundary(c: number): boolean {
  return c === 10 || c === 32 || c === 9;
}

/**
 * Reads one message's text: all of it when it fits in `head + tail` characters, else the first
 * `head` and the last `tail` characters (each cut at a line or word boundary).
 */
export function scanText(text: string, head: number, tail: number): TextSignals {
  const out = new TextSignals();
  beginScan(out);

  const len = text.length;
  out.chars = len;
  if (len <= head + tail) {
    scanRange(text, 0, len);
    out.scanned = len;
  } else {
    let headEnd = head;
    while (headEnd < len && headEnd < head + 200 && !isBoundary(text.charCodeAt(headEnd))) headEnd++;
    scanRange(text, 0, headEnd);
    skipGap();
    let tailStart = len - tail;
    const nl = text.indexOf('\n', tailStart);
    if (nl !== -1 && nl - tailStart < 300) tailStart = nl + 1;
    else while (tailStart < len && !isBoundary(text.charCodeAt(tailStart))) tailStart++;
    scanRange(text, tailStart, len);
    out.scanned = headEnd + (len - tailStart);
  }
  const { layout, codeTask, codeChars } = endScan(out.scanned === len);
  ask.reset();
  pickAsk(layout, ask);
  const total = layout.total;

  out.askChars = ask.proseChars;
  out.materialChars = Math.max(0, len - ask.proseChars);
  out.askCx = ask.cx;
  out.askHard = ask.hard;
  out.askCommas = ask.commas;
  out.askSentences = ask.sentences;
  out.askQuestions = ask.questions;
  out.askListItems = ask.listItems;
  // Material: the prose that is not the ask, and the code, each damped by its size.
  const materialWords = Math.max(0, len - ask.proseChars - codeChars) / CHARS_PER_WORD;
  const materialDamp = 1 / (1 + materialWords / MATERIAL_DAMP_WORDS);
  const codeDamp = 1 / (1 + codeChars / CHARS_PER_WORD / MATERIAL_DAMP_WORDS);
  for (let k = 0; k < N_TASKS; k++) {
    const material = (total.task[k]! - ask.task[k]!) * materialDamp + codeTask[k]! * codeDamp;
    out.task[k] = ask.task[k]! + Math.max(-MATERIAL_CAP, Math.min(MATERIAL_CAP, material));
  }

  let e = len - 1;
  while (e >= 0 && text.charCodeAt(e) <= 32) e--;
  out.endsWithQuestion = e >= 0 && text.charCodeAt(e) === 63;
  return out;
}
