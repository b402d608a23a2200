// Feature extraction: one pass over the characters of a message, no regular expressions, no
// substrings. Words are hashed as they are read and looked up in the compiled lexicon (phrases of
// two and three words through rolling keys), while the same pass counts the shapes that give
// code away: fences, code-looking lines, `file.ext:12` references, diff and shell lines,
// identifiers, operators and calls.
//
// Long texts are read through a head and a tail window only: the request usually sits at the
// start or the end, and what lies between is pasted material whose size we know from its length.
//
// The text is cut into paragraphs (blank lines). The first and the last short paragraphs of a
// long message are taken as the request ("the ask"); everything else is material. Cues in the
// ask count in full; cues in material are damped by its size, so a pasted article's vocabulary
// cannot outvote a "summarize this" above it.

import {
  CODE_EXTENSIONS, CODING_CUES, COMPLEXITY_CUES, CREATIVE_CUES, GENERAL_CUES, LINE_START_KEYWORDS,
  ERROR_WORDS, QA_CUES, QA_START_CUES, REQUEST_CUES, SUMMARIZATION_CUES, CODING, CREATIVE, GENERAL, QA, SUMMARIZATION, TEXT_TASKS,
} from './lexicon.js';

const N = TEXT_TASKS.length;

/** A message shorter than this (prose plus code) is all ask. */
const WHOLE_ASK_CHARS = 900;
/** A first or last paragraph counts as the ask when at most this long (and it reads as a request). */
const ASK_PARA_CHARS = 700;
/** Failing that, its first or last line, when at most this long. */
const ASK_LINE_CHARS = 300;
/** Prose longer than this after a request line, or a paragraph this long with no request marker, reads as pasted. */
const SPLIT_REST_CHARS = 200;
/**
 * Material evidence is scaled by 1 / (1 + words / MATERIAL_DAMP_WORDS) and capped per task:
 * pasted text tells the topic, not what is asked of it, and a topic word repeated fifty times
 * in an article must not outvote one "summarize".
 */
const MATERIAL_DAMP_WORDS = 50;
const MATERIAL_CAP = 2.5;
/** Average characters per word, for turning lengths into word counts without counting. */
export const CHARS_PER_WORD = 5.5;

// ---------------------------------------------------------------------------------------------
// Lexicon compilation (once, at module load)

interface Cue {
  task: Float64Array | null;
  /** QA-opener weight: full near the start of a sentence, a third elsewhere. */
  startQa: number;
  cx: number;
  lineStart: number;
  ext: boolean;
  /** Marks a request said to the assistant (see REQUEST_CUES). */
  req: boolean;
  err: boolean;
  /** Last word of some multi-word phrase: look the phrase keys up when this word is read. */
  tail: boolean;
}

const MASK = 0x3fffffff; // keep keys in the small-integer range, which Map handles fastest

function pairKey(a: number, b: number): number {
  return (Math.imul(a, 0x9e3779b1) ^ b) & MASK;
}

function isWordCode(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 39 || c === 0x2019 || (c >= 0xc0 && c < 0x2000);
}

function foldChar(c: number): number {
  if (c >= 65 && c <= 90) return c + 32;
  if (c === 0x2019) return 39;
  return c;
}

const FNV_PRIME = 0x01000193;
const HASH_SEED = 0x811c9dc5 | 0;
function hashStep(h: number, c: number): number {
  return Math.imul(h ^ c, FNV_PRIME);
}

// Character classes for the scanner; everything at or above 0xC0 up to the punctuation block
// counts as a letter, so accented and non-Latin words are words too.
const NON_WORD = 0;
const LOWER = 1;
const UPPER = 2;
const DIGIT = 3;
const UNDERSCORE = 4;
const APOS = 5;
const CHAR_CLASS = new Uint8Array(128);
for (let c = 97; c <= 122; c++) CHAR_CLASS[c] = LOWER;
for (let c = 65; c <= 90; c++) CHAR_CLASS[c] = UPPER;
for (let c = 48; c <= 57; c++) CHAR_CLASS[c] = DIGIT;
CHAR_CLASS[95] = UNDERSCORE;
CHAR_CLASS[39] = APOS;
function wideClass(c: number): number {
  if (c === 0x2019) return APOS;
  return c >= 0xc0 && c < 0x2000 ? LOWER : NON_WORD;
}

function wordHashes(phrase: string): number[] {
  const out: number[] = [];
  let h = HASH_SEED;
  let len = 0;
  for (let i = 0; i <= phrase.length; i++) {
    const c = i < phrase.length ? phrase.charCodeAt(i) : 32;
    if (isWordCode(c) && !(len === 0 && (c === 39 || c === 0x2019))) {
      h = hashStep(h, foldChar(c));
      len++;
    } else if (len > 0) {
      out.push(h & MASK);
      h = HASH_SEED;
      len = 0;
    }
  }
  return out;
}

const uni = new Map<number, Cue>();
const bi = new Map<number, Cue>();
const tri = new Map<number, Cue>();

function cueFor(phrase: string): Cue {
  const hs = wordHashes(phrase);
  if (hs.length === 0 || hs.length > 3) throw new Error(`classifier lexicon: bad phrase "${phrase}"`);
  let map = uni;
  let key = hs[0]!;
  if (hs.length === 2) { map = bi; key = pairKey(hs[0]!, hs[1]!); }
  if (hs.length === 3) { map = tri; key = pairKey(pairKey(hs[0]!, hs[1]!), hs[2]!); }
  let cue = map.get(key);
  if (!cue) {
    cue = { task: null, startQa: 0, cx: 0, lineStart: 0, ext: false, req: false, err: false, tail: false };
    map.set(key, cue);
  }
  if (hs.length > 1) {
    const last = hs[hs.length - 1]!;
    let tailCue = uni.get(last);
    if (!tailCue) {
      tailCue = { task: null, startQa: 0, cx: 0, lineStart: 0, ext: false, req: false, err: false, tail: false };
      uni.set(last, tailCue);
    }
    tailCue.tail = true;
  }
  return cue;
}

function addTask(table: Record<string, number>, index: number): void {
  for (const [phrase, w] of Object.entries(table)) {
    const cue = cueFor(phrase);
    cue.task ??= new Float64Array(N);
    cue.task[index]! += w;
  }
}

addTask(CODING_CUES, CODING);
addTask(CREATIVE_CUES, CREATIVE);
addTask(SUMMARIZATION_CUES, SUMMARIZATION);
addTask(QA_CUES, QA);
addTask(GENERAL_CUES, GENERAL);
for (const [phrase, w] of Object.entries(QA_START_CUES)) cueFor(phrase).startQa += w;
for (const [phrase, w] of Object.entries(COMPLEXITY_CUES)) cueFor(phrase).cx += w;
for (const [word, w] of Object.entries(LINE_START_KEYWORDS)) cueFor(word).lineStart = w;
for (const ext of CODE_EXTENSIONS) cueFor(ext).ext = true;
for (const phrase of REQUEST_CUES) cueFor(phrase).req = true;
for (const phrase of ERROR_WORDS) cueFor(phrase).err = true;

/** One bit per possible low 16 bits of a word key: most words are in no cue and skip the Map. */
const CUE_FILTER = new Uint32Array(2048);
for (const key of uni.keys()) CUE_FILTER[key >>> 5 & 2047]! |= 1 << (key & 31);

// ---------------------------------------------------------------------------------------------
// Output

/** What one message's text shows. Counts are over the scanned windows; `chars` is the full length. */
export class TextSignals {
  chars = 0;
  scanned = 0;
  words = 0;
  /** Lexical evidence per text task: the ask in full, material damped by its size. */
  readonly task = new Float64Array(N);
  /** Characters of the request itself, and of everything else (pasted text and code). */
  askChars = 0;
  materialChars = 0;
  /** Shape of the ask: complexity cues, commas, sentences, questions, list items. */
  askCx = 0;
  askCommas = 0;
  askSentences = 0;
  askQuestions = 0;
  askListItems = 0;
  fences = 0;
  codeLines = 0;
  proseLines = 0;
  fileRefs = 0;
  fileLineRefs = 0;
  diffLines = 0;
  shellLines = 0;
  identifiers = 0;
  operators = 0;
  calls = 0;
  inlineCode = 0;
  /** Words of failure output (error, exception, traceback...). */
  errorWords = 0;
  endsWithQuestion = false;
}

// ---------------------------------------------------------------------------------------------
// Scanner state. Classification is synchronous, so one module-level scanner is reused.

/** Prose statistics of a line, a paragraph, or a sum of them. */
class Para {
  proseChars = 0;
  cx = 0;
  commas = 0;
  sentences = 0;
  questions = 0;
  listItems = 0;
  lines = 0;
  req = 0;
  lastChar = 0;
  readonly task = new Float64Array(N);
  reset(): void {
    this.proseChars = 0; this.cx = 0; this.commas = 0; this.sentences = 0; this.questions = 0; this.listItems = 0;
    this.lines = 0; this.req = 0; this.lastChar = 0;
    const t = this.task; // five elements: plain stores beat fill()
    t[0] = 0; t[1] = 0; t[2] = 0; t[3] = 0; t[4] = 0;
  }
  add(o: Para): void {
    this.proseChars += o.proseChars; this.cx += o.cx; this.commas += o.commas; this.sentences += o.sentences;
    this.questions += o.questions; this.listItems += o.listItems; this.lines += o.lines; this.req += o.req;
    if (o.proseChars > 0) this.lastChar = o.lastChar;
    for (let k = 0; k < N; k++) this.task[k]! += o.task[k]!;
  }
  sub(o: Para): void {
    this.proseChars -= o.proseChars; this.cx -= o.cx; this.commas -= o.commas; this.sentences -= o.sentences;
    this.questions -= o.questions; this.listItems -= o.listItems; this.lines -= o.lines; this.req -= o.req;
    for (let k = 0; k < N; k++) this.task[k]! -= o.task[k]!;
  }
  copy(o: Para): void {
    this.reset();
    this.add(o);
  }
  /** Looks like something said to the assistant rather than pasted in. */
  isRequest(): boolean {
    return this.req > 0 || this.lastChar === 63 || this.lastChar === 58; // ? :
  }
}

const line = new Para();
const firstLine = new Para();
const lastLine = new Para();
const firstPara = new Para();
const lastPara = new Para();
const cur = new Para();
const total = new Para();
/** Paragraphs that do not look pasted (short, or with a request marker). */
const spoken = new Para();
const ask = new Para();
const codeTask = new Float64Array(N);
let paraCount = 0;
/** The previous paragraph was a request ending in a colon: what follows is what it is about. */
let introduced = false;
let proseLineCount = 0;
let codeChars = 0;
let out = new TextSignals();

// line state
let lineStartIdx = 0;
let lineHasText = false;
let lineIndent = 0;
let lineIsList = false;
let lineIsSpecial = false; // fence, diff or shell line
let lineKw = 0;
let lineOps = 0; // in halves: 2 for an operator such as ==, 1 for a lone =
let lineCalls = 0;
let lineIdents = 0;
let lineRefs = 0;
let lineBraces = 0;
let lineLineRefs = 0;
let lineKeyColon = false;
let inTick = false; // inside `inline code`: its symbols do not make the line code
/** Where "Summarize this:" ends on a line that goes on with the pasted text (0: no such colon). */
let colonAt = 0;
const colonHead = new Para();
let lastNonSpace = 0;
let inFence = false;

// word / sentence state
let prev1 = 0;
let prev2 = 0;
let posInSentence = 0;
let wordInLine = 0;
let extPending = false;

function applyCue(cue: Cue, pos: number): void {
  const t = line.task;
  if (cue.task) for (let k = 0; k < N; k++) t[k]! += cue.task[k]!;
  if (cue.startQa !== 0) t[QA]! += pos <= 1 ? cue.startQa : cue.startQa * 0.33;
  line.cx += cue.cx;
  if (cue.req) line.req++;
  if (cue.err) out.errorWords++;
}

function endWord(text: string, key: number, wordStart: number, wordLen: number, firstLower: boolean, camel: boolean, underscore: boolean): void {
  out.words++;
  if (!inTick && ((underscore && wordLen > 2) || (camel && firstLower && wordLen >= 4))) lineIdents++;
  extPending = false;
  const cue = (CUE_FILTER[key >>> 5 & 2047]! >>> (key & 31)) & 1 ? uni.get(key) : undefined;
  if (cue !== undefined) {
    applyCue(cue, posInSentence);
    if (wordInLine === 0 && cue.lineStart !== 0) lineKw = cue.lineStart;
    if (cue.ext && wordStart >= 2 && text.charCodeAt(wordStart - 1) === 46 && isWordCode(text.charCodeAt(wordStart - 2))) {
      lineRefs++;
      out.fileRefs++;
      extPending = true;
    }
    if (cue.tail && prev1 !== 0) {
      const b = bi.get(pairKey(prev1, key));
      if (b !== undefined) applyCue(b, posInSentence - 1);
      if (prev2 !== 0) {
        const t = tri.get(pairKey(pairKey(prev2, prev1), key));
        if (t !== undefined) applyCue(t, posInSentence - 2);
      }
    }
  }
  prev2 = prev1;
  prev1 = key;
  posInSentence++;
  wordInLine++;
}

function endSentence(): void {
  if (posInSentence >= 3) line.sentences++;
  posInSentence = 0;
  prev1 = 0;
  prev2 = 0;
}

function endLine(end: number): void {
  if (!lineHasText) {
    resetLine(end);
    endPara();
    return;
  }
  endSentence(); // a line break ends a sentence, for counting and for phrase matching
  const len = end - lineStartIdx;
  let score = 0.5 * lineOps + 0.7 * lineCalls + 0.6 * lineIdents + lineKw + 0.8 * lineRefs + lineLineRefs + 0.3 * lineBraces;
  if (lastNonSpace === 59 || lastNonSpace === 123 || lastNonSpace === 125) score += 1; // ; { }
  else if (lastNonSpace === 41) score += 0.4; // )
  if (lineIndent >= 2) score += lineKeyColon ? 1.5 : lastNonSpace === 58 ? 1.2 : 0.7; // YAML `key:`, Python `for x in y:`
  if (inFence || lineIsSpecial || score >= 1.5) {
    out.codeLines++;
    codeChars += len;
    for (let k = 0; k < N; k++) codeTask[k]! += line.task[k]!;
  } else {
    out.proseLines++;
    line.lines = 1;
    if (lineIsList) line.listItems = 1;
    // (Only when nothing after the colon speaks to the assistant: "Design X: it must ..., compare ..." is all request.)
    if (colonAt > 0 && end - colonAt > SPLIT_REST_CHARS && line.req === colonHead.req) {
      // "Summarize this in one sentence: <pasted text>" on one line: two lines, request and paste.
      line.sub(colonHead);
      line.proseChars = end - colonAt;
      line.lines = 1;
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
  lastLine.copy(p);
  cur.add(p);
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
  lineBraces = 0;
  lineLineRefs = 0;
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
  if (request || (cur.proseChars <= SPLIT_REST_CHARS && !introduced)) spoken.add(cur);
  introduced = request && cur.lastChar === 58;
  cur.reset();
}

/** Looks at the start of a line (indentation, list markers, fences, diff and shell prompts). */
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
    out.fences++;
    inFence = !inFence;
    lineIsSpecial = true;
    lineHasText = true;
    return j + 3;
  }
  if ((c0 === 45 || c0 === 42 || c0 === 0x2022) && c1 === 32) lineIsList = true;
  else if (c0 >= 48 && c0 <= 57) {
    let k = j + 1;
    while (k < to && text.charCodeAt(k) >= 48 && text.charCodeAt(k) <= 57) k++;
    const d = text.charCodeAt(k);
    if ((d === 46 || d === 41) && text.charCodeAt(k + 1) === 32) lineIsList = true;
  } else if (c0 === 36 && c1 === 32) { out.shellLines++; lineIsSpecial = true; }
  else if (c0 === 62 && c1 === 62 && c2 === 62) { out.shellLines++; lineIsSpecial = true; }
  else if (c0 === 64 && c1 === 64) { out.diffLines++; lineIsSpecial = true; }
  else if ((c0 === 43 && c1 === 43 && c2 === 43) || (c0 === 45 && c1 === 45 && c2 === 45 && text.charCodeAt(j + 3) === 32)) {
    out.diffLines++; lineIsSpecial = true;
  } else if (c0 === 100 && c1 === 105 && c2 === 102 && text.charCodeAt(j + 3) === 102 && text.charCodeAt(j + 4) === 32) {
    out.diffLines++; lineIsSpecial = true;
  }
  return j;
}

function scanRange(text: string, from: number, to: number): void {
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
    const cls = raw < 128 ? CHAR_CLASS[raw]! : wideClass(raw);
    if (cls !== NON_WORD && cls !== APOS) {
      // A word: hash it in this tight loop, with everything in locals (a 32-bit hash stored in a
      // module binding would be boxed on every write), then look it up once.
      const start = i;
      const firstLower = cls === LOWER;
      let hash = HASH_SEED;
      let camel = false;
      let underscore = false;
      let prevLow = false;
      let c = raw;
      let k = cls;
      for (;;) {
        if (k === UPPER) {
          if (prevLow) camel = true;
          hash = Math.imul(hash ^ (c + 32), FNV_PRIME);
          prevLow = false;
        } else {
          hash = Math.imul(hash ^ (k === APOS ? 39 : c), FNV_PRIME);
          prevLow = k === LOWER;
          if (k === UNDERSCORE && i > start) underscore = true;
        }
        if (++i >= to) break;
        c = text.charCodeAt(i);
        k = c < 128 ? CHAR_CLASS[c]! : wideClass(c);
        if (k === NON_WORD) break;
      }
      lineHasText = true;
      lastNonSpace = text.charCodeAt(i - 1);
      endWord(text, hash & MASK, start, i - start, firstLower, camel, underscore);
      continue;
    }
    if (raw === 32) { i++; continue; } // the commonest character, and nothing to do
    const next = i + 1 < to ? text.charCodeAt(i + 1) : 0;
    const prevCode = i > 0 ? text.charCodeAt(i - 1) : 0;
    if (inTick && raw !== 96 && raw !== 10) {
      if (raw !== 32) { lineHasText = true; lastNonSpace = raw; }
      i++;
      continue;
    }
    switch (raw) {
      case 10:
        endLine(i + 1);
        atLineStart = true;
        break;
      case 32: case 9: case 13:
        break;
      case 63: // ?
        line.questions++;
        endSentence();
        break;
      case 46: // .
        if (next === 32 || next === 10 || next === 0 || next === 13 || next === 34 || next === 41 || next === 39) endSentence();
        else if (isWordCode(text.charCodeAt(i - 1)) && ((next >= 97 && next <= 122) || (next >= 65 && next <= 90)) && isWordCode(text.charCodeAt(i + 2))) lineIdents++;
        break;
      case 33: // !
        if (next === 61) lineOps += 2;
        else endSentence();
        break;
      case 44: line.commas++; break;
      case 40: // (
        if (i > 0 && isWordCode(text.charCodeAt(i - 1))) lineCalls++;
        break;
      case 123: case 125: case 59: lineBraces++; break;
      case 96: // `
        if (next === 96 && text.charCodeAt(i + 2) === 96) { out.fences++; inFence = !inFence; i += 2; }
        else { out.inlineCode += 0.5; inTick = !inTick; }
        break;
      case 61: // = == =>
        if (inTick) break;
        if (next === 61 || next === 62) lineOps += 2;
        else if (prevCode !== 61 && prevCode !== 60 && prevCode !== 62 && prevCode !== 33) lineOps += 1; // a lone =
        break;
      case 58: // :
        if (wordInLine === 1 && isWordCode(text.charCodeAt(i - 1))) lineKeyColon = true;
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
        else if (extPending && ((next >= 48 && next <= 57) || next === 108)) { out.fileLineRefs++; lineLineRefs++; } // :12 or :line 12
        break;
      case 45: if (next === 62) lineOps += 2; break; // ->
      case 38: if (next === 38) lineOps += 2; break; // &&
      case 124: if (next === 124) lineOps += 2; break; // ||
      case 43: if (next === 61) lineOps += 2; break; // +=
      case 60: if (next === 47) lineOps += 2; break; // </
      case 47: if (next === 62) lineOps += 2; break; // />
    }
    if (raw !== 32 && raw !== 9 && raw !== 13 && raw !== 10) {
      lineHasText = true;
      lastNonSpace = raw;
    }
    if (raw !== 58) extPending = false;
    i++;
  }
  endLine(to);
}

/**
 * Reads one message's text: all of it when it fits in `head + tail` characters, else the first
 * `head` and the last `tail` characters (each cut at a line or word boundary).
 */
export function scanText(text: string, head: number, tail: number): TextSignals {
  out = new TextSignals();
  firstLine.reset(); lastLine.reset(); firstPara.reset(); lastPara.reset(); cur.reset(); total.reset(); spoken.reset(); ask.reset();
  codeTask.fill(0);
  paraCount = 0;
  introduced = false;
  proseLineCount = 0;
  codeChars = 0;
  inFence = false;
  prev1 = 0; prev2 = 0; posInSentence = 0; extPending = false;
  resetLine(0);

  const len = text.length;
  out.chars = len;
  if (len <= head + tail) {
    scanRange(text, 0, len);
    out.scanned = len;
  } else {
    let headEnd = head;
    while (headEnd < len && headEnd < head + 200 && !isBoundary(text.charCodeAt(headEnd))) headEnd++;
    scanRange(text, 0, headEnd);
    endPara();
    inFence = false; // a fence opened in the head closes somewhere we did not read
    let tailStart = len - tail;
    const nl = text.indexOf('\n', tailStart);
    if (nl !== -1 && nl - tailStart < 300) tailStart = nl + 1;
    else while (tailStart < len && !isBoundary(text.charCodeAt(tailStart))) tailStart++;
    prev1 = 0; prev2 = 0; posInSentence = 0;
    scanRange(text, tailStart, len);
    out.scanned = headEnd + (len - tailStart);
  }
  endPara();
  pickAsk(len);

  out.askChars = ask.proseChars;
  out.materialChars = Math.max(0, len - ask.proseChars);
  out.askCx = ask.cx;
  out.askCommas = ask.commas;
  out.askSentences = ask.sentences;
  out.askQuestions = ask.questions;
  out.askListItems = ask.listItems;
  for (let k = 0; k < N; k++) out.task[k]! += ask.task[k]!;
  // Material: the prose that is not the ask, damped by the size of everything pasted.
  const materialWords = Math.max(0, len - ask.proseChars - codeChars) / CHARS_PER_WORD;
  const materialDamp = 1 / (1 + materialWords / MATERIAL_DAMP_WORDS);
  const codeDamp = 1 / (1 + codeChars / CHARS_PER_WORD / MATERIAL_DAMP_WORDS);
  for (let k = 0; k < N; k++) {
    const material = (total.task[k]! - ask.task[k]!) * materialDamp + codeTask[k]! * codeDamp;
    out.task[k]! += Math.max(-MATERIAL_CAP, Math.min(MATERIAL_CAP, material));
  }

  let e = len - 1;
  while (e >= 0 && text.charCodeAt(e) <= 32) e--;
  out.endsWithQuestion = e >= 0 && text.charCodeAt(e) === 63;
  return out;
}

/**
 * Which prose is the request? The first and the last paragraph when they read as said to the
 * assistant, or just their first or last line when that line is a request and the rest of the
 * paragraph is a long paste ("summarize these reviews:" then the reviews). A short text is all
 * request, minus what is clearly pasted: such split-off lines, and long paragraphs with no
 * request marker.
 */
function pickAsk(len: number): void {
  const headSplit = splitsOff(firstPara, firstLine, firstLine.lastChar === 58 || firstPara.req === firstLine.req);
  const tailSplit = proseLineCount > 1 && splitsOff(lastPara, lastLine,
    paraCount > 1 ? lastPara.req === lastLine.req : lastPara.req === lastLine.req + (headSplit ? firstLine.req : 0));
  if (out.scanned === len && total.proseChars + codeChars <= WHOLE_ASK_CHARS) {
    if (spoken.proseChars === 0) { ask.copy(total); return; } // nothing reads as pasted after all
    ask.copy(spoken);
    if (headSplit || (tailSplit && paraCount === 1)) {
      ask.sub(firstPara);
      if (headSplit) ask.add(firstLine);
      if (tailSplit && paraCount === 1) ask.add(lastLine);
    }
    if (tailSplit && paraCount > 1) { ask.sub(lastPara); ask.add(lastLine); }
    return;
  }
  let headWhole = false;
  if (headSplit) ask.add(firstLine);
  else if (firstPara.proseChars <= ASK_PARA_CHARS && firstPara.isRequest()) { ask.add(firstPara); headWhole = true; }
  else if (firstLine.proseChars <= ASK_LINE_CHARS && firstLine.isRequest()) ask.add(firstLine);
  if (paraCount > 1) {
    if (tailSplit) ask.add(lastLine);
    else if (lastPara.proseChars <= ASK_PARA_CHARS && lastPara.isRequest()) ask.add(lastPara);
    else if (lastLine.proseChars <= ASK_LINE_CHARS && lastLine.isRequest()) ask.add(lastLine);
  } else if (!headWhole && proseLineCount > 1 && lastLine.proseChars <= ASK_LINE_CHARS && lastLine.isRequest()) {
    ask.add(lastLine);
  }
}

/** A request line at the edge of a paragraph whose other lines are a long paste. */
function splitsOff(para: Para, edge: Para, restHasNoRequest: boolean): boolean {
  return para.lines > 1 && edge.isRequest() && para.listItems === 0 && restHasNoRequest
    && para.proseChars - edge.proseChars > SPLIT_REST_CHARS;
}

function isBoundary(c: number): boolean {
  return c === 10 || c === 32 || c === 9;
}
