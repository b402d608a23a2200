import { BOUNDARY } from './literals.js';

// Which of a fixed set of ASCII literals occur in a text, ASCII case folded, and where, in one pass:
// an Aho-Corasick automaton turned into a dense table over the literals' own characters (every other
// character is one class, which leads back to the start). A literal may start or end with BOUNDARY
// (literals.ts): an occurrence counts only where the text has a word boundary there.

const WORD = new Uint8Array(128);
for (let c = 0; c < 128; c++) WORD[c] = /\w/.test(String.fromCharCode(c)) ? 1 : 0;
const isWordAt = (text: string, i: number) => {
  if (i < 0 || i >= text.length) return false;
  const c = text.charCodeAt(i);
  return c < 128 && WORD[c] === 1;
};
/** `\b` at index i (between i - 1 and i), as V8's engine reads it without the Unicode flag. */
const boundaryAt = (text: string, i: number) => isWordAt(text, i - 1) !== isWordAt(text, i);

export class LiteralScanner {
  /**
   * Per state and character class, row by row: the next state's row offset (state times the class
   * count), stored negated (~offset) when that state ends a literal, so the scan tests one sign per
   * character.
   */
  private readonly next: Int32Array;
  /** Per state: where its literals (its own and its suffixes') start and end in `outputs`. */
  private readonly outStart: Int32Array;
  private readonly outEnd: Int32Array;
  private readonly outputs: Int32Array;
  private readonly classOf = new Uint8Array(128);
  private readonly classes: number;
  /** Per literal: its length without boundaries, and whether it needs one at its start or end. */
  readonly lengths: Int32Array;
  private readonly boundedStart: Uint8Array;
  private readonly boundedEnd: Uint8Array;

  // What the last scan found: per literal, whether it occurs and its last occurrence; per
  // occurrence, its end (exclusive) and the literal's previous occurrence (-1: none).
  private readonly found: Uint8Array;
  private readonly lastOccurrence: Int32Array;
  private ends = new Int32Array(256);
  private previous = new Int32Array(256);
  private occurrenceCount = 0;

  constructor(literals: readonly string[]) {
    const plain = literals.map((l) => l.replaceAll(BOUNDARY, ''));
    this.lengths = Int32Array.from(plain, (p) => p.length);
    this.boundedStart = Uint8Array.from(literals, (l) => (l.startsWith(BOUNDARY) ? 1 : 0));
    this.boundedEnd = Uint8Array.from(literals, (l) => (l.endsWith(BOUNDARY) ? 1 : 0));
    this.found = new Uint8Array(literals.length);
    this.lastOccurrence = new Int32Array(literals.length);

    // Classes: 0 for characters no literal holds, then one per character (letters case folded).
    let classes = 1;
    for (const lit of plain)
      for (const ch of lit) {
        const code = ch.charCodeAt(0);
        if (code >= 128) throw new Error(`literal scan: non-ASCII literal ${JSON.stringify(lit)}`);
        if (this.classOf[code] === 0) {
          this.classOf[code] = classes;
          const upper = ch.toUpperCase().charCodeAt(0);
          if (upper !== code) this.classOf[upper] = classes;
          classes++;
        }
      }
    if (classes > 255) throw new Error('literal scan: too many distinct characters');
    this.classes = classes;

    // The trie.
    const children: Map<number, number>[] = [new Map()];
    const ends: number[][] = [[]];
    plain.forEach((lit, id) => {
      let s = 0;
      for (let i = 0; i < lit.length; i++) {
        const c = this.classOf[lit.charCodeAt(i)]!;
        let t = children[s]!.get(c);
        if (t === undefined) {
          t = children.length;
          children.push(new Map());
          ends.push([]);
          children[s]!.set(c, t);
        }
        s = t;
      }
      ends[s]!.push(id);
    });

    // Failure links breadth first, filling the dense table (by state) and each state's outputs.
    const states = children.length;
    const next = new Int32Array(states * classes);
    const fail = new Int32Array(states);
    const out: number[][] = ends.map((e) => [...e]);
    const queue: number[] = [];
    for (let c = 0; c < classes; c++) {
      const t = children[0]!.get(c);
      if (t !== undefined) {
        next[c] = t;
        queue.push(t);
      }
    }
    for (let q = 0; q < queue.length; q++) {
      const s = queue[q]!;
      const f = fail[s]!;
      for (const id of out[f]!) out[s]!.push(id);
      for (let c = 0; c < classes; c++) {
        const t = children[s]!.get(c);
        if (t === undefined) next[s * classes + c] = next[f * classes + c]!;
        else {
          fail[t] = next[f * classes + c]!;
          next[s * classes + c] = t;
          queue.push(t);
        }
      }
    }
    for (let i = 0; i < next.length; i++) {
      const t = next[i]!;
      next[i] = out[t]!.length > 0 ? ~(t * classes) : t * classes;
    }
    this.next = next;

    this.outStart = new Int32Array(states);
    this.outEnd = new Int32Array(states);
    const flat: number[] = [];
    for (let s = 0; s < states; s++) {
      this.outStart[s] = flat.length;
      flat.push(...new Set(out[s]));
      this.outEnd[s] = flat.length;
    }
    this.outputs = Int32Array.from(flat);
  }

  /**
   * Marks, by literal id, which literals occur in `text`, and records where. What it returns and
   * records is reused by the next scan: read it first.
   */
  scan(text: string): Uint8Array {
    const { next, classOf } = this;
    this.found.fill(0);
    this.lastOccurrence.fill(-1);
    this.occurrenceCount = 0;
    let row = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      const v = next[row + (code < 128 ? classOf[code]! : 0)]!;
      if (v >= 0) row = v;
      else {
        row = ~v;
        this.record(text, (row / this.classes) | 0, i + 1);
      }
    }
    return this.found;
  }

  private record(text: string, state: number, end: number): void {
    for (let o = this.outStart[state]!; o < this.outEnd[state]!; o++) {
      const id = this.outputs[o]!;
      if (this.boundedEnd[id] === 1 && !boundaryAt(text, end)) continue;
      if (this.boundedStart[id] === 1 && !boundaryAt(text, end - this.lengths[id]!)) continue;
      this.found[id] = 1;
      const k = this.occurrenceCount++;
      if (k === this.ends.length) {
        this.ends = grown(this.ends);
        this.previous = grown(this.previous);
      }
      this.ends[k] = end;
      this.previous[k] = this.lastOccurrence[id]!;
      this.lastOccurrence[id] = k;
    }
  }

  /** Where the last scan found `id`: the start of each occurrence, last first. */
  startsOf(id: number, into: number[]): void {
    for (let k = this.lastOccurrence[id]!; k >= 0; k = this.previous[k]!) into.push(this.ends[k]! - this.lengths[id]!);
  }
}

function grown(a: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const b = new Int32Array(a.length * 2);
  b.set(a);
  return b;
}
