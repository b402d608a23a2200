// Hashed n-gram features of one text, shared by the runtime model (model.ts) and the training
// script (scripts/classifier/train.ts), so both see exactly the same features.
//
// Three groups, each scaled by 1 / sqrt(its count) so a long text does not outvote a short one:
//   words: lower-cased word unigrams and bigrams, the first and last words of the text marked
//          as such (the ask sits at one end), and the first word of each line (code, lists,
//          dialogue turns);
//   chars: character 3-grams with whitespace folded to one space (spelling, punctuation, code
//          syntax: "();", "=> ", "</"; 4-grams cost a fifth more time and added no accuracy);
//   shape: the text's length and line count, in doubling buckets.
// Features are hashed into `dim` buckets (a power of two); nothing is allocated per feature.

export const GROUPS = 3;
export const G_WORDS = 0;
export const G_CHARS = 1;
export const G_SHAPE = 2;

/** Characters read: texts longer than HEAD + TAIL are read through a head and a tail window. */
export const HEAD = 1500;
export const TAIL = 600;
/** Words at either end of the text that also count as "first words" / "last words". */
const EDGE_WORDS = 4;

export type Emit = (group: number, bucket: number) => void;

const FNV = 16777619;
const SEED_WORD = 0x811c9dc5;
const SEED_BIGRAM = 0x2545f491;
const SEED_FIRST = 0x9e3779b9;
const SEED_LAST = 0x7f4a7c15;
const SEED_LINE = 0x3c6ef372;
const SEED_CHAR3 = 0x1b873593;
const SEED_SHAPE = 0x68e31da4;

function isWordChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95 || c === 39 || c >= 0xc0;
}
function lower(c: number): number {
  return c >= 65 && c <= 90 ? c + 32 : c;
}
function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 9 || c === 13 || c === 11 || c === 12 || c === 0xa0;
}
function mix(h: number, x: number): number {
  return Math.imul(h ^ x, FNV);
}

// Last few word hashes, for the "last words" features (a ring, reused across calls).
const lastWords = new Int32Array(EDGE_WORDS);

/**
 * Calls `emit(group, bucket)` once per feature occurrence of `text` (read through its head and
 * tail windows). `dim` must be a power of two.
 */
export function extract(text: string, dim: number, emit: Emit): void {
  const mask = dim - 1;
  const n = text.length;
  const windowed = n > HEAD + TAIL;
  const end1 = windowed ? HEAD : n;
  const start2 = windowed ? n - TAIL : n;

  let words = 0;
  let prevWord = 0;
  let hasPrev = false;
  let wordHash = SEED_WORD;
  let inWord = false;
  let lineStart = true;
  // char n-gram state: last two folded characters (0 = none yet)
  let c1 = 0;
  let c2 = 0;
  let lastWasSpace = true;
  let lines = 1;

  // One pass, no closures (captured variables would live in a context object, not registers).
  // Position n, and the gap between the windows, read as a space: it ends the word in progress.
  for (let i = 0; i <= n; i++) {
    const gap = windowed && i === end1;
    const raw = i === n || gap ? 32 : text.charCodeAt(i);
    const c = lower(raw);
    if (isWordChar(c)) {
      wordHash = mix(wordHash, c);
      inWord = true;
    } else {
      if (inWord) {
        const h = wordHash;
        emit(G_WORDS, (h >>> 0) & mask);
        if (hasPrev) emit(G_WORDS, (mix(mix(SEED_BIGRAM, prevWord), h) >>> 0) & mask);
        if (words < EDGE_WORDS) emit(G_WORDS, (mix(SEED_FIRST, h) >>> 0) & mask);
        if (lineStart) emit(G_WORDS, (mix(SEED_LINE, h) >>> 0) & mask);
        lastWords[words % EDGE_WORDS] = h;
        words++;
        prevWord = h;
        hasPrev = true;
        lineStart = false;
        inWord = false;
        wordHash = SEED_WORD;
      }
      if (raw === 10) {
        lines++;
        lineStart = true;
        hasPrev = false;
      } else if (lineStart && !isSpace(c)) {
        // A line that starts with punctuation: "-", "#", "//", "}", ">"...
        emit(G_WORDS, (mix(SEED_LINE, c) >>> 0) & mask);
        lineStart = false;
      }
    }
    if (gap) {
      // Skip to the tail window; the gap breaks words and n-grams.
      hasPrev = false;
      c1 = c2 = 0;
      lastWasSpace = true;
      i = start2 - 1;
      continue;
    }
    if (i === n) break;
    // character n-grams over folded text
    const space = isSpace(c);
    if (space && lastWasSpace) continue;
    lastWasSpace = space;
    const f = space ? 32 : c;
    if (c2 !== 0 && c1 !== 0) {
      emit(G_CHARS, (mix(mix(mix(SEED_CHAR3, c2), c1), f) >>> 0) & mask);
    }
    c2 = c1;
    c1 = f;
  }
  const k = Math.min(words, EDGE_WORDS);
  for (let j = 0; j < k; j++) emit(G_WORDS, (mix(SEED_LAST, lastWords[(words - 1 - j) % EDGE_WORDS]!) >>> 0) & mask);

  emit(G_SHAPE, (mix(SEED_SHAPE, 31 - Math.clz32(n + 1)) >>> 0) & mask);
  emit(G_SHAPE, (mix(SEED_SHAPE + 1, 31 - Math.clz32(lines)) >>> 0) & mask);
  emit(G_SHAPE, (mix(SEED_SHAPE + 2, Math.min(words, 64) >> 3) >>> 0) & mask);
}
