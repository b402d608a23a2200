import type { ChatCompletion, ProviderAdapter } from '../providers/types.js';
import { withEstimatedUsage } from '../providers/usage.js';
import { buildMeta, ZERO_USAGE } from './accounting.js';
import type { AttemptConsumer, AttemptLoopDeps } from './attempt-loop.js';
import type { CachedCompletion, ExactCache } from './cache/exact-cache.js';
import type { CacheLayers } from './cache/layers.js';
import type { SemanticCache } from './cache/semantic/semantic-cache.js';
import { answerText, usageOf } from './call-usage.js';
import type { CallState } from './call-state.js';
import { isPrimary, withFallback } from './target-role.js';
import type { ChatCall, CompletionResult, Target } from './types.js';
import { upstreamBody } from './upstream-body.js';

// A non-streaming call's attempts: each asks for the whole answer, which is the client's once it
// is in (see attempt-loop.ts for what happens to a failed one).

export interface AnswerDeps extends AttemptLoopDeps {
  cache: ExactCache | null;
  /** The semantic layer behind the exact cache (GATEWAY_SEMANTIC_CACHE_ENABLED). */
  semanticCache?: SemanticCache | null;
  /** Called after each successful live (not cached) answer, with the answer's text on demand: the judge samples from here. */
  onAnswer?: (call: ChatCall, answer: () => string) => void;
}

/** What a consumer works with: the options, and the cache layers the pipeline built from them. */
export interface ConsumerDeps extends AnswerDeps {
  caches: CacheLayers;
}

export class WholeAnswer implements AttemptConsumer<ChatCompletion, CompletionResult> {
  readonly streamed = false;

  constructor(private readonly deps: ConsumerDeps) {}

  cached(hit: CachedCompletion, state: CallState): CompletionResult {
    const { outcome, cost } = state.logCached(hit.completion.usage ?? ZERO_USAGE);
    return { completion: hit.completion, meta: buildMeta(state.call, outcome, cost, []) };
  }

  open(adapter: ProviderAdapter, target: Target, state: CallState): Promise<ChatCompletion> {
    return adapter.chat(upstreamBody(state.call, target.model, false), {
      signal: state.call.signal,
      timeoutMs: this.deps.upstreamTimeoutMs,
    });
  }

  async serve(completion: ChatCompletion, target: Target, state: CallState): Promise<CompletionResult> {
    const { call, plan } = state;
    this.deps.breakers.success(target.provider);
    const usage = await usageOf(call, completion);
    if (usage !== completion.usage) withEstimatedUsage(completion, usage);
    state.addCost(target, usage, 'ok');
    // Decided by target, not by position: the breakers may have dropped the primary from the list.
    const primary = isPrimary(plan.decision, target);
    const { outcome, cost } = state.logServed(withFallback(plan.decision, !primary), target, usage);
    // Only the requested target's own answer is cached under its key.
    if (primary) this.deps.caches.store(call, target, plan.cacheKey, state.cache, completion, usage);
    this.deps.onAnswer?.(call, () => answerText(completion));
    return { completion, meta: buildMeta(call, outcome, cost, state.errors, state.upstreamMs) };
  }
}
