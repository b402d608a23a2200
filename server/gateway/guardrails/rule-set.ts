import type { Logger } from '../../lib/logger.js';
import { RULE_FLAGS } from './builtin.js';
import { LiteralScanner } from './literal-scan.js';
import { requiredLiterals } from './literals.js';
import { matcherFor, type Engine, type Matcher } from './patterns.js';

// One workspace's enabled rules, compiled for the request path. A rule on V8's engine runs as its
// top-level alternatives, each behind the literals it cannot match without (literals.ts): one scan
// of the text finds which literals occur (literal-scan.ts), and only alternatives whose literals
// all do are run. The answer is the one the whole pattern gives: the leftmost match, the first
// alternative at that position. Rules on RE2 run whole.

export interface RuleToCompile {
  id: string;
  name: string;
  action: 'block' | 'flag';
  pattern: string;
  engine: Engine;
}

export interface RuleHead {
  id: string;
  name: string;
  action: 'block' | 'flag';
}

export interface Match {
  index: number;
  text: string;
}

interface Alternative {
  re: RegExp;
  /** Literal ids: every clause needs one of its ids found. */
  clauses: Int32Array[];
  /** When set, the alternative is tried only just before these literals' occurrences. */
  anchor: Anchor | null;
}

interface Anchor {
  ids: number[];
  /** The alternative may also match at the text's start (it begins with `^`). */
  atStart: boolean;
  /**
   * Sticky, case-insensitive: the alternative after at most `maxBefore` characters (lazily), so
   * one try covers every start from lastIndex to lastIndex + maxBefore.
   */
  near: RegExp;
  maxBefore: number;
}

type Runner = { kind: 'split'; alternatives: Alternative[] } | { kind: 'whole'; matcher: Matcher };

export class RuleSet {
  private constructor(
    readonly rules: RuleHead[],
    /** Per rule, its index among the compiled patterns. */
    private readonly at: number[],
    private readonly patterns: CompiledPatterns,
  ) {}

  /** The compiled rules, in order; null when none compiled. Rules that cannot are logged and skipped. */
  static compile(rules: readonly RuleToCompile[], logger: Logger): RuleSet | null {
    const patterns = CompiledPatterns.of(rules);
    const heads: RuleHead[] = [];
    const at: number[] = [];
    rules.forEach((r, i) => {
      const failure = patterns.failures[i];
      if (failure) logger.warn({ err: failure.err, ruleId: r.id }, failure.message);
      else {
        heads.push({ id: r.id, name: r.name, action: r.action });
        at.push(i);
      }
    });
    return heads.length === 0 ? null : new RuleSet(heads, at, patterns);
  }

  /** A matcher over one text: rule by rule, its first match or null. */
  over(text: string): (ruleIndex: number) => Match | null {
    const matchOf = this.patterns.over(text);
    return (i) => matchOf(this.at[i]!);
  }
}

/**
 * A list of patterns compiled, with one literal scan for them all. Shared by the workspaces whose
 * enabled rules have the same patterns (the built-ins above all: their scan table is ~250 KB),
 * for as long as one of them holds it.
 */
class CompiledPatterns {
  private static readonly shared = new Map<string, WeakRef<CompiledPatterns>>();
  private static readonly forget = new FinalizationRegistry<string>((key) => {
    if (CompiledPatterns.shared.get(key)?.deref() === undefined) CompiledPatterns.shared.delete(key);
  });

  static of(rules: readonly RuleToCompile[]): CompiledPatterns {
    const key = JSON.stringify(rules.map((r) => [r.engine, r.pattern]));
    const known = CompiledPatterns.shared.get(key)?.deref();
    if (known) return known;
    const compiled = new CompiledPatterns(rules);
    CompiledPatterns.shared.set(key, new WeakRef(compiled));
    CompiledPatterns.forget.register(compiled, key);
    return compiled;
  }

  private readonly runners: (Runner | null)[] = [];
  /** Per pattern: why it was not compiled, or null. */
  readonly failures: ({ message: string; err?: unknown } | null)[] = [];
  private readonly scanner: LiteralScanner | null;

  private constructor(rules: readonly RuleToCompile[]) {
    const literalIds = new Map<string, number>();
    const idOf = (literal: string) => {
      let id = literalIds.get(literal);
      if (id === undefined) literalIds.set(literal, (id = literalIds.size));
      return id;
    };
    for (const r of rules) {
      const compiled = compileRule(r, idOf);
      this.runners.push('runner' in compiled ? compiled.runner : null);
      this.failures.push('runner' in compiled ? null : compiled);
    }
    const literals = [...literalIds.keys()];
    this.scanner = literals.length > 0 ? new LiteralScanner(literals) : null;
  }

  /** The literal scan runs once per text, on the first pattern that needs it. */
  over(text: string): (index: number) => Match | null {
    let found: Uint8Array | null = null;
    return (i) => {
      const runner = this.runners[i]!;
      if (runner.kind === 'whole') return runner.matcher.exec(text);
      found ??= this.scanner ? this.scanner.scan(text) : new Uint8Array(0);
      return this.firstMatch(runner.alternatives, text, found);
    };
  }

  private firstMatch(alternatives: Alternative[], text: string, found: Uint8Array): Match | null {
    let best: Match | null = null;
    for (const a of alternatives) {
      if (!a.clauses.every((c) => holds(c, found))) continue;
      const m = a.anchor ? this.nearAnchors(a.anchor, text) : whole(a.re, text);
      // A later alternative wins only further left (at the same position the whole pattern takes
      // the earlier one).
      if (m && (!best || m.index < best.index)) best = m;
    }
    return best;
  }

  /**
   * The leftmost match of an anchored alternative: every match starts at most maxBefore characters
   * before an anchor occurrence, so trying those starts, left to right, finds it.
   */
  private nearAnchors(anchor: Anchor, text: string): Match | null {
    const starts: number[] = anchor.atStart ? [0] : [];
    for (const id of anchor.ids) this.scanner?.startsOf(id, starts);
    starts.sort((x, y) => x - y);
    let tried = 0; // every start before this has been tried
    for (const p of starts) {
      const from = Math.max(tried, p - anchor.maxBefore);
      if (from > p) continue;
      anchor.near.lastIndex = from;
      const m = anchor.near.exec(text);
      if (m) return { index: m.index + m[0].length - m[1]!.length, text: m[1]! };
      tried = from + anchor.maxBefore + 1;
    }
    return null;
  }
}

type Compiled = { runner: Runner } | { message: string; err?: unknown };

function compileRule(r: RuleToCompile, idOf: (literal: string) => number): Compiled {
  try {
    const split = r.engine === 'js' ? requiredLiterals(r.pattern) : null;
    if (split) {
      const alternatives = split.map((a) => ({
        re: new RegExp(a.source, RULE_FLAGS),
        clauses: a.clauses.map((c) => Int32Array.from(c, idOf)),
        anchor: a.anchor && {
          ids: a.anchor.literals.map(idOf),
          atStart: a.anchor.atStart,
          near: new RegExp(`[\\s\\S]{0,${a.anchor.maxBefore}}?(${a.source})`, `${RULE_FLAGS}y`),
          maxBefore: a.anchor.maxBefore,
        },
      }));
      return { runner: { kind: 'split', alternatives } };
    }
    const matcher = matcherFor(r.pattern, r.engine);
    if (!matcher) return { message: 'guardrail rule skipped: no room left on the linear-time engine' };
    return { runner: { kind: 'whole', matcher } };
  } catch (err) {
    return { message: 'guardrail rule skipped: pattern does not compile', err };
  }
}

function whole(re: RegExp, text: string): Match | null {
  const m = re.exec(text);
  return m && { index: m.index, text: m[0] };
}

function holds(clause: Int32Array, found: Uint8Array): boolean {
  for (let i = 0; i < clause.length; i++) if (found[clause[i]!] === 1) return true;
  return false;
}
