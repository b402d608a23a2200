import { performance } from 'node:perf_hooks';
import { GatewayError } from '../lib/errors.js';
import type { ProviderRegistry } from '../providers/registry.js';
import type { ChatCompletion, ChatRequest, Usage } from '../providers/types.js';
import { estimateUsage } from '../providers/usage.js';
import { textOf } from '../providers/util.js';
import { buildMeta, costOf, costRow, logCall, ZERO_USAGE, type Outcome } from './accounting.js';
import { classifyFailure, ClientClosedError, exhaustedError, rejectedError, type AttemptFailure } from './attempts.js';
import type { CircuitBreakers } from './breaker.js';
import { hasImage, isCacheable } from './cache/eligibility.js';
import { ExactCache } from './cache/exact-cache.js';
import type { CostLogRow, LogWriter } from './log-writer.js';
import { candidatesFor, resolvePinned, type Needs } from './routing/targets.js';
import type { RoutingStrategy } from './routing/strategy.js';
import { streamCall } from './stream.js';
import { GATEWAY_FIELDS } from './validate.js';
import type { ChatCall, CompletionResult, RoutingDecision, StreamSink, Target, UpstreamErrorSummary } from './types.js';

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
    const decision = call.body.model ? pinnedDecision(this.opts.registry, call.body.model) : await this.opts.strategy.route(call, needs, this.opts.registry.targets());
    const fallbackNeeds: Needs = call.body.model ? { vision: needs.vision, tools: needs.tools, json: needs.json, structured: false } : needs;
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
    return { decision, candidates, cacheKey: cacheable ? ExactCache.key(call.tenantId, decision.provider, decision.model, call.body) : null };
  }

  /** A non-streaming call. Throws GatewayError (provider_error, invalid_request_error) or ClientClosedError. */
  async complete(call: ChatCall): Promise<CompletionResult> {
    const plan = await this.plan(call);
    const { decision } = plan;
    const hit = plan.cacheKey ? this.opts.cache!.get(plan.cacheKey) : undefined;
    if (hit) {
      const usage = hit.completion.usage ?? ZERO_USAGE;
      const outcome: Outcome = { decision, served: decision, latencyMs: 0, usage, cached: true, cacheType: 'exact', tokensSaved: usage, streamed: false, status: 'ok', errorType: null };
      logCall(this.opts.logWriter, call, outcome, []);
      return { completion: hit.completion, meta: buildMeta(call, outcome, 0, []) };
    }

    const errors: UpstreamErrorSummary[] = [];
    const costs: CostLogRow[] = [];
    let upstreamMs = 0;
    const fail = <E extends Error>(err: E, served: Target | null): E => {
      const status = err instanceof ClientClosedError ? 'client_closed' : 'error';
      const errorType = err instanceof GatewayError ? err.type : 'client_closed';
      logCall(this.opts.logWriter, call, { decision, served, latencyMs: performance.now() - call.startedAt, usage: ZERO_USAGE, cached: false, cacheType: null, streamed: false, status, errorType }, costs);
      return err;
    };

    for (const [i, target] of this.ordered(plan.candidates).entries()) {
      const adapter = this.opts.registry.get(target.provider)?.adapter;
      if (!adapter) continue;
      const sent = performance.now();
      try {
        const completion = await adapter.chat(upstreamBody(call, target.model, false), { signal: call.signal, timeoutMs: this.opts.upstreamTimeoutMs });
        upstreamMs += performance.now() - sent;
        this.opts.breakers.success(target.provider);
        const usage = await usageOf(call, completion);
        costs.push(costRow(call, target, usage, 'ok'));
        const final = withFallback(decision, i > 0);
        const outcome: Outcome = { decision: final, served: target, latencyMs: performance.now() - call.startedAt, usage, cached: false, cacheType: null, streamed: false, status: 'ok', errorType: null };
        logCall(this.opts.logWriter, call, outcome, costs);
        // Only the requested target's own answer is cached under its key.
        if (plan.cacheKey && i === 0) this.opts.cache!.set(plan.cacheKey, { completion, inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens });
        this.opts.onAnswer?.(call, () => answerText(completion));
        return { completion, meta: buildMeta(call, outcome, costOf(target, usage), errors, upstreamMs) };
      } catch (err) {
        upstreamMs += performance.now() - sent;
        let failure: AttemptFailure;
        try {
          failure = classifyFailure(err, target, this.opts.breakers, call.signal);
        } catch (e) {
          throw e instanceof ClientClosedError ? fail(e, target) : e;
        }
        errors.push(failure.summary);
        if (failure.answered) costs.push(costRow(call, target, ZERO_USAGE, 'error'));
        if (!failure.fallBack) throw fail(rejectedError(failure.summary), target);
      }
    }
    throw fail(exhaustedError(errors), plan.candidates[plan.candidates.length - 1] ?? null);
  }

  /** A streaming call, written to `sink`. Resolves when the stream has ended one way or another. */
  stream(call: ChatCall, sink: StreamSink): Promise<void> {
    return streamCall(this, call, sink);
  }

  /** Candidates the breakers allow now; if they allow none, the primary is tried anyway. */
  ordered(candidates: Target[]): Target[] {
    const allowed = candidates.filter((t) => this.opts.breakers.allow(t.provider));
    return allowed.length > 0 ? allowed : candidates.slice(0, 1);
  }
}

function pinnedDecision(registry: ProviderRegistry, model: string): RoutingDecision {
  const target = resolvePinned(registry, model);
  return { provider: target.provider, model: target.model, routedBy: 'user-override', taskType: null, complexity: null, usedFallback: false, usedLlmFallback: false };
}

export function needsOf(call: ChatCall): Needs {
  const rf = call.body.response_format?.type;
  const tools = (call.body.tools?.length ?? 0) > 0;
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

/** The decision with usedFallback set, copied only when it changes. */
export function withFallback(decision: RoutingDecision, usedFallback: boolean): RoutingDecision {
  return decision.usedFallback === usedFallback ? decision : Object.assign({}, decision, { usedFallback });
}

/** Upstream usage when reported; otherwise counted from the prompt and the answer. */
export async function usageOf(call: ChatCall, completion: ChatCompletion): Promise<Usage> {
  const u = completion.usage;
  if (u && (u.prompt_tokens > 0 || u.completion_tokens > 0)) return u;
  return estimateUsage(upstreamBody(call, completion.model, false), answerText(completion));
}

/** Everything the model produced: text and tool calls. */
export function answerText(completion: ChatCompletion): string {
  return completion.choices.map((c) => textOf(c.message.content) + (c.message.tool_calls ?? []).map((t) => t.function.name + t.function.arguments).join('')).join('');
}
