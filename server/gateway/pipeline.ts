import { performance } from 'node:perf_hooks';
import { GatewayError } from '../lib/errors.js';
import type { ProviderRegistry } from '../providers/registry.js';
import type { ChatCompletion, ChatRequest, Usage } from '../providers/types.js';
import { estimateUsage, reportedUsage, withEstimatedUsage } from '../providers/usage.js';
import { textOf } from '../providers/util.js';
import { buildMeta, costRow, logCall, logUnrouted, ZERO_USAGE, type Outcome } from './accounting.js';
import { classifyFailure, ClientClosedError, exhaustedError, rejectedError, type AttemptFailure } from './attempts.js';
import type { AttemptPermit, CircuitBreakers } from './breaker.js';
import { hasImage, isCacheable } from './cache/eligibility.js';
import { ExactCache } from './cache/exact-cache.js';
import type { CostLogRow, LogWriter } from './log-writer.js';
import { candidatesFor, resolvePinned, type Needs } from './routing/targets.js';
import type { RoutingStrategy } from './routing/strategy.js';
import { otherOutputOf } from './stream-accumulator.js';
import { streamCall } from './stream.js';
import { GATEWAY_FIELDS } from './validate.js';
import type {
  ChatCall,
  CompletionResult,
  RoutedBy,
  RoutingDecision,
  StreamSink,
  Target,
  TargetRole,
  UpstreamErrorSummary,
} from './types.js';

// The data-plane core: route -> cache lookup -> provider call with fallback -> account -> log.
// Plain TypeScript: the HTTP handler, evals and the judge all call it.

export interface PipelineOptions {
  registry: ProviderRegistry;
  breakers: CircuitBreakers;
  cache: ExactCache | null;
  logWriter: LogWriter;
  strategy: RoutingStrategy;
  upstreamTimeoutMs: number;
  /** Targets tried per request, the first included. */
  maxAttempts: number;
  /** Called after each successful live (not cached) answer, with the answer's text on demand: the judge samples from here. */
  onAnswer?: (call: ChatCall, answer: () => string) => void;
  /**
   * Told of every failed upstream attempt, those without an answer (a timeout, a reset, a stream
   * cut before its first content, or after it) included: metrics. Answered ones also write a cost row.
   */
  onUpstreamFailure?: (failure: UpstreamErrorSummary) => void;
}

export interface PlannedCall {
  decision: RoutingDecision;
  candidates: Target[];
  cacheKey: string | null;
}

export class ChatPipeline {
  constructor(readonly opts: PipelineOptions) {}

  /** Routing decision, fallback candidates and cache key for a call. */
  async plan(call: ChatCall): Promise<PlannedCall> {
    const needs = needsOf(call);
    // A pinned model bypasses the routing stages and structured-output narrowing.
    const decision = call.body.model
      ? pinnedDecision(this.opts.registry, call.body.model)
      : await this.opts.strategy.route(call, needs, this.opts.registry.targets());
    const fallbackNeeds: Needs = call.body.model
      ? { vision: needs.vision, tools: needs.tools, json: needs.json, structured: false }
      : needs;
    const candidates = candidatesFor(this.opts.registry, decision, fallbackNeeds, this.opts.maxAttempts);
    const cacheable =
      this.opts.cache !== null &&
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
    };
  }

  /** A non-streaming call. Throws GatewayError (provider_error, invalid_request_error) or ClientClosedError. */
  async complete(call: ChatCall): Promise<CompletionResult> {
    let plan: PlannedCall;
    try {
      plan = await this.plan(call);
    } catch (err) {
      throw this.unrouted(call, err, false);
    }
    const { decision } = plan;
    const hit = plan.cacheKey ? this.opts.cache!.get(plan.cacheKey) : undefined;
    if (hit) {
      const usage = hit.completion.usage ?? ZERO_USAGE;
      const outcome: Outcome = {
        decision,
        served: decision,
        latencyMs: 0,
        usage,
        cached: true,
        cacheType: 'exact',
        tokensSaved: usage,
        streamed: false,
        status: 'ok',
        errorType: null,
      };
      // Not free when the LLM classifier was asked: the call costs what its cost rows add up to.
      const cost = logCall(this.opts.logWriter, call, outcome, []);
      return { completion: hit.completion, meta: buildMeta(call, outcome, cost, []) };
    }

    const errors: UpstreamErrorSummary[] = [];
    const costs: CostLogRow[] = [];
    let upstreamMs = 0;
    // A failed call is logged with the plan's decision: used_fallback only ever marks a call that
    // a fallback target served.
    const fail = <E extends Error>(err: E, served: Target | null, usage: Usage = ZERO_USAGE): E => {
      const status = err instanceof ClientClosedError ? 'client_closed' : 'error';
      const errorType = err instanceof GatewayError ? err.type : 'client_closed';
      logCall(
        this.opts.logWriter,
        call,
        {
          decision,
          served,
          latencyMs: performance.now() - call.startedAt,
          usage,
          cached: false,
          cacheType: null,
          streamed: false,
          status,
          errorType,
        },
        costs,
      );
      return err;
    };

    const targets = this.ordered(plan.candidates);
    // The call's row names the last target actually tried: the breakers may have skipped the
    // plan's later candidates, which were never sent anything.
    let tried: Target = decision;
    for (let i = 0; i < targets.length; i++) {
      const target = targets[i]!;
      const adapter = this.opts.registry.get(target.provider)?.adapter;
      if (!adapter) continue;
      const permit = this.permit(target, errors.length === 0 && i === targets.length - 1);
      if (permit === 'denied') continue;
      tried = target;
      const sent = performance.now();
      try {
        const completion = await adapter.chat(upstreamBody(call, target.model, false), {
          signal: call.signal,
          timeoutMs: this.opts.upstreamTimeoutMs,
        });
        upstreamMs += performance.now() - sent;
        this.opts.breakers.success(target.provider);
        const usage = await usageOf(call, completion);
        if (usage !== completion.usage) withEstimatedUsage(completion, usage);
        costs.push(costRow(call, target, usage, 'ok'));
        // Decided by target, not by position: the breakers may have dropped the primary from the list.
        const primary = isPrimary(decision, target);
        const outcome: Outcome = {
          decision: withFallback(decision, !primary),
          served: target,
          latencyMs: performance.now() - call.startedAt,
          usage,
          cached: false,
          cacheType: null,
          streamed: false,
          status: 'ok',
          errorType: null,
        };
        const cost = logCall(this.opts.logWriter, call, outcome, costs);
        // Only the requested target's own answer is cached under its key.
        if (plan.cacheKey && primary)
          this.opts.cache!.set(plan.cacheKey, {
            completion,
            inputTokens: usage.prompt_tokens,
            outputTokens: usage.completion_tokens,
          });
        this.opts.onAnswer?.(call, () => answerText(completion));
        return { completion, meta: buildMeta(call, outcome, cost, errors, upstreamMs) };
      } catch (err) {
        upstreamMs += performance.now() - sent;
        let failure: AttemptFailure;
        try {
          failure = classifyFailure(err, target, this.opts.breakers, call.signal, permit, targetRole(decision, target));
        } catch (e) {
          if (!(e instanceof ClientClosedError)) throw e;
          const usage = await abandonedUsage(call, target, e, costs);
          throw fail(e, target, usage);
        }
        errors.push(failure.summary);
        this.opts.onUpstreamFailure?.(failure.summary);
        if (failure.answered) costs.push(costRow(call, target, ZERO_USAGE, 'error'));
        if (!failure.fallBack) throw fail(rejectedError(failure.summary), target);
      }
    }
    throw fail(exhaustedError(errors), tried);
  }

  /** A streaming call, written to `sink`. Resolves when the stream has ended one way or another. */
  stream(call: ChatCall, sink: StreamSink): Promise<void> {
    return streamCall(this, call, sink);
  }

  /**
   * A call whose routing failed before any target was chosen (404 unknown model, 502 no capable
   * model) is still logged, with the classifier's cost if it was asked. A request refused as
   * invalid (a bad pre-label header) failed validation, and like a bad body writes no row.
   * Returns `err` to rethrow.
   */
  unrouted(call: ChatCall, err: unknown, streamed: boolean): unknown {
    if (err instanceof GatewayError && err.type !== 'invalid_request_error')
      logUnrouted(this.opts.logWriter, call, routedBySoFar(call), err.type, streamed);
    return err;
  }

  /**
   * Candidates the breakers would let through now; if they allow none, the primary is tried
   * anyway. Only a look: a half-open circuit's probe is claimed by permit(), when an attempt is sent.
   */
  ordered(candidates: Target[]): Target[] {
    const allowed = candidates.filter((t) => this.opts.breakers.mayTry(t.provider));
    return allowed.length > 0 ? allowed : candidates.slice(0, 1);
  }

  /**
   * Called right before an attempt is sent to `target`: 'denied' means skip it (its circuit is
   * open, or another request is probing it). `lastResort` (nothing tried yet and no target left)
   * goes out unclaimed rather than leave the call with no attempt at all.
   */
  permit(target: Target, lastResort: boolean): AttemptPermit {
    const permit = this.opts.breakers.claim(target.provider, this.opts.upstreamTimeoutMs);
    return permit === 'denied' && lastResort ? 'free' : permit;
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

/** The body sent upstream: the client's, without gateway-only fields, with the target's model id. */
export function upstreamBody(call: ChatCall, model: string, stream: boolean): ChatRequest {
  // Copied key by key rather than spread and pruned with delete: both of those are slow paths in
  // V8 that leave garbage the young-generation collector has to promote.
  const body: Record<string, unknown> = {};
  const source = call.body as Record<string, unknown>;
  for (const key in source) {
    if (!NOT_FORWARDED.has(key)) body[key] = source[key];
  }
  body.model = model;
  body.messages = call.messages;
  if (stream) body.stream = true;
  return body as ChatRequest;
}

/** Request fields the gateway consumes itself; the stream fields are set per attempt. */
const NOT_FORWARDED: ReadonlySet<string> = new Set([...GATEWAY_FIELDS, 'stream', 'stream_options']);

/** How a call whose routing failed was being routed: pinned, by hints, or by the classifier. */
function routedBySoFar(call: ChatCall): RoutedBy {
  if (call.body.model) return 'user-override';
  const hinted =
    call.body.routing_hint || call.body.complexity_hint || call.headerHints.taskType || call.headerHints.complexity;
  return hinted ? 'routing-hint' : 'classification';
}

/** Whether `target` is the decision's own target (the plan's first candidate), not a fallback. */
export function isPrimary(decision: RoutingDecision, target: Target): boolean {
  return target.provider === decision.provider && target.model === decision.model;
}

/**
 * Who chose `target`: the caller, who named it in the request; the router; or the fallback rule,
 * after the decision's own target failed. Decides what a refusal of the request means (see
 * classifyFailure in attempts.ts).
 */
export function targetRole(decision: RoutingDecision, target: Target): TargetRole {
  if (!isPrimary(decision, target)) return 'fallback';
  return decision.routedBy === 'user-override' ? 'named' : 'routed';
}

/** The decision with usedFallback set, copied only when it changes. */
export function withFallback(decision: RoutingDecision, usedFallback: boolean): RoutingDecision {
  return decision.usedFallback === usedFallback ? decision : Object.assign({}, decision, { usedFallback });
}

/**
 * Upstream usage when reported; otherwise counted from the prompt and the answer: its text and tool
 * calls, and its reasoning, refusal or legacy function call, billed as output too.
 */
export async function usageOf(call: ChatCall, completion: ChatCompletion): Promise<Usage> {
  return (
    reportedUsage(completion.usage) ??
    estimateUsage(
      upstreamBody(call, completion.model, false),
      answerText(completion) + completion.choices.map((c) => otherOutputOf(c.message)).join(''),
    )
  );
}

/** Everything the model produced: text and tool calls. */
export function answerText(completion: ChatCompletion): string {
  return completion.choices
    .map(
      (c) =>
        textOf(c.message.content) +
        (c.message.tool_calls ?? []).map((t) => t.function.name + t.function.arguments).join(''),
    )
    .join('');
}

/**
 * What a call the client left costs: nothing, unless the provider had taken the request (its
 * success head was in: a stream whose first content had not come yet), which bills its prompt.
 * Then the prompt is counted (input tokens only) and its cost row added to `costs`.
 */
export async function abandonedUsage(
  call: ChatCall,
  target: Target,
  closed: ClientClosedError,
  costs: CostLogRow[],
): Promise<Usage> {
  if (!closed.providerAccepted) return ZERO_USAGE;
  const prompt = (await estimateUsage(upstreamBody(call, target.model, false), '')).prompt_tokens;
  const usage: Usage = { prompt_tokens: prompt, completion_tokens: 0, total_tokens: prompt };
  costs.push(costRow(call, target, usage, 'ok'));
  return usage;
}
