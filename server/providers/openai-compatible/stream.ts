// Normalises an OpenAI-style SSE stream: chunks pass through untouched, except that
// - usage, when the server reports it, is delivered in a final `choices: []` chunk (some servers
//   attach it to the last content chunk); a stream without any is counted by the core
//   (gateway/stream.ts), as every provider's is;
// - the opening role-only chunk (`{role:'assistant', content:''}`) is held back until the first
//   chunk with content, then handed on just before it (takeOpening): a stream that dies before any
//   content has yielded nothing and the core can still fall back, and one that lives is passed on
//   as the upstream sent it. With n > 1 there is one opening per choice index (vLLM sends them all
//   before any content), each held and handed on in arrival order. "Content" is any delta field
//   other than role that is not null, '' or []: text, tool calls, a refusal, and also the legacy
//   function_call, audio, or DeepSeek's reasoning_content, which may come long before any text;
// - a stream that stops before `[DONE]` or a finish_reason is reported as cut, and one that ends
//   without any content, tool call, finish_reason or usage as broken (see end());
// - finish reasons and usage as OpenAI names and counts them (answer-rules.ts): an error frame or
//   a finish_reason "error" fails the stream;
// - tool calls numbered as OpenAI numbers them, one index per call (tool-call-numbering.ts);
// - Mistral's lists of thinking and text chunks as OpenAI's strings (content-chunks.ts).
import { ProviderError, type ChatChunk, type Usage } from '../types.js';
import type { SseEvent } from '../http.js';
import { isRetryableStatus, redact } from '../http-errors.js';
import { forgetRawJson, keepRawJson } from '../raw-json.js';
import { streamFailure } from '../stream-errors.js';
import { emptyBesides, isRecord, nowSeconds, usageChunk } from '../util.js';
import { withBillingDetail } from '../usage.js';
import { isErrorFinish, renamedFinish, withReasoningInCompletion } from './answer-rules.js';
import { flattenContentChunks } from './content-chunks.js';
import { ToolCallNumbering } from './tool-call-numbering.js';

export class OpenAIStreamNormalizer {
  private done = false;
  private sawFinish = false;
  private usageSent = false;
  private pendingUsage: Usage | undefined;
  private serviceTier: string | undefined;
  private id = '';
  private model: string;
  private created = nowSeconds();
  private started = false;
  /** The role-only opening chunk, held until content arrives (the first of them when n > 1). */
  private opening: ChatChunk | undefined;
  /** Openings of further choice indexes, in arrival order; allocated only when there are any. */
  private moreOpenings: ChatChunk[] | undefined;
  /** Allocated with the stream's first tool call. */
  private toolCalls: ToolCallNumbering | undefined;

  /** `secrets`: the provider's key, never to be repeated in an error the stream reports. */
  constructor(
    private readonly provider: string,
    model: string,
    private readonly secrets: readonly string[] = [],
  ) {
    this.model = model;
  }

  /** Translates one SSE event; undefined when there is nothing to forward. */
  push(ev: SseEvent): ChatChunk | undefined {
    if (this.done) return undefined;
    const data = ev.data;
    if (data === '[DONE]') {
      this.done = true;
      return undefined;
    }
    if (data === '') return undefined;
    const parsed: unknown = JSON.parse(data);
    if (!isRecord(parsed)) return undefined;
    // An error frame, also one that carries a choice with finish_reason "error" (OpenRouter's
    // mid-stream error): the provider failed, whatever else the frame holds.
    if (parsed['error'] !== undefined && parsed['error'] !== null) throw this.inStreamError(parsed['error']);
    // Sent on as the upstream wrote it unless changed below (see raw-json.ts). Not one whose JSON
    // spanned several `data:` lines (valid SSE): its text holds line breaks, which would break the
    // frame it is sent in.
    const chunk = data.includes('\n')
      ? (parsed as unknown as ChatChunk)
      : keepRawJson(parsed as unknown as ChatChunk, data);
    if (typeof chunk.id === 'string') this.id = chunk.id;
    if (typeof chunk.model === 'string') this.model = chunk.model;
    if (typeof chunk.created === 'number') this.created = chunk.created;
    // OpenAI names the service tier on every chunk; the call is billed at it (usage.ts).
    const tier = parsed['service_tier'];
    if (typeof tier === 'string') this.serviceTier = tier;
    if (chunk.usage && this.serviceTier !== undefined)
      withBillingDetail(chunk.usage, { serviceTier: this.serviceTier });
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    if (chunk.usage && withReasoningInCompletion(chunk.usage)) forgetRawJson(chunk);
    if (choices.length === 0) {
      if (chunk.usage) {
        this.usageSent = true;
        this.pendingUsage = undefined;
        return chunk;
      }
      return undefined;
    }
    // Mistral's thinking and text chunks, as OpenAI's content and reasoning_content (content-chunks.ts).
    for (const c of choices) {
      if (
        c.delta &&
        Array.isArray(c.delta.content) &&
        flattenContentChunks(c.delta as unknown as Record<string, unknown>, true)
      )
        forgetRawJson(chunk);
    }
    if (!this.started) {
      const first = choices[0];
      if (first && choices.length === 1 && isEmptyChoice(first) && !chunk.usage) {
        if (first.delta?.role) this.holdOpening(chunk, first.index);
        return undefined;
      }
      this.started = true;
    }
    for (const c of choices) {
      if (c.delta?.tool_calls && (this.toolCalls ??= new ToolCallNumbering()).renumber(c.index, c.delta))
        forgetRawJson(chunk);
      if (c.finish_reason) this.finish(chunk, c);
    }
    if (chunk.usage) {
      // Usage on a content chunk (Mistral and others): move it to the final usage chunk.
      this.pendingUsage = chunk.usage;
      delete chunk.usage;
      forgetRawJson(chunk);
    }
    return chunk;
  }

  /** A choice's finish, in OpenAI's terms (answer-rules.ts): a failure is thrown, another name renamed. */
  private finish(chunk: ChatChunk, choice: ChatChunk['choices'][number]): void {
    const reason = choice.finish_reason as string;
    if (isErrorFinish(reason))
      throw streamFailure(
        this.provider,
        'stream ended its answer with finish_reason "error" (the provider failed mid-answer)',
      );
    this.sawFinish = true;
    const renamed = renamedFinish(reason);
    if (renamed) {
      choice.finish_reason = renamed;
      forgetRawJson(chunk);
    }
  }

  /**
   * The next held role-only opening chunk, each once and in arrival order: once push() has
   * returned the first chunk with content, call until undefined and pass them on just before that
   * chunk. Undefined before content has come, and when there are none left.
   */
  takeOpening(): ChatChunk | undefined {
    if (!this.started) return undefined;
    const opening = this.opening;
    if (opening) this.opening = this.moreOpenings?.shift();
    return opening;
  }

  /** Holds a role-only opening, one per choice index (a repeat for an index is dropped), at most MAX_OPENINGS. */
  private holdOpening(chunk: ChatChunk, index: number): void {
    const first = this.opening;
    if (!first) {
      this.opening = chunk;
      return;
    }
    if (first.choices[0]!.index === index) return;
    const more = this.moreOpenings;
    if (!more) {
      this.moreOpenings = [chunk];
      return;
    }
    if (more.length >= MAX_OPENINGS - 1) return;
    for (const o of more) if (o.choices[0]!.index === index) return;
    more.push(chunk);
  }

  /** Call when the SSE stream ends. Returns the final usage chunk if one is still owed. */
  end(): ChatChunk | undefined {
    if (!this.done && !this.sawFinish) throw streamFailure(this.provider, 'stream ended before [DONE]');
    if (!this.answered)
      throw streamFailure(
        this.provider,
        'stream ended without an answer (no content, tool call, finish_reason or usage)',
      );
    this.done = true;
    if (this.usageSent || !this.pendingUsage) return undefined;
    this.usageSent = true;
    return usageChunk(this.id, this.created, this.model, this.pendingUsage);
  }

  /**
   * Whether the stream carried anything of an answer: a chunk with content, a tool call or a
   * finish_reason, or usage. A stream with none of them (no choices at all, or only the role-only
   * opening) is a broken answer, not an empty one: nothing has been yielded yet, so the core can
   * still fall back, where an estimated-usage chunk would have committed it as a success.
   */
  private get answered(): boolean {
    return this.started || this.usageSent || this.pendingUsage !== undefined;
  }

  private inStreamError(err: unknown): ProviderError {
    const e = isRecord(err) ? err : { message: String(err) };
    const code = typeof e['code'] === 'number' ? e['code'] : typeof e['status'] === 'number' ? e['status'] : 500;
    const msg = typeof e['message'] === 'string' ? e['message'] : JSON.stringify(e);
    return new ProviderError({
      provider: this.provider,
      status: code,
      retryable: isRetryableStatus(code),
      kind: 'http',
      message: redact(`${this.provider} stream error: ${msg}`, this.secrets),
    });
  }
}

/** OpenAI's bound on `n`: no more openings than this are held. */
const MAX_OPENINGS = 128;

/**
 * A choice that carries nothing yet: no finish_reason, and no delta or one whose every field other
 * than role is null, '' or [] (OpenAI's opening `{role:'assistant', content:'', refusal:null}`).
 * Any other field with a value (function_call, audio, reasoning_content, ...) is content.
 */
function isEmptyChoice(c: ChatChunk['choices'][number]): boolean {
  if (c.finish_reason) return false;
  const d = c.delta as ChatChunk['choices'][number]['delta'] | undefined;
  return !d || emptyBesides(d, ROLE);
}

const ROLE: ReadonlySet<string> = new Set(['role']);
