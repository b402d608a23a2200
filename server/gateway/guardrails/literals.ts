import { type AST, RegExpParser } from '@eslint-community/regexpp';

type Alternative = AST.Alternative;
type Element = AST.Element;
type Node = AST.Node;

// The literals a pattern cannot match without: the prefilter of the guardrail scan (RE2's prefilter
// idea, for V8's engine). A pattern is split at its top-level `|`; each alternative gets a
// requirement in conjunctive form, a list of clauses, each a set of lower-case ASCII strings of
// which at least one must occur in the text (ASCII case folded) for the alternative to match
// anywhere. One pass over the text finds which literals occur (literal-scan.ts); an alternative
// whose requirement fails is not run. On ordinary text most alternatives of the jailbreak rules
// are skipped: their cost was spread evenly, about 10 µs per alternative per 10 KB.
//
// Sound, not complete: anything the analysis does not read (non-ASCII characters, large classes,
// backreferences) requires nothing, so the alternative runs. Case-insensitive matching on V8's
// engine without the Unicode flag never pairs a non-ASCII character with an ASCII letter, so
// folding only A-Z is exact for ASCII literals.

/**
 * Marks a word boundary (`\b`) at a literal's start or end: the occurrence counts only where the
 * text has a boundary there ("mode" in "model" is not "mode" followed by \b).
 */
export const BOUNDARY = '\u0001';
/** Marks the start of the text (`^`): a string beginning with it can only match there. */
const BEGIN = '\u0002';

/** A top-level alternative of a pattern: its source, and the clauses all of which must hold. */
export interface RequiredLiterals {
  source: string;
  clauses: string[][];
  /**
   * Literals one of which every match holds, starting at most `maxBefore` characters after the
   * match's start: the alternative need only be tried just before their occurrences. Null when no
   * selective literal sits at a bounded distance from the start.
   */
  anchor: { literals: string[]; atStart: boolean; maxBefore: number } | null;
}

/**
 * What is known of a node: the exact strings it can match (small sets only), else clauses and,
 * when known, strings one of which its match begins with.
 */
interface Info {
  exact: Set<string> | null;
  clauses: Set<string>[];
  prefix: Set<string> | null;
}

const MAX_EXACT = 64;
const MAX_CLASS = 8;
const ANYTHING: Info = { exact: null, clauses: [], prefix: null };
const exactly = (...strings: string[]): Info => ({ exact: new Set(strings), clauses: [], prefix: null });
const EMPTY = () => exactly('');

const parser = new RegExpParser({ ecmaVersion: 2022 });

/**
 * The pattern's top-level alternatives with their requirements; null when the alternatives cannot
 * run apart (backreferences and named groups would be renumbered or lost) or it does not parse.
 */
export function requiredLiterals(pattern: string): RequiredLiterals[] | null {
  let alternatives: Alternative[];
  try {
    alternatives = parser.parsePattern(pattern, 0, pattern.length, { unicode: false }).alternatives;
  } catch {
    return null;
  }
  const whole = /\\[1-9]|\\k<|\(\?<[A-Za-z]/.test(pattern);
  if (whole) return [{ source: pattern, clauses: clausesOf(alternatives), anchor: null }];
  return alternatives.map((a) => ({ source: a.raw, clauses: clausesOf([a]), anchor: anchorOf(a) }));
}

/** Clauses nearly every text satisfies (short strings) cost the scan more than they save. */
const SELECTIVE = 1;
/** How far from a match's start an anchor may sit: each occurrence costs a try at that many places. */
const MAX_ANCHOR_OFFSET = 200;
const MAX_CLAUSES = 2;
const MAX_LITERAL = 10;

/**
 * The alternative's most selective clauses, at most MAX_CLAUSES of them: each literal makes the
 * scan's table larger, and a third clause rarely rules out what two let through.
 */
function clausesOf(alternatives: Alternative[]): string[][] {
  const info = disjunction(alternatives.map(sequence));
  const clauses = info.exact ? [info.exact] : info.clauses;
  return clauses
    .filter((c) => !hasEmpty(c))
    .map((c) => ({ c, score: likelihood(c) }))
    .filter((x) => x.score < SELECTIVE)
    .sort((x, y) => x.score - y.score)
    .slice(0, MAX_CLAUSES)
    .map((x) => minimal([...x.c]));
}

/**
 * The most selective run of spelt-out elements of the alternative's top-level sequence, with the
 * most characters that can come before it.
 */
function anchorOf(alt: Alternative): RequiredLiterals['anchor'] {
  let best: RequiredLiterals['anchor'] = null;
  let bestScore = SELECTIVE;
  const consider = (run: Set<string>, maxBefore: number) => {
    if (maxBefore > MAX_ANCHOR_OFFSET) return;
    const atStart = [...run].some((s) => normalised(s) === BEGIN);
    const rest = new Set([...run].filter((s) => normalised(s) !== BEGIN));
    if (hasEmpty(rest) || (rest.size === 0 && !atStart)) return;
    // Each occurrence costs a try at maxBefore + 1 places.
    const score = (rest.size ? likelihood(rest) : 0) * (1 + maxBefore / 16);
    if (score < bestScore) {
      best = { literals: minimalPrefixes([...rest]), atStart, maxBefore };
      bestScore = score;
    }
  };
  let before = 0;
  let run = new Set(['']);
  let runStart = 0;
  for (const e of alt.elements) {
    const info = element(e);
    if (![...run].some(hasWidth)) runStart = before;
    if (info.exact) {
      const joined = product(run, info.exact);
      if (joined) run = joined;
      else {
        consider(run, runStart);
        run = info.exact;
        runStart = before;
      }
    } else {
      // The element's beginning continues the run, then the run ends.
      const extended = info.prefix && product(run, info.prefix);
      if (extended) consider(extended, runStart);
      else {
        consider(run, runStart);
        if (info.prefix) consider(info.prefix, before);
      }
      run = new Set(['']);
    }
    before += widest(e);
  }
  consider(run, runStart);
  return best;
}

/** The most characters (UTF-16 code units) an element can match. */
function widest(e: Element | Node): number {
  switch (e.type) {
    case 'Character':
    case 'CharacterClass':
    case 'CharacterSet':
      return 1;
    case 'Assertion':
      return 0;
    case 'Group':
    case 'CapturingGroup':
      return Math.max(...e.alternatives.map((a) => a.elements.reduce((sum, x) => sum + widest(x), 0)));
    case 'Quantifier': {
      const one = widest(e.element);
      return e.max === 0 || one === 0 ? 0 : e.max * one;
    }
    default:
      return Number.POSITIVE_INFINITY;
  }
}

/** Whether the string needs a character of the text: not the empty string, a boundary or the start. */
const hasWidth = (s: string) => normalised(s) !== BEGIN && s.replaceAll(BOUNDARY, '') !== '';
const hasEmpty = (clause: Set<string>) => ![...clause].every(hasWidth);

/**
 * Boundaries inside a literal are dropped and a long one is cut to its first MAX_LITERAL characters
 * (weaker requirements, so still sound): the scan's table grows with the literals' characters,
 * and past a few words a literal rules out little more.
 */
function normalised(s: string): string {
  if (s.replaceAll(BOUNDARY, '').startsWith(BEGIN)) return BEGIN;
  s = s.replaceAll(BEGIN, '');
  const inner = s.replaceAll(BOUNDARY, '');
  const start = s.startsWith(BOUNDARY) ? BOUNDARY : '';
  if (inner.length > MAX_LITERAL) return start + inner.slice(0, MAX_LITERAL);
  return start + inner + (s.endsWith(BOUNDARY) ? BOUNDARY : '');
}

/**
 * For an anchor: drops strings that begin with another of the set. Where they occur the shorter one
 * does too, and at the same place (a string merely inside another would start later than the
 * match's offset allows for).
 */
function minimalPrefixes(strings: string[]): string[] {
  const sorted = [...new Set(strings.map(normalised))].sort((a, b) => a.length - b.length);
  const kept: string[] = [];
  for (const s of sorted) if (!kept.some((k) => s.startsWith(k))) kept.push(s);
  return kept;
}

/** Drops strings containing another of the clause: where they occur, the shorter one does too. */
function minimal(strings: string[]): string[] {
  const sorted = [...new Set(strings.map(normalised))].sort((a, b) => a.length - b.length);
  const kept: string[] = [];
  for (const s of sorted) if (!kept.some((k) => s.includes(k))) kept.push(s);
  return kept;
}

function sequence(alt: Alternative): Info {
  return concat(alt.elements.map(element));
}

function element(e: Element | Node): Info {
  switch (e.type) {
    case 'Character':
      return char(e.value);
    case 'CharacterClass':
      return e.negate || e.unicodeSets ? ANYTHING : charClass(e.elements);
    case 'Group':
      return 'modifiers' in e && e.modifiers ? ANYTHING : disjunction(e.alternatives.map(sequence));
    case 'CapturingGroup':
      return disjunction(e.alternatives.map(sequence));
    case 'Quantifier':
      return quantified(element(e.element), e.min, e.max);
    case 'Assertion':
      if (e.kind === 'word' && !e.negate) return exactly(BOUNDARY);
      return e.kind === 'start' ? exactly(BEGIN) : EMPTY();
    default:
      return ANYTHING;
  }
}

function char(code: number): Info {
  if (code >= 128 || code === BOUNDARY.charCodeAt(0) || code === BEGIN.charCodeAt(0)) return ANYTHING;
  return exactly(String.fromCharCode(code).toLowerCase());
}

function charClass(elements: readonly Node[]): Info {
  const chars = new Set<string>();
  for (const el of elements) {
    if (el.type === 'Character') {
      if (el.value >= 128) return ANYTHING;
      chars.add(String.fromCharCode(el.value).toLowerCase());
    } else if (el.type === 'CharacterClassRange') {
      if (el.max.value >= 128 || el.max.value - el.min.value >= MAX_CLASS) return ANYTHING;
      for (let c = el.min.value; c <= el.max.value; c++) chars.add(String.fromCharCode(c).toLowerCase());
    } else return ANYTHING;
    if (chars.size > MAX_CLASS) return ANYTHING;
  }
  return chars.size === 0 ? ANYTHING : exactly(...chars);
}

function quantified(inner: Info, min: number, max: number): Info {
  if (inner.exact && max <= 3) {
    // x{0,3} is exactly "", x, xx or xxx while that stays small.
    const exact = repetitions(inner.exact, min, max);
    if (exact) return exactly(...exact);
  }
  // Optional and not spelt out: it needs nothing (and is not the empty string).
  if (min === 0) return ANYTHING;
  // At least `min` repetitions: whatever they need, the whole needs, and begins as they do.
  if (!inner.exact) return { exact: null, clauses: inner.clauses, prefix: inner.prefix };
  const first = repetitions(inner.exact, Math.min(min, 3), Math.min(min, 3)) ?? inner.exact;
  return { exact: null, clauses: [first], prefix: first };
}

function repetitions(x: Set<string>, min: number, max: number): Set<string> | null {
  let power: Set<string> | null = new Set(['']);
  let union: Set<string> | null = min === 0 ? new Set(['']) : new Set();
  for (let k = 1; k <= max; k++) {
    power = power && product(power, x);
    if (!power) return null;
    if (k >= min) union = union && merged(union, power);
  }
  return union;
}

/** Concatenation: runs of exact parts multiply while small; every run becomes a clause. */
function concat(parts: Info[]): Info {
  const clauses: Set<string>[] = [];
  let run = new Set(['']);
  let exactWhole = true;
  for (const p of parts) {
    if (p.exact) {
      const joined = product(run, p.exact);
      if (joined) run = joined;
      else {
        clauses.push(run);
        run = p.exact;
        exactWhole = false;
      }
    } else {
      clauses.push(run, ...p.clauses);
      run = new Set(['']);
      exactWhole = false;
    }
  }
  if (exactWhole) return exactly(...run);
  clauses.push(run);
  return { exact: null, clauses: clauses.filter((c) => !hasEmpty(c)), prefix: prefixOf(parts) };
}

/** The strings a concatenation's match begins with: its leading exact parts, then the next one's beginning. */
function prefixOf(parts: Info[]): Set<string> | null {
  let known = new Set(['']);
  for (const p of parts) {
    const joined = p.exact ? product(known, p.exact) : p.prefix && product(known, p.prefix);
    if (!joined) break;
    known = joined;
    if (!p.exact) break;
  }
  return hasEmpty(known) ? null : known;
}

/** Alternation: small exact unions stay exact; otherwise each branch's most selective clause, joined. */
function disjunction(branches: Info[]): Info {
  if (branches.length === 1) return branches[0]!;
  if (branches.every((b) => b.exact)) {
    let union: Set<string> | null = new Set();
    for (const b of branches) union = union && merged(union, b.exact!);
    if (union) return exactly(...union);
  }
  const joined = new Set<string>();
  for (const b of branches) {
    const best = bestClause(b);
    if (!best) return ANYTHING;
    for (const s of best) joined.add(s);
  }
  let prefix: Set<string> | null = new Set();
  for (const b of branches) {
    const starts = b.exact ?? b.prefix;
    prefix = starts && prefix && merged(prefix, starts);
  }
  return { exact: null, clauses: [joined], prefix: prefix && !hasEmpty(prefix) ? prefix : null };
}

function bestClause(info: Info): Set<string> | null {
  const candidates = info.exact ? [info.exact] : info.clauses;
  let best: Set<string> | null = null;
  let bestScore = Number.POSITIVE_INFINITY;
  for (const c of candidates) {
    if (hasEmpty(c)) continue;
    const score = likelihood(c);
    if (score < bestScore) {
      best = c;
      bestScore = score;
    }
  }
  return best;
}

/**
 * How likely ordinary text holds one of the strings: short strings are everywhere; a boundary
 * counts as a character (it rules out most places).
 */
function likelihood(clause: Set<string>): number {
  // Strings sharing their first characters occur no more often than that beginning does.
  const byStart = new Map<string, number>();
  for (const s of minimal([...clause])) {
    const start = s.slice(0, 6);
    byStart.set(start, (byStart.get(start) ?? 0) + chance(s));
  }
  let sum = 0;
  for (const [start, n] of byStart) sum += Math.min(n, chance(start));
  return sum;
}

/**
 * A rough chance that a string occurs in a few kilobytes of ordinary text, by its length (a
 * boundary counts half a character: words start and end everywhere); strings of punctuation and
 * line breaks are rarer than words.
 */
function chance(s: string): number {
  const plain = s.replaceAll(BOUNDARY, '');
  if (!/[a-z0-9 ]/.test(plain)) return plain === '\n' ? 0.5 : 0.1; // line breaks, punctuation: < [ | # = ---
  const length = Math.floor(plain.length + (s.length - plain.length) / 2);
  return [1, 1, 1, 0.6, 0.3, 0.1, 0.03][length] ?? 0.01;
}

function product(a: Set<string>, b: Set<string>): Set<string> | null {
  if (a.size === 1 && a.has('')) return b;
  if (b.size === 1 && b.has('')) return a;
  if (a.size * b.size > MAX_EXACT) return null;
  const out = new Set<string>();
  for (const x of a) for (const y of b) out.add(x + y);
  return out;
}

function merged(a: Set<string>, b: Set<string>): Set<string> | null {
  const out = new Set([...a, ...b]);
  return out.size > MAX_EXACT ? null : out;
}
