// Fault injection: ordered rules, first matching rule that fires wins. A seeded PRNG decides
// probabilistic rules so a test with a fixed seed sees the same failures on every run.
import { seededRandom as mulberry32 } from '../lib/random.js';
import type { FaultRule, SimEndpoint, SimFormat } from './types.js';

export { mulberry32 };

interface RuleState {
  rule: FaultRule;
  fired: number;
}

export class FaultEngine {
  private rules: RuleState[] = [];
  private rand: () => number;

  constructor(seed: number) {
    this.rand = mulberry32(seed);
  }

  reseed(seed: number): void {
    this.rand = mulberry32(seed);
  }

  /** Replaces all rules; `times` counters start again from zero. */
  set(rules: FaultRule[]): void {
    this.rules = rules.map((rule) => ({ rule: { ...rule }, fired: 0 }));
  }

  list(): Array<FaultRule & { fired: number }> {
    return this.rules.map((s) => ({ ...s.rule, fired: s.fired }));
  }

  get empty(): boolean {
    return this.rules.length === 0;
  }

  /** The rule that fires for this request, if any. Consumes one `times` use of that rule. */
  match(format: SimFormat, endpoint: SimEndpoint, model: string | undefined): FaultRule | undefined {
    for (const s of this.rules) {
      const r = s.rule;
      if (r.format !== undefined && r.format !== format) continue;
      if (r.model !== undefined && r.model !== model) continue;
      if (!endpointMatches(r, endpoint)) continue;
      if (r.times !== undefined && s.fired >= r.times) continue;
      const rate = r.rate ?? 1;
      // Only draw from the PRNG for probabilistic rules, so adding an always-on rule does not
      // shift the sequence seen by the others.
      if (rate < 1 && !(this.rand() < rate)) continue;
      s.fired++;
      return r;
    }
    return undefined;
  }
}

function endpointMatches(r: FaultRule, endpoint: SimEndpoint): boolean {
  if (r.endpoint !== undefined) return r.endpoint === endpoint;
  // A rule that only cuts or delays streams means nothing for a non-streaming call; do not let it
  // consume `times` or fire on one.
  const onlyCuts =
    (r.cutStreamAfterChunks !== undefined || r.firstContentDelayMs !== undefined) &&
    r.status === undefined &&
    !r.resetConnection &&
    !r.hang &&
    r.latencyMs === undefined;
  if (onlyCuts) return endpoint === 'stream';
  return endpoint === 'chat' || endpoint === 'stream';
}
