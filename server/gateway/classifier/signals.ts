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
  QA_CUES, QA_START_CUES, REQUEST_CUES, SUMMARIZATION_CUES, CODING, CREATIVE, GENERAL, QA, SUMMARIZATION, TEXT_TASKS,
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

function hashStep(h: number, c: number): number {
  return Math.imul(h ^ c, 0x01000193);
}
const HASH_SEED = 0x811c9dc5 | 0;

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
    cue = { task: null, startQa: 0, cx: 0, lineStart: 0, ext: false, req: false, tail: false };
    map.set(key, cue);
  }
  if (hs.length > 1) {
    const last = hs[hs.length - 1]!;
    let tailCue = uni.get(last);
    if (!tailCue) {
      tailCue = { task: null, startQa: 0, cx: 0, lineStart: 0, ext: false, req: false, tail: false };
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
    this.task.fill(0);
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
let lineOps = 0;
let lineCalls = 0;
let lineIdents = 0;
let lineRefs = 0;
let lineBraces = 0;
let lineLineRefs = 0;
let lineKeyColon = false;
let lastNonSpace = 0;
let inFence = false;

// word / sentence state
let wordLen = 0;
let wordStart = 0;
let h = HASH_SEED;
let wordFirstLower = false;
let wordCamel = false;
let wordUnderscore = false;
let prevLower = false;
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
}

function endWord(text: string): void {
  out.words++;
  const key = h & MASK;
  if ((wordUnderscore && wordLen > 2) || (wordCamel && wordFirstLower && wordLen >= 4)) lineIdents++;
  extPending = false;
  const cue = uni.get(key);
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
  wordLen = 0;
}

function endSentence(): void {
  if (posInSentence > 0) line.sentences++;
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
  let score = lineOps + 0.7 * lineCalls + 0.6 * lineIdents + lineKw + 0.8 * lineRefs + lineLineRefs + 0.3 * lineBraces;
  if (lastNonSpace === 59 || lastNonSpace === 123 || lastNonSpace === 125) score += 1; // ; { }
  else if (lastNonSpace === 41) score += 0.4; // )
  if (lineIndent >= 2) score += lineKeyColon ? 1.5 : 0.7; // indented `key:` is YAML
  if (inFence || lineIsSpecial || score >= 1.5) {
    out.codeLines++;
    codeChars += len;
    for (let k = 0; k < N; k++) codeTask[k]! += line.task[k]!;
  } else {
    out.proseLines++;
    line.proseChars = len;
    line.lines = 1;
    line.lastChar = lastNonSpace;
    if (lineIsList) line.listItems = 1;
    if (proseLineCount++ === 0) firstLine.copy(line);
    lastLine.copy(line);
    cur.add(line);
  }
  resetLine(end);
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
  lastNonSpace = 0;
  wordInLine = 0;
}

function endPara(): void {
  if (cur.proseChars === 0) return;
  if (paraCount++ === 0) firstPara.copy(cur);
  lastPara.copy(cur);
  total.add(cur);
  if (cur.proseChars <= SPLIT_REST_CHARS || cur.isRequest()) spoken.add(cur);
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
    if (isWordCode(raw) && !(wordLen === 0 && (raw === 39 || raw === 0x2019))) {
      if (wordLen === 0) {
        wordStart = i;
        h = HASH_SEED;
        wordFirstLower = raw >= 97 && raw <= 122;
        wordCamel = false;
        wordUnderscore = false;
        prevLower = false;
      }
      const upper = raw >= 65 && raw <= 90;
      if (upper && prevLower) wordCamel = true;
      prevLower = raw >= 97 && raw <= 122;
      if (raw === 95 && wordLen > 0) wordUnderscore = true;
      h = hashStep(h, foldChar(raw));
      wordLen++;
      lineHasText = true;
      lastNonSpace = raw;
      i++;
      continue;
    }
    if (wordLen > 0) endWord(text);
    const next = i + 1 < to ? text.charCodeAt(i + 1) : 0;
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
        if (next === 61) lineOps++;
        else endSentence();
        break;
      case 44: line.commas++; break;
      case 40: // (
        if (i > 0 && isWordCode(text.charCodeAt(i - 1))) lineCalls++;
        break;
      case 123: case 125: case 59: lineBraces++; break;
      case 96: // `
        if (next === 96 && text.charCodeAt(i + 2) === 96) { out.fences++; inFence = !inFence; i += 2; }
        else out.inlineCode += 0.5;
        break;
      case 61: if (next === 61 || next === 62) lineOps++; break; // == =>
      case 58: // :
        if (wordInLine === 1 && isWordCode(text.charCodeAt(i - 1))) lineKeyColon = true;
        if (next === 58 || next === 61) lineOps++;
        else if (extPending && ((next >= 48 && next <= 57) || next === 108)) { out.fileLineRefs++; lineLineRefs++; } // :12 or :line 12
        break;
      case 45: if (next === 62) lineOps++; break; // ->
      case 38: if (next === 38) lineOps++; break; // &&
      case 124: if (next === 124) lineOps++; break; // ||
      case 43: if (next === 61) lineOps++; break; // +=
      case 60: if (next === 47) lineOps++; break; // </
      case 47: if (next === 62) lineOps++; break; // />
    }
    if (raw !== 32 && raw !== 9 && raw !== 13 && raw !== 10) {
      lineHasText = true;
      lastNonSpace = raw;
    }
    if (raw !== 58) extPending = false;
    i++;
  }
  if (wordLen > 0) endWord(text);
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
  proseLineCount = 0;
  codeChars = 0;
  inFence = false;
  wordLen = 0;
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
