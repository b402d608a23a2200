import { performance } from 'node:perf_hooks';
import { ProviderError, type ChatChunk, type Usage } from '../providers/types.js';
import { estimateUsage, reportedUsage } from '../providers/usage.js';
import { buildMeta, costRow, logCall, streamHeadMeta, ZERO_USAGE, type Outcome } from './accounting.js';
import { classifyFailure, ClientClosedError, exhaustedError, rejectedError, type AttemptFailure } from './attempts.js';
import type { CostLogRow } from './log-writer.js';
import type { ChatPipeline, PlannedCall } from './pipeline.js';
import { abandonedUsage, targetRole, isPrimary, upstreamBody, withFallback } from './pipeline.js';
import { completionToChunks, StreamAccumulator } from './stream-accumulator.js';
import type { ChatCall, RoutingDecision, StreamSink, Target, UpstreamErrorSummary } from './types.js';

// The streaming path. Fallback stays possible until the first upstream chunk is in hand; from then
// on chunks pass straight through (never buffered or coalesced), and a failure ends the stream
// with an error event. The last frame carries `_gateway` (and usage when the client asked for it).

export async function streamCall(p: ChatPipeline, call: ChatCall, sink: StreamSink): Promise<void> {
  const { registry, breakers, cache, logWriter, upstreamTimeoutMs } = p.opts;
  let plan: PlannedCall;
  try {
    plan = await p.plan(call);
  } catch (err) {
    throw p.unrouted(call, err, true);
  }
  const includeUsage = call.body.stream_options?.include_usage === true;

  const hit = plan.cacheKey ? cache!.get(plan.cacheKey) : undefined;
  if (hit) {
    const usage = hit.completion.usage ?? ZERO_USAGE;
    const outcome: Outcome = {
      decision: plan.decision,
      served: plan.decision,
      latencyMs: 0,
      usage,
      cached: true,
      cacheType: 'exact',
      tokensSaved: usage,
      streamed: true,
      status: 'ok',
      errorType: null,
    };
    // Not free when the LLM classifier was asked: the call costs what its cost rows add up to.
    const cost = logCall(logWriter, call, outcome, []);
    // Unlike a live stream's, a hit's cost and latency are known before its first chunk.
    const head = streamHeadMeta(call, plan.decision, plan.decision, 'exact', [], 0);
    head.cost = cost;
    head.latencyMs = 0;
    sink.start(head);
    const chunks = completionToChunks(hit.completion);
    // Without include_usage the answer's last chunk carries `_gateway` (see finishes()).
    const last = includeUsage ? undefined : chunks.pop();
    for (const c of chunks) sink.chunk(c);
    sink.end(
      last ??
        finalChunk(
          hit.completion.id,
          hit.completion.created,
          hit.completion.model,
          includeUsage ? usage : undefined,
          hit.completion.usage_estimated === true,
        ),
      buildMeta(call, outcome, cost, []),
    );
    return;
  }

  const errors: UpstreamErrorSummary[] = [];
  const costs: CostLogRow[] = [];
  let upstreamMs = 0;
  const log = (
    decision: RoutingDecision,
    served: Target,
    usage: Usage,
    status: Outcome['status'],
    errorType: string | null,
  ) =>
    logCall(
      logWriter,
      call,
      {
        decision,
        served,
        latencyMs: performance.now() - call.startedAt,
        usage,
        cached: false,
        cacheType: null,
        streamed: true,
        status,
        errorType,
      },
      costs,
    );

  const targets = p.ordered(plan.candidates);
  // The call's row names the last target actually tried (see complete() in pipeline.ts).
  let tried: Target = plan.decision;
  for (let i = 0; i < targets.length; i++) {
    const target = targets[i]!;
    const adapter = registry.get(target.provider)?.adapter;
    if (!adapter) continue;
    const permit = p.permit(target, errors.length === 0 && i === targets.length - 1);
    if (permit === 'denied') continue;
    tried = target;
    const body = upstreamBody(call, target.model, true);
    const sent = performance.now();
    const iterator = adapter
      .chatStream(body, { signal: call.signal, timeoutMs: upstreamTimeoutMs })
      [Symbol.asyncIterator]();
    // The first next() sends the request; what the response head reports is built while the
    // upstream thinks, not after its first chunk.
    const first = iterator.next();
    // Decided by target, not by position: the breakers may have dropped the primary from the list.
    const primary = isPrimary(plan.decision, target);
    const decision = withFallback(plan.decision, !primary);
    const head = streamHeadMeta(call, decision, target, null, errors, 0);
    let next: IteratorResult<ChatChunk>;
    try {
      next = await first;
    } catch (err) {
      upstreamMs += performance.now() - sent;
      let failure: AttemptFailure;
      try {
        failure = classifyFailure(err, target, breakers, call.signal, permit, targetRole(plan.decision, target));
      } catch (e) {
        if (e instanceof ClientClosedError)
          log(plan.decision, target, await abandonedUsage(call, target, e, costs), 'client_closed', 'client_closed');
        throw e;
      }
      errors.push(failure.summary);
      p.opts.onUpstreamFailure?.(failure.summary);
      if (failure.answered) costs.push(costRow(call, target, ZERO_USAGE, 'error'));
      if (!failure.fallBack) {
        const rejected = rejectedError(failure.summary);
        log(plan.decision, target, ZERO_USAGE, 'error', rejected.type);
        throw rejected;
      }
      continue;
    }

    // Committed to this target: the client gets headers and chunks from here on.
    upstreamMs += performance.now() - sent;
    head.upstreamMs = upstreamMs;
    // The provider's verdict waits for the stream's end: one whose streams keep breaking after
    // their first chunk must count as failing, not be cleared by each first chunk.
    sink.start(head);
    const acc = new StreamAccumulator();
    /** A choice's finish chunk held back to carry `_gateway` (see finishes()); the last one wins. */
    let held: ChatChunk | undefined;
    try {
      while (!next.done) {
        const chunk = next.value;
        acc.add(chunk);
        // Usage travels once, in the final frame: usage-only chunks are not forwarded, and the
        // sink leaves usage out of the others.
        // A client that reads slower than the upstream writes: the next chunk is pulled only once
        // the socket has taken this one, so the upstream connection pauses (SseAnswer) instead
        // of the gateway buffering the whole answer in memory.
        if (chunk.choices.length > 0) {
          let out: ChatChunk | undefined = chunk;
          if (!includeUsage && finishes(chunk)) {
            out = held;
            held = chunk;
          }
          if (out && !sink.chunk(out)) {
            // A client that reads nothing for as long as an upstream call may take is given up.
            const drained = await sink.drained(call.signal, upstreamTimeoutMs);
            if (!drained || call.signal.aborted) throw new ClientClosedError();
          }
        }
        next = await iterator.next();
      }
    } catch (err) {
      const usage = reportedUsage(acc.usage) ?? (await estimateUsage(body, acc.producedText()));
      const aborted =
        call.signal.aborted || err instanceof ClientClosedError || (err as { aborted?: boolean }).aborted === true;
      costs.push(costRow(call, target, usage, aborted ? 'ok' : 'error'));
      // Logged with the plan's decision: used_fallback only marks a call a fallback target served.
      if (aborted) {
        // The provider was answering when the client left.
        breakers.success(target.provider);
        // Stopped while waiting on the client, the upstream generator is still suspended: end it
        // so its connection and timer are released now.
        void iterator.return?.(undefined).catch(() => undefined);
        log(plan.decision, target, usage, 'client_closed', 'client_closed');
        return;
      }
      breakers.failure(target.provider);
      const message = `Upstream stream from ${target.provider} broke after it started: ${(err as Error).message}`;
      p.opts.onUpstreamFailure?.({
        provider: target.provider,
        model: target.model,
        status: err instanceof ProviderError ? err.status : 0,
        kind: 'stream',
        message,
      });
      // What the provider finished before it broke is the client's all the same.
      if (held) sink.chunk(held);
      sink.fail({ type: 'provider_error', message });
      log(plan.decision, target, usage, 'error', 'provider_error');
      return;
    }

    breakers.success(target.provider);
    const reported = reportedUsage(acc.usage);
    const usage = reported ?? (await estimateUsage(body, acc.producedText()));
    costs.push(costRow(call, target, usage, 'ok'));
    const outcome: Outcome = {
      decision,
      served: target,
      latencyMs: performance.now() - call.startedAt,
      usage,
      cached: false,
      cacheType: null,
      streamed: true,
      status: 'ok',
      errorType: null,
    };
    const cost = logCall(logWriter, call, outcome, costs);
    sink.end(
      held ?? finalChunk(acc.id, acc.created, acc.model, includeUsage ? usage : undefined, reported === undefined),
      buildMeta(call, outcome, cost, errors, upstreamMs),
    );
    p.opts.onAnswer?.(call, () => acc.producedText());
    // Only the requested target's own answer is cached under its key.
    if (plan.cacheKey && primary) {
      const completion = acc.toCompletion(usage, reported === undefined);
      if (completion)
        cache!.set(plan.cacheKey, {
          completion,
          inputTokens: usage.prompt_tokens,
          outputTokens: usage.completion_tokens,
        });
    }
    return;
  }

  const exhausted = exhaustedError(errors);
  log(plan.decision, tried, ZERO_USAGE, 'error', exhausted.type);
  throw exhausted;
}

/**
 * The frame that carries `_gateway` is the last data frame before [DONE] (SPEC.md). With
 * `stream_options.include_usage` that is the `choices: []` usage frame, as OpenAI ends such a
 * stream. Without it OpenAI sends no such frame, and code that reads `chunk.choices[0].delta` (the
 * OpenAI SDKs' own examples) fails on one: then the answer's last finish chunk (a choice with its
 * finish_reason) is held back and sent last, carrying `_gateway`. Content chunks are never held.
 * A stream without any finish chunk still ends with a `choices: []` frame.
 */
function finishes(chunk: ChatChunk): boolean {
  for (const c of chunk.choices) if (c.finish_reason) return true;
  return false;
}

/** `estimated`: the usage is a count of the stream, the provider having reported none. */
function finalChunk(
  id: string,
  created: number,
  model: string,
  usage: Usage | undefined,
  estimated = false,
): ChatChunk {
  const chunk: ChatChunk = { id, object: 'chat.completion.chunk', created, model, choices: [] };
  if (usage) {
    chunk.usage = usage;
    if (estimated) chunk['usage_estimated'] = true;
  }
  return chunk;
}
