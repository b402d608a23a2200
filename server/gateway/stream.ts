import {
  ProviderError,
  type ChatChunk,
  type ChatRequest,
  type ProviderAdapter,
  type Usage,
} from '../providers/types.js';
import { estimateUsage, reportedUsage } from '../providers/usage.js';
import { buildMeta, streamHeadMeta, ZERO_USAGE } from './accounting.js';
import type { AttemptConsumer } from './attempt-loop.js';
import { ClientClosedError } from './attempts.js';
import type { CachedCompletion } from './cache/exact-cache.js';
import type { CallState } from './call-state.js';
import { completionToChunks, StreamAccumulator } from './stream-accumulator.js';
import { isPrimary, withFallback } from './target-role.js';
import type { RoutingDecision, StreamHeadMeta, StreamSink, Target } from './types.js';
import { upstreamBody } from './upstream-body.js';
import type { ConsumerDeps } from './whole-answer.js';

// A streaming call's attempts. Fallback stays possible until the first upstream chunk is in hand
// (until then the attempt loop, attempt-loop.ts, tries the next target); from then on chunks pass
// straight through (never buffered or coalesced), and a failure ends the stream with an error
// event. The last frame carries `_gateway` (and usage when the client asked for it).

/** A stream whose first chunk (or end) is in: what serve() goes on with. */
export interface OpenedStream {
  body: ChatRequest;
  iterator: AsyncIterator<ChatChunk>;
  first: IteratorResult<ChatChunk>;
  /** The decision as this target reports it (usedFallback set for a fallback). */
  decision: RoutingDecision;
  primary: boolean;
  head: StreamHeadMeta;
}

/** Writes one streamed call to `sink`; one per call. */
export class StreamAnswer implements AttemptConsumer<OpenedStream, void> {
  readonly streamed = true;

  constructor(
    private readonly deps: ConsumerDeps,
    private readonly sink: StreamSink,
    /** The client asked for usage (stream_options.include_usage): a `choices: []` frame ends the stream. */
    private readonly includeUsage: boolean,
  ) {}

  cached(hit: CachedCompletion, state: CallState): void {
    const { call, plan } = state;
    const { sink, includeUsage } = this;
    const usage = hit.completion.usage ?? ZERO_USAGE;
    const { outcome, cost } = state.logCached(usage);
    // Unlike a live stream's, a hit's cost and latency are known before its first chunk.
    const head = streamHeadMeta(call, plan.decision, plan.decision, state.cache.cacheType ?? 'exact', [], 0);
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
  }

  async open(adapter: ProviderAdapter, target: Target, state: CallState): Promise<OpenedStream> {
    const { call, plan } = state;
    const body = upstreamBody(call, target.model, true);
    const iterator = adapter
      .chatStream(body, { signal: call.signal, timeoutMs: this.deps.upstreamTimeoutMs })
      [Symbol.asyncIterator]();
    // The first next() sends the request; what the response head reports is built while the
    // upstream thinks, not after its first chunk.
    const pending = iterator.next();
    // Decided by target, not by position: the breakers may have dropped the primary from the list.
    const primary = isPrimary(plan.decision, target);
    const decision = withFallback(plan.decision, !primary);
    const head = streamHeadMeta(call, decision, target, null, state.errors, 0);
    return { body, iterator, first: await pending, decision, primary, head };
  }

  async serve(opened: OpenedStream, target: Target, state: CallState): Promise<void> {
    const { call, plan } = state;
    const { deps, sink, includeUsage } = this;
    const { body, iterator, head } = opened;
    // Committed to this target: the client gets headers and chunks from here on.
    head.upstreamMs = state.upstreamMs;
    // The provider's verdict waits for the stream's end: one whose streams keep breaking after
    // their first chunk must count as failing, not be cleared by each first chunk.
    sink.start(head);
    const acc = new StreamAccumulator();
    /** A choice's finish chunk held back to carry `_gateway` (see finishes()); the last one wins. */
    let held: ChatChunk | undefined;
    let next = opened.first;
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
            const drained = await sink.drained(call.signal, deps.upstreamTimeoutMs);
            if (!drained || call.signal.aborted) throw new ClientClosedError();
          }
        }
        next = await iterator.next();
      }
    } catch (err) {
      const usage = reportedUsage(acc.usage) ?? (await estimateUsage(body, acc.producedText()));
      const aborted =
        call.signal.aborted || err instanceof ClientClosedError || (err as { aborted?: boolean }).aborted === true;
      state.addCost(target, usage, aborted ? 'ok' : 'error');
      if (aborted) {
        // The provider was answering when the client left.
        deps.breakers.success(target.provider);
        // Stopped while waiting on the client, the upstream generator is still suspended: end it
        // so its connection and timer are released now.
        void iterator.return?.(undefined).catch(() => undefined);
        state.logEnded(target, usage, 'client_closed', 'client_closed');
        return;
      }
      deps.breakers.failure(target.provider);
      const message = `Upstream stream from ${target.provider} broke after it started: ${(err as Error).message}`;
      deps.onUpstreamFailure?.({
        provider: target.provider,
        model: target.model,
        status: err instanceof ProviderError ? err.status : 0,
        kind: 'stream',
        message,
      });
      // What the provider finished before it broke is the client's all the same.
      if (held) sink.chunk(held);
      sink.fail({ type: 'provider_error', message });
      state.logEnded(target, usage, 'error', 'provider_error');
      return;
    }

    deps.breakers.success(target.provider);
    const reported = reportedUsage(acc.usage);
    const usage = reported ?? (await estimateUsage(body, acc.producedText()));
    state.addCost(target, usage, 'ok');
    const { outcome, cost } = state.logServed(opened.decision, target, usage);
    sink.end(
      held ?? finalChunk(acc.id, acc.created, acc.model, includeUsage ? usage : undefined, reported === undefined),
      buildMeta(call, outcome, cost, state.errors, state.upstreamMs),
    );
    deps.onAnswer?.(call, () => acc.producedText());
    // Only the requested target's own answer is cached under its key.
    if (plan.cacheKey && opened.primary) {
      const completion = acc.toCompletion(usage, reported === undefined);
      if (completion) deps.caches.store(call, target, plan.cacheKey, state.cache, completion, usage);
    }
  }
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
