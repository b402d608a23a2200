// The character-level state machine behind scanText: one pass over the characters, with no
// regular expressions and no substrings. Words are hashed as they are read and looked up in the
// compiled lexicon (phrases of two and three words through rolling keys). The same pass counts the
// shapes that give code away (fences, code-looking lines, `file.ext:12` references, diff and
// shell lines, identifiers, operators, calls) and collects the line and paragraph statistics
// that ask.ts needs to tell the request from pasted material.
//
// Classification is synchronous, so the state is module-level and reused: nothing is allocated
// per character or per word.

import { type Layout, Para, PASTE_CHARS } from './ask.js';
import {
  APOS,
  CHAR_CLASS,
  FNV_PRIME,
  HASH_SEED,
  LOWER,
  NON_WORD,
  N_TASKS,
  UNDERSCORE,
  UPPER,
  bigrams,
  type Cue,
  isWordCode,
  pairKey,
  trigrams,
  unigrams,
  wideClass,
} from './cues.js';
import { QA } from './lexicon.js';
import type { TextSignals } from './text-signals.js';

/** Where counts go; set by beginScan. */
let out!: TextSignals;
/** The line being read; swapped with lastLine when committed instead of copied. */
let line = new Para();
let lastLine = new Para();
const firstLine = new Para();
const firstPara = new Para();
const lastPara = new Para();
const cur = new Para();
const total = new Para();
const spoken = new Para();
const colonHead = new Para();
const codeTask = new Float64Array(N_TASKS);
const layout: Layout = {
  firstLine,
  lastLine,
  firstPara,
  lastPara,
  total,
  spoken,
  paraCount: 0,
  proseLineCount: 0,
  codeChars: 0,
  complete: true,
};
let paraCount = 0;
/** The previous paragraph was a request ending in a colon: what follows is what it is about. */
let introduced = false;
let proseLineCount = 0;
let codeChars = 0;
let inFence = false;

// line state
let lineStartIdx = 0;
let lineHasText = false;
let lineIndent = 0;
let lineIsList = false;
let lineIsSpecial = false; // fence, diff or shell line
let lineKw = 0;
let lineOps = 0; // in halves (2 for an operator such as ==, 1 for a lone =), so it stays an integer
let lineCalls = 0;
let lineIdents = 0;
let lineRefs = 0;
let lineLineRefs = 0;
let lineBraces = 0;
let lineKeyColon = false;
let inTick = false; // inside `inline code`: its symbols do not make the line code
/** Where "Summarize this:" ends on a line that goes on with the pasted text (0: no such colon). */
let colonAt = 0;
let lastNonSpace = 0;

// word and sentence state
let prev1 = 0;
let prev2 = 0;
let prevHead2 = false;
let prevHead3 = false;
let prevMid3 = false;
let prev2Head3 = false;
let posInSentence = 0;
let wordInLine = 0;
let extPending = false;

function applyCue(cue: Cue, pos: number): void {
  const t = line.task;
  const w = cue.task;
  if (w !== null) {
    t[0]! += w[0]!;
    t[1]! += w[1]!;
    t[2]! += w[2]!;
    t[3]! += w[3]!;
    t[4]! += w[4]!;
  }
  if (cue.startQa !== 0) t[QA]! += pos <= 1 ? cue.startQa : cue.startQa * 0.33;
  line.cx += cue.cx;
  line.hard += cue.hard;
  if (cue.req) line.req++;
  if (cue.err) out.errorWords++;
}

function endWord(
  text: string,
  key: number,
  start: number,
  len: number,
  firstLower: boolean,
  camel: boolean,
  underscore: boolean,
): void {
  if (!inTick && ((underscore && len > 2) || (camel && firstLower && len >= 4))) lineIdents++;
  extPending = false;
  let head2 = false;
  let head3 = false;
  let mid3 = false;
  const cue = unigrams.get(key);
  if (cue !== undefined) {
    applyCue(cue, posInSentence);
    if (wordInLine === 0 && cue.lineStart !== 0) lineKw = cue.lineStart;
    if (cue.ext && start >= 2 && text.charCodeAt(start - 1) === 46 && isWordCode(text.charCodeAt(start - 2))) {
      lineRefs++;
      out.fileRefs++;
      extPending = true;
    }
    // Phrases are looked up only when the words before can start one.
    if (cue.tail) {
      if (prevHead2) {
        const b = bigrams.get(pairKey(prev1, key));
        if (b !== undefined) applyCue(b, posInSentence - 1);
      }
      if (prevMid3 && prev2Head3) {
        const t = trigrams.get(pairKey(pairKey(prev2, prev1), key));
        if (t !== undefined) applyCue(t, posInSentence - 2);
      }
    }
    head2 = cue.head2;
    head3 = cue.head3;
    mid3 = cue.mid3;
  }
  prev2 = prev1;
  prev1 = key;
  prev2Head3 = prevHead3;
  prevHead3 = head3;
  prevHead2 = head2;
  prevMid3 = mid3;
  posInSentence++;
  wordInLine++;
}

function endSentence(): void {
  if (posInSentence >= 3) line.sentences++; // shorter ones are labels and fragments
  posInSentence = 0;
  prev1 = 0;
  prev2 = 0;
  prevHead2 = false;
  prevHead3 = false;
  prevMid3 = false;
  prev2Head3 = false;
}

function endLine(end: number): void {
  if (!lineHasText) {
    resetLine(end);
    endPara();
    return;
  }
  endSentence(); // a line break ends a sentence, for counting and for phrase matching
  const len = end - lineStartIdx;
  out.identifiers += lineIdents;
  out.operators += lineOps >> 1;
  out.calls += lineCalls;
  // How much the line looks like code. A file name alone does not make a line code.
  let score =
    0.5 * lineOps + 0.7 * lineCalls + 0.6 * lineIdents + lineKw + 0.8 * lineRefs + lineLineRefs + 0.3 * lineBraces;
  if (lastNonSpace === 59 || lastNonSpace === 123 || lastNonSpace === 125)
    score += 1; // ; { }
  else if (lastNonSpace === 41) score += 0.4; // )
  if (lineIndent >= 2) score += lineKeyColon ? 1.5 : lastNonSpace === 58 ? 1.2 : 0.7; // YAML `key:`, Python `for x in y:`
  if (inFence || lineIsSpecial || score >= 1.5) {
    out.codeLines++;
    codeChars += len;
    for (let k = 0; k < N_TASKS; k++) codeTask[k]! += line.task[k]!;
  } else {
    out.proseLines++;
    line.lines = 1;
    if (lineIsList) line.listItems = 1;
    if (colonAt > 0 && end - colonAt > PASTE_CHARS && line.req === colonHead.req) {
      // "Summarize this in one sentence: <pasted text>" on one line: two lines, request and
      // paste. Not when the text after the colon speaks to the assistant too ("Design X: it
      // must ..., compare ..." is all request).
      line.sub(colonHead);
      line.proseChars = end - colonAt;
      line.listItems = 0;
      line.lastChar = lastNonSpace;
      commitLine(colonHead);
    } else {
      line.proseChars = len;
      line.lastChar = lastNonSpace;
    }
    commitLine(line);
  }
  resetLine(end);
}

function commitLine(p: Para): void {
  if (proseLineCount++ === 0) firstLine.copy(p);
  cur.add(p);
  if (p === line) {
    const done = line;
    line = lastLine;
    lastLine = done;
  } else {
    lastLine.copy(p);
  }
}

function resetLine(end: number): void {
  line.reset();
  lineStartIdx = end;
  lineHasText = false;
  lineIndent = 0;
  lineIsList = false;
  lineIsSpecial = false;
  lineKw = 0;
  lineOps = 0;
  lineCalls = 0;
  lineIdents = 0;
  lineRefs = 0;
  lineLineRefs = 0;
  lineBraces = 0;
  lineKeyColon = false;
  inTick = false;
  colonAt = 0;
  lastNonSpace = 0;
  wordInLine = 0;
}

function endPara(): void {
  if (cur.proseChars === 0) return;
  if (paraCount++ === 0) firstPara.copy(cur);
  lastPara.copy(cur);
  total.add(cur);
  const request = cur.isRequest();
  if (request || (cur.proseChars <= PASTE_CHARS && !introduced)) spoken.add(cur);
  introduced = request && cur.lastChar === 58;
  cur.reset();
}

/** Reads the start of a line: indentation, list markers, fences, diff and shell prompts. */
function lineHead(text: string, i: number, to: number): number {
  let indent = 0;
  let j = i;
  while (j < to) {
    const c = text.charCodeAt(j);
    if (c === 32) indent++;
    else if (c === 9) indent += 2;
    else if (c !== 13) break;
    j++;
  }
  lineIndent = indent;
  if (j >= to) return j;
  const c0 = text.charCodeAt(j);
  if (c0 === 10) return j;
  const c1 = text.charCodeAt(j + 1);
  const c2 = text.charCodeAt(j + 2);
  if ((c0 === 96 && c1 === 96 && c2 === 96) || (c0 === 126 && c1 === 126 && c2 === 126)) {
    // ``` ~~~
    out.fences++;
    inFence = !inFence;
    lineIsSpecial = true;
    lineHasText = true;
    return j + 3;
  }
  if ((c0 === 45 || c0 === 42 || c0 === 0x2022) && c1 === 32)
    lineIsList = true; // - * •
  else if (c0 >= 48 && c0 <= 57) {
    // 1. 2)
    let k = j + 1;
    while (k < to && text.charCodeAt(k) >= 48 && text.charCodeAt(k) <= 57) k++;
    const d = text.charCodeAt(k);
    if ((d === 46 || d === 41) && text.charCodeAt(k + 1) === 32) lineIsList = true;
  } else if ((c0 === 36 && c1 === 32) || (c0 === 62 && c1 === 62 && c2 === 62)) {
    // "$ " ">>>"
    out.shellLines++;
    lineIsSpecial = true;
  } else if (
    (c0 === 64 && c1 === 64) || // @@
    (c0 === 43 && c1 === 43 && c2 === 43) || // +++
    (c0 === 45 && c1 === 45 && c2 === 45 && text.charCodeAt(j + 3) === 32) || // "--- "
    (c0 === 100 && c1 === 105 && c2 === 102 && text.charCodeAt(j + 3) === 102 && text.charCodeAt(j + 4) === 32)
  ) {
    // "diff "
    out.diffLines++;
    lineIsSpecial = true;
  }
  return j;
}

/** Reads text[from, to). */
export function scanRange(text: string, from: number, to: number): void {
  // Imported bindings are read through module cells on every access; the hot loop uses locals.
  const classOf = CHAR_CLASS;
  const seed = HASH_SEED;
  const prime = FNV_PRIME;
  const nonWord = NON_WORD;
  const apos = APOS;
  const upper = UPPER;
  const lower = LOWER;
  const underscoreClass = UNDERSCORE;
  let i = from;
  let atLineStart = true;
  lineStartIdx = from;
  while (i < to) {
    if (atLineStart) {
      atLineStart = false;
      i = lineHead(text, i, to);
      continue;
    }
    const raw = text.charCodeAt(i);
    const cls = raw < 128 ? classOf[raw]! : wideClass(raw);
    if (cls !== nonWord && cls !== apos) {
      // A word: hashed in this tight loop with everything in locals (a 32-bit hash kept in a
      // module binding would be boxed on every write), then looked up once.
      const start = i;
      let hash = seed;
      let camel = false;
      let underscore = false;
      let prevLow = false;
      let c = raw;
      let k = cls;
      for (;;) {
        if (k === upper) {
          if (prevLow) camel = true;
          hash = Math.imul(hash ^ (c + 32), prime);
          prevLow = false;
        } else {
          hash = Math.imul(hash ^ (k === apos ? 39 : c), prime);
          prevLow = k === lower;
          if (k === underscoreClass && i > start) underscore = true;
        }
        if (++i >= to) break;
        c = text.charCodeAt(i);
        k = c < 128 ? classOf[c]! : wideClass(c);
        if (k === nonWord) break;
      }
      lineHasText = true;
      lastNonSpace = text.charCodeAt(i - 1);
      endWord(text, hash & 0x3fffffff || 1, start, i - start, cls === lower, camel, underscore); // finishKey, inlined
      continue;
    }
    if (raw === 32) {
      i++;
      continue;
    } // the commonest character, and nothing to do
    const next = i + 1 < to ? text.charCodeAt(i + 1) : 0;
    if (inTick && raw !== 96 && raw !== 10) {
      lineHasText = true;
      lastNonSpace = raw;
      i++;
      continue;
    }
    switch (raw) {
      case 10:
        endLine(i + 1);
        atLineStart = true;
        break;
      case 9:
      case 13:
        break;
      case 63: // ?
        line.questions++;
        endSentence();
        break;
      case 46: // .
        if (next === 32 || next === 10 || next === 0 || next === 13 || next === 34 || next === 41 || next === 39)
          endSentence();
        else if (
          i > 0 &&
          ((next >= 97 && next <= 122) || (next >= 65 && next <= 90)) &&
          isWordCode(text.charCodeAt(i - 1)) &&
          isWordCode(text.charCodeAt(i + 2))
        )
          lineIdents++; // a.member
        break;
      case 33: // !
        if (next === 61) lineOps += 2;
        else endSentence();
        break;
      case 44:
        line.commas++;
        break;
      case 40: // (
        if (i > 0 && isWordCode(text.charCodeAt(i - 1))) lineCalls++;
        break;
      case 123:
      case 125:
      case 59:
        lineBraces++;
        break;
      case 96: // `
        if (next === 96 && text.charCodeAt(i + 2) === 96) {
          out.fences++;
          inFence = !inFence;
          i += 2;
        } else {
          out.inlineCode += 0.5;
          inTick = !inTick;
        }
        break;
      case 61: {
        // = == =>
        const prev = text.charCodeAt(i - 1);
        if (next === 61 || next === 62) lineOps += 2;
        else if (prev !== 61 && prev !== 60 && prev !== 62 && prev !== 33) lineOps += 1;
        break;
      }
      case 58: // :
        if (wordInLine === 1 && i > 0 && isWordCode(text.charCodeAt(i - 1))) lineKeyColon = true;
        if (colonAt === 0 && (next === 32 || next === 10) && line.req > 0 && i - lineStartIdx <= 150 && !inFence) {
          endSentence();
          colonHead.copy(line);
          colonHead.proseChars = i + 1 - lineStartIdx;
          colonHead.lines = 1;
          colonHead.lastChar = 58;
          if (lineIsList) colonHead.listItems = 1;
          colonAt = i + 1;
        }
        if (next === 58 || next === 61) lineOps += 2;
        else if (extPending && ((next >= 48 && next <= 57) || next === 108)) {
          out.fileLineRefs++;
          lineLineRefs++;
        } // :12, :line 12
        break;
      case 45:
        if (next === 62) lineOps += 2;
        break; // ->
      case 38:
        if (next === 38) lineOps += 2;
        break; // &&
      case 124:
        if (next === 124) lineOps += 2;
        break; // ||
      case 43:
        if (next === 61) lineOps += 2;
        break; // +=
      case 60:
        if (next === 47) lineOps += 2;
        break; // </
      case 47:
        if (next === 62) lineOps += 2;
        break; // />
    }
    if (raw !== 9 && raw !== 13 && raw !== 10) {
      lineHasText = true;
      lastNonSpace = raw;
    }
    if (raw !== 58) extPending = false;
    i++;
  }
  endLine(to);
}

/** Starts reading a new text; counts go to `signals`. */
export function beginScan(signals: TextSignals): void {
  out = signals;
  firstLine.reset();
  lastLine.reset();
  firstPara.reset();
  lastPara.reset();
  cur.reset();
  total.reset();
  spoken.reset();
  codeTask.fill(0);
  paraCount = 0;
  introduced = false;
  proseLineCount = 0;
  codeChars = 0;
  inFence = false;
  endSentence();
  extPending = false;
  resetLine(0);
}

/** Between the head and the tail window: what was cut leaves a paragraph break, and no open fence. */
export function skipGap(): void {
  endPara();
  inFence = false;
  endSentence();
}

/** Ends the text and returns its layout, with the lexical evidence of its code lines. */
export function endScan(complete: boolean): { layout: Layout; codeTask: Float64Array; codeChars: number } {
  endPara();
  layout.lastLine = lastLine;
  layout.paraCount = paraCount;
  layout.proseLineCount = proseLineCount;
  layout.codeChars = codeChars;
  layout.complete = complete;
  return { layout, codeTask, codeChars };
}
