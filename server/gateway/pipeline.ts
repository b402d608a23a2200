import { GatewayError } from '../lib/errors.js';
import type { ProviderRegistry } from '../providers/registry.js';
import type { CircuitBreakers } from './breaker.js';
import { logUnrouted } from './accounting.js';
import { orderedTargets, permitFor, runAttempts, type AttemptConsumer } from './attempt-loop.js';
import type { AttemptPermit } from './breaker.js';
import { hasImage, isCacheable } from './cache/eligibility.js';
import { ExactCache } from './cache/exact-cache.js';
import { CacheLayers } from './cache/layers.js';
import { CallState, type PlannedCall } from './call-state.js';
import type { LogWriter } from './log-writer.js';
import type { RoutingResult, RoutingStrategy, Unroutable } from './routing/strategy.js';
import { candidatesFor, resolvePinned, type Needs } from './routing/targets.js';
import { StreamAnswer } from './stream.js';
import type { ChatCall, CompletionResult, RoutedBy, RoutingDecision, StreamSink, Target } from './types.js';
import { WholeAnswer, type AnswerDeps, type ConsumerDeps } from './whole-answer.js';

// The data-plane core: route -> cache lookup -> provider call with fallback -> account -> log.
// Plain TypeScript: the HTTP handler, evals and the judge all call it. The fallback loop itself
// is attempt-loop.ts; a whole answer (whole-answer.ts) and a stream (stream.ts) differ only in
// how each attempt's answer is consumed.

// The judge job reads an answer's text as the core does; it lives with the usage counts now.
export { answerText } from './call-usage.js';

export interface PipelineOptions extends AnswerDeps {
  logWriter: LogWriter;
  strategy: RoutingStrategy;
  /** Targets tried per request, the first included. */
  maxAttempts: number;
  /**
   * A workspace's own providers and circuits when they differ from the deployment's (its own keys,
   * its custom providers); undefined: `registry` and `breakers`. Read from memory on every call.
   */
  scopeFor?: (tenantId: string) => { registry: ProviderRegistry; breakers: CircuitBreakers } | undefined;
}

/** The options, consumer deps and whole-answer consumer of one provider scope. */
interface Scoped {
  opts: PipelineOptions;
  deps: ConsumerDeps;
  wholeAnswer: WholeAnswer;
}

export class ChatPipeline {
  readonly caches: CacheLayers;
  private readonly deployment: Scoped;
  /** Built once per workspace scope (a scope is replaced, not changed, when its providers change). */
  private readonly scoped = new WeakMap<object, Scoped>();

  constructor(readonly opts: PipelineOptions) {
    this.caches = new CacheLayers(opts.cache, opts.semanticCache ?? null);
    const deps = { ...opts, caches: this.caches };
    this.deployment = { opts, deps, wholeAnswer: new WholeAnswer(deps) };
  }

  /** The providers and circuits a workspace's calls use. */
  providersOf(tenantId: string): { registry: ProviderRegistry; breakers: CircuitBreakers } {
    return this.opts.scopeFor?.(tenantId) ?? this.opts;
  }

  private scopeOf(tenantId: string): Scoped {
    const scope = this.opts.scopeFor?.(tenantId);
    if (!scope) return this.deployment;
    let s = this.scoped.get(scope);
    if (!s) {
      const opts = { ...this.opts, registry: scope.registry, breakers: scope.breakers };
      const deps = { ...opts, caches: this.caches };
      s = { opts, deps, wholeAnswer: new WholeAnswer(deps) };
      this.scoped.set(scope, s);
    }
    return s;
  }

  /** Routing decision, fallback candidates and cache key for a call; throws why it cannot be routed. */
  async plan(call: ChatCall): Promise<PlannedCall> {
    const needs = needsOf(call);
    const scoped = this.scopeOf(call.tenantId);
    const routed = await this.route(scoped, call, needs);
    if (routed.decision === null) throw routed.error;
    return this.planFor(scoped, call, routed.decision, routed.costs, needs);
  }

  /** A non-streaming call. Throws GatewayError (provider_error, invalid_request_error) or ClientClosedError. */
  complete(call: ChatCall): Promise<CompletionResult> {
    return this.run(call, this.scopeOf(call.tenantId).wholeAnswer);
  }

  /** A streaming call, written to `sink`. Resolves when the stream has ended one way or another. */
  stream(call: ChatCall, sink: StreamSink): Promise<void> {
    const { deps } = this.scopeOf(call.tenantId);
    return this.run(call, new StreamAnswer(deps, sink, call.body.stream_options?.include_usage === true));
  }

  /**
   * Candidates the breakers would let through now; if they allow none, the primary is tried
   * anyway (see orderedTargets).
   */
  ordered(candidates: Target[], tenantId?: string): Target[] {
    return orderedTargets(tenantId ? this.providersOf(tenantId).breakers : this.opts.breakers, candidates);
  }

  /** Claims the breaker's permit for an attempt about to be sent to `target` (see permitFor). */
  permit(target: Target, lastResort: boolean, tenantId?: string): AttemptPermit {
    return permitFor(tenantId ? this.scopeOf(tenantId).opts : this.opts, target, lastResort);
  }

  /** One call: plan it (logging it if that fails), then answer from the cache or the attempt loop. */
  private async run<Answer, Result>(call: ChatCall, consumer: AttemptConsumer<Answer, Result>): Promise<Result> {
    const scoped = this.scopeOf(call.tenantId);
    const plan = await this.planOrLog(scoped, call, consumer.streamed);
    const state = new CallState(call, plan, consumer.streamed, this.opts.logWriter);
    // The exact layer answers synchronously; the semantic one embeds the last user turn first.
    let found = this.caches.lookup(call, plan.decision, plan.cacheKey);
    if (found instanceof Promise) found = await found;
    state.cache = found;
    if (found.hit) return consumer.cached(found.hit, state);
    return runAttempts(scoped.opts, state, consumer);
  }

  /** The call's plan; when it cannot be routed, the call is logged and the error it ends with thrown. */
  private async planOrLog(scoped: Scoped, call: ChatCall, streamed: boolean): Promise<PlannedCall> {
    let routed: RoutingResult;
    try {
      const needs = needsOf(call);
      routed = await this.route(scoped, call, needs);
      if (routed.decision !== null) return this.planFor(scoped, call, routed.decision, routed.costs, needs);
    } catch (err) {
      throw this.unrouted(call, err, streamed);
    }
    throw this.unrouted(call, routed.error, streamed, routed);
  }

  /** A pinned model bypasses the routing stages and structured-output narrowing. */
  private async route(scoped: Scoped, call: ChatCall, needs: Needs): Promise<RoutingResult> {
    const { registry } = scoped.opts;
    if (call.body.model) return { decision: pinnedDecision(registry, call.body.model), costs: [] };
    return this.opts.strategy.route(call, needs, registry.targets());
  }

  private planFor(
    scoped: Scoped,
    call: ChatCall,
    decision: RoutingDecision,
    costs: PlannedCall['costs'],
    needs: Needs,
  ): PlannedCall {
    const fallbackNeeds: Needs = call.body.model
      ? { vision: needs.vision, tools: needs.tools, json: needs.json, structured: false }
      : needs;
    const candidates = candidatesFor(scoped.opts.registry, decision, fallbackNeeds, this.opts.maxAttempts);
    const cacheable =
      (this.caches.exact !== null || this.caches.semantic !== null) &&
      isCacheable({
        temperature: call.body.temperature,
        cacheFlag: call.body.cache,
        noCacheHeader: call.headerHints.noCache,
        routedByAbTest: decision.routedBy === 'ab-test',
        messages: call.messages,
      });
    return {
      decision,
      candidates,
      cacheKey: cacheable ? ExactCache.key(call.tenantId, decision.provider, decision.model, call.body) : null,
      costs,
    };
  }

  /**
   * A call whose routing failed before any target was chosen (404 unknown model, 502 no capable
   * model) is still logged, with the classifier's cost if it was asked (`routed`: what routing
   * returned, when it got that far). A request refused as invalid (a bad pre-label header) failed
   * validation, and like a bad body writes no row. Returns `err` to rethrow.
   */
  private unrouted(call: ChatCall, err: unknown, streamed: boolean, routed?: Unroutable): unknown {
    if (err instanceof GatewayError && err.type !== 'invalid_request_error')
      logUnrouted(
        this.opts.logWriter,
        call,
        routedBySoFar(call),
        err.type,
        streamed,
        routed?.cell ?? null,
        routed?.costs ?? [],
      );
    return err;
  }
}

function pinnedDecision(registry: ProviderRegistry, model: string): RoutingDecision {
  const target = resolvePinned(registry, model);
  return {
    provider: target.provider,
    model: target.model,
    routedBy: 'user-override',
    taskType: null,
    complexity: null,
    usedFallback: false,
    usedLlmFallback: false,
  };
}

export function needsOf(call: ChatCall): Needs {
  const rf = call.body.response_format?.type;
  // `functions`: OpenAI's deprecated function calling, which needs a model that calls tools too.
  const functions = call.body['functions'];
  const tools = (call.body.tools?.length ?? 0) > 0 || (Array.isArray(functions) && functions.length > 0);
  const json = rf === 'json_object' || rf === 'json_schema';
  return {
    vision: hasImage(call.messages),
    tools,
    json,
    // An explicit requires_structured_output overrides detection either way (SPEC.md).
    structured: call.body.requires_structured_output ?? (json || tools),
  };
}

/** How a call whose routing failed was being routed: pinned, by hints, or by the classifier. */
function routedBySoFar(call: ChatCall): RoutedBy {
  if (call.body.model) return 'user-override';
  const hinted =
    call.body.routing_hint || call.body.complexity_hint || call.headerHints.taskType || call.headerHints.complexity;
  return hinted ? 'routing-hint' : 'classification';
}
