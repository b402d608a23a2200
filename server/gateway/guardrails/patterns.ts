import { createRequire } from 'node:module';
import type { RE2 } from 're2-wasm';
import { GatewayError } from '../../lib/errors.js';
import { RULE_FLAGS } from './builtin.js';

// Custom patterns are user input that runs on every request. Each is vetted once, when saved:
// it must compile, stay short, and not match empty text. Then recheck (a ReDoS analyser, run in its
// own process so the event loop never waits on it) decides its engine: a pattern it proves free of
// catastrophic backtracking runs on V8's engine (fast); any other runs on RE2 (re2-wasm: linear
// time whatever the pattern and input), and a pattern RE2 cannot take (backreferences, lookaround)
// is refused. The engine is stored with the rule, so loading rules never re-runs the analysis.

export const MAX_PATTERN_CHARS = 500;
export type Engine = 'js' | 're2';

/** A compiled rule pattern: `exec` returns the match's index and text, or null. */
export interface Matcher {
  exec(text: string): { index: number; text: string } | null;
}

// re2-wasm has a fixed heap and never frees a compiled pattern: after some 4,000 compilations the
// module breaks for the whole process. Every RE2 is compiled once and shared by pattern text, and
// compilation stops well before the limit (a pattern past it is refused; one already saved is skipped
// with a warning until the next restart).
const RE2_BUDGET = 3_000;
const RE2_FLAGS = 'iu';
const re2Cache = new Map<string, RE2>();

// Loaded on first use: the module reserves its 16 MB heap as it loads, which a gateway whose rules
// all run on V8's engine never needs.
const load = createRequire(import.meta.url);
let RE2Class: typeof RE2 | undefined;

function compileRe2(pattern: string): RE2 | null {
  const cached = re2Cache.get(pattern);
  if (cached) return cached;
  if (re2Cache.size >= RE2_BUDGET) return null;
  RE2Class ??= (load('re2-wasm') as { RE2: typeof RE2 }).RE2;
  const re = new RE2Class(pattern, RE2_FLAGS);
  re2Cache.set(pattern, re);
  return re;
}

export function matcherFor(pattern: string, engine: Engine): Matcher | null {
  if (engine === 'js') {
    const re = new RegExp(pattern, RULE_FLAGS);
    return {
      exec(text) {
        const m = re.exec(text);
        return m ? { index: m.index, text: m[0] } : null;
      },
    };
  }
  const re = compileRe2(pattern);
  if (!re) return null;
  return {
    exec(text) {
      const m = re.exec(text);
      return m ? { index: m.index, text: m[0] ?? '' } : null;
    },
  };
}

const invalid = (message: string) => new GatewayError('invalid_request_error', message);

/** Vets a custom pattern (400 saying why when refused) and chooses the engine it will run on. */
export async function vetPattern(pattern: string): Promise<Engine> {
  if (pattern.length === 0) throw invalid('pattern: must not be empty');
  if (pattern.length > MAX_PATTERN_CHARS)
    throw invalid(`pattern: at most ${MAX_PATTERN_CHARS} characters (got ${pattern.length})`);
  let re: RegExp;
  try {
    re = new RegExp(pattern, RULE_FLAGS);
  } catch (err) {
    throw invalid(`pattern: does not compile as a regular expression (${(err as Error).message})`);
  }
  if (re.test('')) throw invalid('pattern: matches empty text, so it would fire on every request');
  if (await provedLinear(pattern)) return 'js';
  let linear: RE2 | null;
  try {
    linear = compileRe2(pattern);
  } catch {
    throw invalid(
      'pattern: can backtrack catastrophically (its matching time can grow exponentially or polynomially with the input), and uses features (backreferences, lookaround) the linear-time engine does not support; bound its repetitions or drop those features',
    );
  }
  if (!linear)
    throw new GatewayError(
      'service_unavailable',
      'This gateway process cannot compile more patterns on its linear-time engine until it restarts',
    );
  return 're2';
}

async function provedLinear(pattern: string): Promise<boolean> {
  try {
    // Loaded on first use (when a pattern is saved), not with the gateway.
    const { check } = await import('recheck');
    const d = await check(pattern, RULE_FLAGS, { timeout: 3_000 });
    return d.status === 'safe';
  } catch {
    return false;
  }
}
