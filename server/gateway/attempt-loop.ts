import { performance } from 'node:perf_hooks';
import type { ProviderRegistry } from '../providers/registry.js';
import type { ProviderAdapter } from '../providers/types.js';
import { ZERO_USAGE } from './accounting.js';
import { classifyFailure, ClientClosedError, exhaustedError, rejectedError, type AttemptFailure } from './attempts.js';
import type { AttemptPermit, CircuitBreakers } from './breaker.js';
import type { CachedCompletion } from './cache/exact-cache.js';
import { abandonedUsage } from './call-usage.js';
import type { CallState } from './call-state.js';
import { targetRole } from './target-role.js';
import type { Target, UpstreamErrorSummary } from './types.js';

// The try-the-next-target loop, one for whole answers and streams: which candidates the breakers
// let through, the probe permits, the cost rows and error summaries of failed attempts, and what
// ends the call (the client left, the request was refused, every target failed). How an attempt's
// answer is read and handed to the client is the consumer's (whole-answer.ts, stream.ts).

/** What the loop uses of the data plane. */
export interface AttemptLoopDeps {
  registry: ProviderRegistry;
  breakers: CircuitBreakers;
  upstreamTimeoutMs: number;
  /**
   * Told of every failed upstream attempt, those without an answer (a timeout, a reset, a stream
   * cut before its first content, or after it) included: metrics. Answered ones also write a cost row.
   */
  onUpstreamFailure?: (failure: UpstreamErrorSummary) => void;
}

/**
 * How the attempts of one call are consumed: the only part that differs between a whole answer
 * and a stream. `Answer` is what open() has in hand once a target has answered (a whole
 * completion; a stream's first chunk), `Result` what the call resolves with.
 */
export interface AttemptConsumer<Answer, Result> {
  /** Whether the answer goes out as a stream (the request row's `streamed`). */
  readonly streamed: boolean;
  /** Answers from the cache: the plan's own target's answer, stored by an earlier call. */
  cached(hit: CachedCompletion, state: CallState): Result;
  /**
   * Sends the call to `target` and waits for its answer to start. Rejects with why the attempt
   * failed: the loop then decides whether the next target is tried.
   */
  open(adapter: ProviderAdapter, target: Target, state: CallState): Promise<Answer>;
  /**
   * `target` answered: the call is committed to it, no fallback from here on. Hands the answer to
   * the client, logs the call and resolves with its result; a failure from here on is the
   * consumer's to report.
   */
  serve(answer: Answer, target: Target, state: CallState): Promise<Result>;
}

/**
 * Tries the plan's candidates in turn until one answers. Throws GatewayError (provider_error when
 * every target failed, invalid_request_error when the request was refused) or ClientClosedError,
 * the call logged first.
 */
export async function runAttempts<Answer, Result>(
  deps: AttemptLoopDeps,
  state: CallState,
  consumer: AttemptConsumer<Answer, Result>,
): Promise<Result> {
  const targets = orderedTargets(deps.breakers, state.plan.candidates);
  for (let i = 0; i < targets.length; i++) {
    const target = targets[i]!;
    const adapter = deps.registry.get(target.provider)?.adapter;
    if (!adapter) continue;
    const permit = permitFor(deps, target, state.errors.length === 0 && i === targets.length - 1);
    if (permit === 'denied') continue;
    state.tried = target;
    const sent = performance.now();
    let answer: Answer;
    try {
      answer = await consumer.open(adapter, target, state);
    } catch (err) {
      state.upstreamMs += performance.now() - sent;
      await failedAttempt(deps, state, err, target, permit);
      continue;
    }
    state.upstreamMs += performance.now() - sent;
    return consumer.serve(answer, target, state);
  }
  const exhausted = exhaustedError(state.errors);
  state.logEnded(state.tried, ZERO_USAGE, 'error', exhausted.type);
  throw exhausted;
}

/**
 * Records a failed attempt (its error summary, and its cost row when the provider answered).
 * Returns when the next target may be tried; otherwise logs the call and throws what ends it.
 */
async function failedAttempt(
  deps: AttemptLoopDeps,
  state: CallState,
  err: unknown,
  target: Target,
  permit: AttemptPermit,
): Promise<void> {
  const { call, plan } = state;
  let failure: AttemptFailure;
  try {
    failure = classifyFailure(err, target, deps.breakers, call.signal, permit, targetRole(plan.decision, target));
  } catch (e) {
    if (!(e instanceof ClientClosedError)) throw e;
    const usage = await abandonedUsage(call, target, e);
    if (usage) state.addCost(target, usage, 'ok');
    state.logEnded(target, usage ?? ZERO_USAGE, 'client_closed', 'client_closed');
    throw e;
  }
  state.errors.push(failure.summary);
  deps.onUpstreamFailure?.(failure.summary);
  if (failure.answered) state.addCost(target, ZERO_USAGE, 'error');
  if (!failure.fallBack) {
    const rejected = rejectedError(failure.summary);
    state.logEnded(target, ZERO_USAGE, 'error', rejected.type);
    throw rejected;
  }
}

/**
 * Candidates the breakers would let through now; if they allow none, the primary is tried
 * anyway. Only a look: a half-open circuit's probe is claimed by permitFor(), when an attempt is sent.
 */
export function orderedTargets(breakers: CircuitBreakers, candidates: Target[]): Target[] {
  const allowed = candidates.filter((t) => breakers.mayTry(t.provider));
  return allowed.length > 0 ? allowed : candidates.slice(0, 1);
}

/**
 * Called right before an attempt is sent to `target`: 'denied' means skip it (its circuit is
 * open, or another request is probing it). `lastResort` (nothing tried yet and no target left)
 * goes out unclaimed rather than leave the call with no attempt at all.
 */
export function permitFor(
  deps: Pick<AttemptLoopDeps, 'breakers' | 'upstreamTimeoutMs'>,
  target: Target,
  lastResort: boolean,
): AttemptPermit {
  const permit = deps.breakers.claim(target.provider, deps.upstreamTimeoutMs);
  return permit === 'denied' && lastResort ? 'free' : permit;
}
