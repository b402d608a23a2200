// Gemini streamGenerateContent (alt=sse) frames -> OpenAI chat.completion.chunk objects.
// Each frame is a partial GenerateContentResponse: its parts are new text (deltas), function calls
// arrive whole in one part, and usageMetadata is cumulative, so only the last one counts. The stream
// has no terminator event: it is complete once a frame carried a finishReason (or a prompt block).
// A tool-call delta carries its part's thought signature as `extra_content`, as in response.ts.
import { ProviderError, type ChatChunk, type FinishReason } from '../types.js';
import type { SseEvent } from '../http.js';
import { AUTH_FAILURE_STATUS, isGoogleKeyRejection, isRetryableStatus, redact } from '../http-errors.js';
import { streamFailure } from '../stream-errors.js';
import { isRecord, newId, nowSeconds, usageChunk } from '../util.js';
import { mapFinishReason, toolCallFrom, toUsage, withToolCalls, type GeminiResponse, type GeminiUsageMetadata } from './response.js';

type Delta = ChatChunk['choices'][number]['delta'];
type ToolCallDelta = NonNullable<Delta['tool_calls']>[number];

export class GeminiStreamTranslator {
  private id = '';
  private model: string;
  private readonly created = nowSeconds();
  private roleSent = false;
  private toolCount = 0;
  private usage: GeminiUsageMetadata | undefined;
  private finished = false;

  /** `secrets`: credentials to keep out of error messages (an upstream may echo them back). */
  constructor(private readonly provider: string, model: string, private readonly secrets: readonly string[] = []) {
    this.model = model;
  }

  push(ev: SseEvent): ChatChunk | undefined {
    if (ev.data === '') return undefined;
    const frame: unknown = JSON.parse(ev.data);
    if (!isRecord(frame)) return undefined;
    if (frame['error'] !== undefined) throw this.errorFrame(frame['error']);
    const res = frame as GeminiResponse;
    if (!this.id) this.id = res.responseId ? `chatcmpl-${res.responseId}` : newId('chatcmpl-');
    if (res.modelVersion) this.model = res.modelVersion;
    if (res.usageMetadata) this.usage = res.usageMetadata;

    const cand = res.candidates?.[0];
    if (!cand) {
      if (res.promptFeedback?.blockReason) {
        this.finished = true;
        return this.chunk({}, 'content_filter');
      }
      return undefined;
    }
    const delta: Delta = {};
    let text = '';
    let hasText = false;
    for (const part of cand.content?.parts ?? []) {
      if (part.functionCall) {
        const tc = toolCallFrom(part);
        const call: ToolCallDelta = { index: this.toolCount++, id: tc.id, type: 'function', function: tc.function };
        if (tc.extra_content) call.extra_content = tc.extra_content;
        (delta.tool_calls ??= []).push(call);
      } else if (typeof part.text === 'string' && part.text !== '' && !part.thought) {
        text += part.text;
        hasText = true;
      }
    }
    if (hasText) delta.content = text;
    let finish: FinishReason = mapFinishReason(cand.finishReason);
    if (finish !== null) {
      this.finished = true;
      finish = withToolCalls(finish, this.toolCount > 0);
    }
    if (!hasText && !delta.tool_calls && finish === null) return undefined;
    return this.chunk(delta, finish);
  }

  /** Call when the SSE stream ends: returns the final usage chunk, or throws if the stream was cut. */
  end(): ChatChunk {
    if (!this.finished) throw streamFailure(this.provider, 'stream ended without a finishReason');
    return usageChunk(this.id || newId('chatcmpl-'), this.created, this.model, toUsage(this.usage));
  }

  private chunk(delta: Delta, finish: FinishReason): ChatChunk {
    if (!this.roleSent) {
      this.roleSent = true;
      delta = { role: 'assistant', ...delta };
    }
    return { id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.model, choices: [{ index: 0, delta, finish_reason: finish }] };
  }

  private errorFrame(err: unknown): ProviderError {
    const e = isRecord(err) ? err : {};
    const code = typeof e['code'] === 'number' ? e['code'] : 500;
    // As for an HTTP answer (http-errors.ts): a key refused with 400 is an authentication failure.
    const status = code === 400 && isGoogleKeyRejection(e) ? AUTH_FAILURE_STATUS : code;
    const label = typeof e['status'] === 'string' ? `${e['status']}: ` : '';
    const msg = typeof e['message'] === 'string' ? e['message'] : 'unknown error';
    const message = redact(`${this.provider} stream error: ${label}${msg}`, this.secrets);
    return new ProviderError({ provider: this.provider, status, retryable: isRetryableStatus(status), kind: 'http', message });
  }
}
