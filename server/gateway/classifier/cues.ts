// The compiled lexicon. Words are hashed (FNV-1a over lower-cased characters) into small
// integer keys, phrases into rolling pair keys; all of them sit in open-addressing tables of
// typed arrays, so a lookup is one or two array reads. Built once, at module load.

import {
  CODE_EXTENSIONS,
  CODING,
  CODING_CUES,
  COMPLEXITY_CUES,
  CREATIVE,
  CREATIVE_CUES,
  ERROR_WORDS,
  GENERAL,
  GENERAL_CUES,
  HARD_ASK_CUES,
  LINE_START_KEYWORDS,
  QA,
  QA_CUES,
  QA_START_CUES,
  REQUEST_CUES,
  SUMMARIZATION,
  SUMMARIZATION_CUES,
  TEXT_TASKS,
} from './lexicon.js';

export const N_TASKS = TEXT_TASKS.length;

export interface Cue {
  /** Evidence per text task, or null. */
  task: Float64Array | null;
  /** QA-opener weight: full near the start of a sentence, a third elsewhere. */
  startQa: number;
  /** Complexity evidence: the shape of the ask, and the kind of ask (design, proof...). */
  cx: number;
  hard: number;
  /** Weight as a code keyword when first on a line. */
  lineStart: number;
  /** A code file extension (`name.ext`). */
  ext: boolean;
  /** Marks a request said to the assistant. */
  req: boolean;
  /** A word of failure output. */
  err: boolean;
  /** Last word of a multi-word phrase: look the phrase up when this word is read. */
  tail: boolean;
  /** First word of a two-word phrase, first and second words of a three-word phrase. */
  head2: boolean;
  head3: boolean;
  mid3: boolean;
}

// ---------------------------------------------------------------------------------------------
// Characters and hashing (shared with the scanner, which inlines the same steps)

export const FNV_PRIME = 0x01000193;
export const HASH_SEED = 0x811c9dc5 | 0;
/** Keys stay in the small-integer range and are never 0 (0 marks an empty table slot). */
export function finishKey(h: number): number {
  return h & 0x3fffffff || 1;
}
export function pairKey(a: number, b: number): number {
  return (Math.imul(a, 0x9e3779b1) ^ b) & 0x3fffffff || 1;
}

// Character classes; everything from 0xC0 up to the punctuation block counts as a letter, so
// accented and non-Latin words are words too.
export const NON_WORD = 0;
export const LOWER = 1;
export const UPPER = 2;
export const DIGIT = 3;
export const UNDERSCORE = 4;
export const APOS = 5;
export const CHAR_CLASS = new Uint8Array(128);
for (let c = 97; c <= 122; c++) CHAR_CLASS[c] = LOWER;
for (let c = 65; c <= 90; c++) CHAR_CLASS[c] = UPPER;
for (let c = 48; c <= 57; c++) CHAR_CLASS[c] = DIGIT;
CHAR_CLASS[95] = UNDERSCORE;
CHAR_CLASS[39] = APOS;

export function wideClass(c: number): number {
  if (c === 0x2019) return APOS;
  return c >= 0xc0 && c < 0x2000 ? LOWER : NON_WORD;
}

export function isWordCode(c: number): boolean {
  return c < 128 ? CHAR_CLASS[c]! !== NON_WORD : wideClass(c) !== NON_WORD;
}

/** The keys of a phrase's words, split and folded exactly as the scanner does. */
function wordKeys(phrase: string): number[] {
  const out: number[] = [];
  let h = HASH_SEED;
  let len = 0;
  for (let i = 0; i <= phrase.length; i++) {
    const c = i < phrase.length ? phrase.charCodeAt(i) : 32;
    const k = c < 128 ? CHAR_CLASS[c]! : wideClass(c);
    if (k !== NON_WORD && !(len === 0 && k === APOS)) {
      h = Math.imul(h ^ (k === UPPER ? c + 32 : k === APOS ? 39 : c), FNV_PRIME);
      len++;
    } else if (len > 0) {
      out.push(finishKey(h));
      h = HASH_SEED;
      len = 0;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Tables

/** Integer-keyed open-addressing table, at most a quarter full, so a miss is about one probe. */
class CueTable {
  private readonly keys: Int32Array;
  private readonly slots: Int32Array;
  private readonly mask: number;
  private readonly cues: Cue[];
  constructor(entries: Map<number, Cue>) {
    let size = 16;
    while (size < entries.size * 4) size *= 2;
    this.keys = new Int32Array(size);
    this.slots = new Int32Array(size);
    this.mask = size - 1;
    this.cues = [];
    for (const [key, cue] of entries) {
      let i = key & this.mask;
      while (this.keys[i] !== 0) i = (i + 1) & this.mask;
      this.keys[i] = key;
      this.cues.push(cue);
      this.slots[i] = this.cues.length;
    }
  }
  get(key: number): Cue | undefined {
    const keys = this.keys;
    let i = key & this.mask;
    for (;;) {
      const k = keys[i]!;
      if (k === key) return this.cues[this.slots[i]! - 1];
      if (k === 0) return undefined;
      i = (i + 1) & this.mask;
    }
  }
}

const uniMap = new Map<number, Cue>();
const biMap = new Map<number, Cue>();
const triMap = new Map<number, Cue>();

function emptyCue(): Cue {
  return {
    task: null,
    startQa: 0,
    cx: 0,
    hard: 0,
    lineStart: 0,
    ext: false,
    req: false,
    err: false,
    tail: false,
    head2: false,
    head3: false,
    mid3: false,
  };
}

function unigram(key: number): Cue {
  let cue = uniMap.get(key);
  if (!cue) uniMap.set(key, (cue = emptyCue()));
  return cue;
}

function cueFor(phrase: string): Cue {
  const ks = wordKeys(phrase);
  if (ks.length === 0 || ks.length > 3) throw new Error(`classifier lexicon: bad phrase "${phrase}"`);
  if (ks.length === 1) return unigram(ks[0]!);
  unigram(ks[ks.length - 1]!).tail = true;
  let map: Map<number, Cue>;
  let key: number;
  if (ks.length === 2) {
    unigram(ks[0]!).head2 = true;
    map = biMap;
    key = pairKey(ks[0]!, ks[1]!);
  } else {
    unigram(ks[0]!).head3 = true;
    unigram(ks[1]!).mid3 = true;
    map = triMap;
    key = pairKey(pairKey(ks[0]!, ks[1]!), ks[2]!);
  }
  let cue = map.get(key);
  if (!cue) map.set(key, (cue = emptyCue()));
  return cue;
}

function addTask(table: Record<string, number>, index: number): void {
  for (const [phrase, w] of Object.entries(table)) {
    const cue = cueFor(phrase);
    cue.task ??= new Float64Array(N_TASKS);
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
for (const [phrase, w] of Object.entries(HARD_ASK_CUES)) cueFor(phrase).hard += w;
for (const [word, w] of Object.entries(LINE_START_KEYWORDS)) cueFor(word).lineStart = w;
for (const ext of CODE_EXTENSIONS) cueFor(ext).ext = true;
for (const phrase of REQUEST_CUES) cueFor(phrase).req = true;
for (const phrase of ERROR_WORDS) cueFor(phrase).err = true;

export const unigrams = new CueTable(uniMap);
export const bigrams = new CueTable(biMap);
export const trigrams = new CueTable(triMap);
