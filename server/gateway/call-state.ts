import { performance } from 'node:perf_hooks';
import type { Usage } from '../providers/types.js';
import { costRow, logCall, type Outcome } from './accounting.js';
import type { CacheLookup } from './cache/layers.js';
import type { CostLogRow, LogWriter } from './log-writer.js';
import type { ChatCall, RoutingDecision, Target, UpstreamErrorSummary } from './types.js';

/** What the pipeline settled for a call before any attempt: where to send it, and whether it may be cached. */
export interface PlannedCall {
  decision: RoutingDecision;
  /** The decision's own target first, then the fallbacks. */
  candidates: Target[];
  cacheKey: string | null;
  /** Cost rows routing ran up on the call's behalf (the LLM classifier's call): the call pays them. */
  costs: readonly CostLogRow[];
}

/**
 * What one call accumulates while the core serves it: its cost rows, its failed attempts, the time
 * spent upstream and the last target tried. The call itself (ChatCall) stays as it came.
 *
 * Who owns it: ChatPipeline creates one per call once the call is planned, and hands it to the
 * attempt loop (attempt-loop.ts), which with the attempt consumer it drives (whole-answer.ts,
 * stream.ts) is the only code that changes it. It ends with the call: once the call's row is
 * logged, nothing holds it.
 */
export class CallState {
  /** Routing's cost rows first, then one per upstream call that costs something. */
  readonly costs: CostLogRow[];
  /** Failed attempts, in order: `_gateway.errors`, and the 502's list when none succeeded. */
  readonly errors: UpstreamErrorSummary[] = [];
  /** Time spent waiting on providers, ms (see CallMeta.upstreamMs). */
  upstreamMs = 0;
  /**
   * The last target an attempt was sent to: a failed call's row names it, since the breakers may
   * have skipped the plan's later candidates, which were never sent anything.
   */
  tried: Target;
  /** What the cache lookup found: a hit and its layer, or a semantic miss whose answer is stored. */
  cache: CacheLookup = {};

  constructor(
    readonly call: ChatCall,
    readonly plan: PlannedCall,
    /** Whether the answer goes out as a stream (the request row's `streamed`). */
    readonly streamed: boolean,
    private readonly writer: LogWriter,
  ) {
    this.costs = plan.costs.slice();
    this.tried = plan.decision;
  }

  /** Adds the cost row of one upstream call to `target`. */
  addCost(target: Target, usage: Usage, status: 'ok' | 'error'): void {
    this.costs.push(costRow(this.call, target, usage, status));
  }

  /**
   * Logs the call as failed or given up by the client, with the plan's decision: used_fallback only
   * ever marks a call that a fallback target served.
   */
  logEnded(served: Target, usage: Usage, status: Outcome['status'], errorType: string): void {
    this.log({
      decision: this.plan.decision,
      served,
      latencyMs: performance.now() - this.call.startedAt,
      usage,
      cached: false,
      cacheType: null,
      streamed: this.streamed,
      status,
      errorType,
    });
  }

  /** Logs the call `target` answered (`decision` says whether it was a fallback). Returns the outcome and what the call cost. */
  logServed(decision: RoutingDecision, target: Target, usage: Usage): { outcome: Outcome; cost: number } {
    const outcome: Outcome = {
      decision,
      served: target,
      latencyMs: performance.now() - this.call.startedAt,
      usage,
      cached: false,
      cacheType: null,
      streamed: this.streamed,
      status: 'ok',
      errorType: null,
    };
    return { outcome, cost: this.log(outcome) };
  }

  /**
   * Logs a cache hit. Not free when the LLM classifier was asked: the call costs what its cost
   * rows add up to.
   */
  logCached(usage: Usage): { outcome: Outcome; cost: number } {
    const decision = this.plan.decision;
    const outcome: Outcome = {
      decision,
      served: decision,
      latencyMs: 0,
      usage,
      cached: true,
      cacheType: this.cache.cacheType ?? 'exact',
      tokensSaved: usage,
      streamed: this.streamed,
      status: 'ok',
      errorType: null,
    };
    return { outcome, cost: this.log(outcome) };
  }

  private log(outcome: Outcome): number {
    return logCall(this.writer, this.call, outcome, this.costs);
  }
}
