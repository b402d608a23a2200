import { runInNewContext } from 'node:vm';
import { RE2 } from 're2-wasm';

// The regex-match scorer runs patterns users wrote, against text a model wrote: a pattern that
// backtracks catastrophically ((a+)+$ on a long run of a's) must not stall the gateway.
//
// First choice: RE2 (re2-wasm), linear in the text whatever the pattern. It does not free
// compiled patterns (its heap is fixed: after ~4,000 compilations the module breaks for the
// process), so each distinct pattern is compiled once and kept, up to RE2_BUDGET per process.
// Patterns RE2 cannot take (backreferences, lookaround) and patterns past the budget run as
// JavaScript regular expressions in a separate V8 context with a time limit, which interrupts a
// runaway match and counts it as no match. The text is clipped to MAX_TEXT either way.

export const MAX_PATTERN_CHARS = 2_000;
export const MAX_TEXT = 100_000;
/**
 * Distinct patterns compiled with RE2 in this process. re2-wasm's heap is one per process and holds
 * ~4,000 compilations in all: the guardrails keep 3,000 of them (gateway/guardrails/patterns.ts).
 */
const RE2_BUDGET = 500;
/** The most one JavaScript-engine match may take. */
export const JS_MATCH_TIMEOUT_MS = 50;

const compiled = new Map<string, RE2 | null>();

export interface ParsedPattern {
  source: string;
  flags: string;
}

const LITERAL = /^\/([\s\S]+)\/([dgimsuvy]*)$/;

/** `expected` as a pattern: either `/source/flags` (a JavaScript literal) or the bare source. */
export function parsePattern(expected: string): ParsedPattern {
  const literal = LITERAL.exec(expected);
  // g and y make test() stateful; d only adds indices: none changes whether the text matches.
  if (literal) return { source: literal[1]!, flags: literal[2]!.replace(/[gyd]/g, '') };
  return { source: expected, flags: '' };
}

/** Why the pattern is not a valid JavaScript regular expression, or undefined when it is. */
export function patternProblem(expected: string): string | undefined {
  if (expected.length > MAX_PATTERN_CHARS) return `pattern longer than ${MAX_PATTERN_CHARS} characters`;
  const { source, flags } = parsePattern(expected);
  try {
    // Building a RegExp is linear in its source; only matching can run away.
    new RegExp(source, flags);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

function re2For(p: ParsedPattern): RE2 | null | undefined {
  const key = `${p.flags}/${p.source}`;
  if (compiled.has(key)) return compiled.get(key);
  if (compiled.size >= RE2_BUDGET) return undefined;
  let re: RE2 | null;
  try {
    // re2-wasm needs the u flag; v (unicode sets) is JavaScript-only.
    re = p.flags.includes('v') ? null : new RE2(p.source, `${p.flags.replace('u', '')}u`);
  } catch {
    re = null;
  }
  compiled.set(key, re);
  return re;
}

export interface MatchOutcome {
  matched: boolean;
  /** Set when the JavaScript engine ran out of time: counted as no match. */
  timedOut?: boolean;
}

/** Whether `text` matches the pattern in `expected`, in bounded time. Throws on an invalid pattern. */
export function boundedMatch(expected: string, text: string): MatchOutcome {
  const problem = patternProblem(expected);
  if (problem) throw new Error(`invalid regular expression: ${problem}`);
  const p = parsePattern(expected);
  const subject = text.length > MAX_TEXT ? text.slice(0, MAX_TEXT) : text;
  const re = re2For(p);
  if (re) return { matched: re.test(subject) };
  try {
    const matched = runInNewContext(
      'new RegExp(source, flags).test(subject)',
      { ...p, subject },
      {
        timeout: JS_MATCH_TIMEOUT_MS,
      },
    ) as boolean;
    return { matched: matched === true };
  } catch {
    return { matched: false, timedOut: true };
  }
}
