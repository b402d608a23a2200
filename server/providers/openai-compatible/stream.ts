// Normalises an OpenAI-style SSE stream: chunks pass through untouched, except that
// - usage is always delivered in a final `choices: []` chunk (some servers attach it to the last
//   content chunk, some send none);
// - the opening role-only chunk (`{role:'assistant', content:''}`) is held back until the first
//   chunk with content, then handed on just before it (takeOpening): a stream that dies before any
//   content has yielded nothing and the core can still fall back, and one that lives is passed on
//   as the upstream sent it;
// - a stream that stops before `[DONE]` or a finish_reason is reported as cut, and one that ends
//   without any content, tool call, finish_reason or usage as broken (see end()).
import { ProviderError, type ChatChunk, type Usage } from '../types.js';
import type { SseEvent } from '../http.js';
import { isRetryableStatus } from '../http-errors.js';
import { forgetRawJson, keepRawJson } from '../raw-json.js';
import { streamFailure } from '../stream-errors.js';
import { isRecord, nowSeconds, usageChunk } from '../util.js';

export class OpenAIStreamNormalizer {
  private done = false;
  private sawFinish = false;
  private usageSent = false;
  private pendingUsage: Usage | undefined;
  private id = '';
  private model: string;
  private created = nowSeconds();
  private readonly parts: string[] = [];
  private started = false;
  /** The role-only opening chunk, held until content arrives. */
  private opening: ChatChunk | undefined;

  constructor(private readonly provider: string, model: string) {
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
    if (parsed['error'] !== undefined && !Array.isArray(parsed['choices'])) throw this.inStreamError(parsed['error']);
    // Sent on as the upstream wrote it unless changed below (see raw-json.ts).
    const chunk = keepRawJson(parsed as unknown as ChatChunk, data);
    if (typeof chunk.id === 'string') this.id = chunk.id;
    if (typeof chunk.model === 'string') this.model = chunk.model;
    if (typeof chunk.created === 'number') this.created = chunk.created;
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    if (choices.length === 0) {
      if (chunk.usage) {
        this.usageSent = true;
        this.pendingUsage = undefined;
        return chunk;
      }
      return undefined;
    }
    if (!this.started) {
      const first = choices[0];
      if (first && choices.length === 1 && isEmptyDelta(first) && !chunk.usage) {
        if (first.delta?.role && !this.opening) this.opening = chunk;
        return undefined;
      }
      this.started = true;
    }
    for (const c of choices) {
      if (c.finish_reason) this.sawFinish = true;
      if (c.index !== 0 || !c.delta) continue;
      if (typeof c.delta.content === 'string') this.parts.push(c.delta.content);
      if (c.delta.tool_calls) for (const tc of c.delta.tool_calls) if (tc.function?.arguments) this.parts.push(tc.function.arguments);
    }
    if (chunk.usage) {
      // Usage on a content chunk (Mistral and others): move it to the final usage chunk.
      this.pendingUsage = chunk.usage;
      delete chunk.usage;
      forgetRawJson(chunk);
    }
    return chunk;
  }

  /**
   * The held role-only opening chunk, once: pass it on just before the chunk push() returned with
   * the first content. Undefined when there was none or it was taken.
   */
  takeOpening(): ChatChunk | undefined {
    const opening = this.started ? this.opening : undefined;
    if (opening) this.opening = undefined;
    return opening;
  }

  /** Call when the SSE stream ends. Returns the final usage chunk if one is still owed. */
  end(): ChatChunk | undefined {
    if (!this.done && !this.sawFinish) throw streamFailure(this.provider, 'stream ended before [DONE]');
    if (!this.answered) throw streamFailure(this.provider, 'stream ended without an answer (no content, tool call, finish_reason or usage)');
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

  get needsUsageEstimate(): boolean {
    return !this.usageSent && this.pendingUsage === undefined;
  }

  completionText(): string {
    return this.parts.join('');
  }

  estimatedUsageChunk(usage: Usage): ChatChunk {
    this.usageSent = true;
    return usageChunk(this.id, this.created, this.model, usage, { usage_estimated: true });
  }

  private inStreamError(err: unknown): ProviderError {
    const e = isRecord(err) ? err : { message: String(err) };
    const code = typeof e['code'] === 'number' ? e['code'] : typeof e['status'] === 'number' ? e['status'] : 500;
    const msg = typeof e['message'] === 'string' ? e['message'] : JSON.stringify(e);
    return new ProviderError({ provider: this.provider, status: code, retryable: isRetryableStatus(code), kind: 'http', message: `${this.provider} stream error: ${msg}` });
  }
}

function isEmptyDelta(c: ChatChunk['choices'][number]): boolean {
  if (c.finish_reason) return false;
  const d = c.delta;
  if (!d) return true;
  return (d.content === '' || d.content == null) && !d.tool_calls && !(d as { refusal?: unknown }).refusal;
}
