// Gemini streamGenerateContent (alt=sse) frames -> OpenAI chat.completion.chunk objects.
// Each frame is a partial GenerateContentResponse: its parts are new text (deltas), function calls
// arrive whole in one part, and usageMetadata is cumulative, so only the last one counts. The stream
// has no terminator event: it is complete once a frame carried a finishReason (or a prompt block).
// A tool-call delta carries its part's thought signature as `extra_content`, as in response.ts.
// A frame's finishReason usually comes with its last content (a function call always does); OpenAI
// sends a finish in a chunk of its own, with an empty delta, and the OpenAI SDKs' stream helpers
// rely on it (ChatCompletionStream reads the finish before the same chunk's tool call, and never
// emits that call's `tool_calls.function.arguments.done`). So the finish of a choice that has
// content is held and given by finishChunk(), to be sent right after the frame's chunk. Likewise
// the role of a choice whose first chunk carries logprobs goes alone in openingChunk(), sent right
// before it: the helpers take the logprobs of a chunk that opens its choice twice.
// With n > 1 a frame may carry several candidates: each becomes a choice of the chunk, by its
// index, and the stream is complete once every candidate that appeared has finished.
import { ProviderError, type ChatChunk, type FinishReason } from '../types.js';
import type { SseEvent } from '../http.js';
import { accountRefusalOf, isRetryableStatus, redact } from '../http-errors.js';
import { streamFailure } from '../stream-errors.js';
import { isRecord, newId, nowSeconds, usageChunk } from '../util.js';
import {
  FAILED_FINISH,
  mapFinishReason,
  tokenLogprobs,
  toolCallFrom,
  toUsage,
  withToolCalls,
  type GeminiCandidate,
  type GeminiResponse,
  type GeminiUsageMetadata,
} from './response.js';

type Delta = ChatChunk['choices'][number]['delta'];
type ToolCallDelta = NonNullable<Delta['tool_calls']>[number];
type Choice = ChatChunk['choices'][number];

/** What the stream has said so far for one candidate. */
interface CandidateState {
  roleSent: boolean;
  toolCount: number;
  finished: boolean;
}

export class GeminiStreamTranslator {
  private id = '';
  private model: string;
  private readonly created = nowSeconds();
  private readonly candidates = new Map<number, CandidateState>();
  private usage: GeminiUsageMetadata | undefined;
  private promptBlocked = false;
  /** Finishes split off the last push()'s chunk (see the top of the file). */
  private heldFinishes: Choice[] = [];
  /** Role-only openings for choices whose first chunk carries logprobs (openingChunk). */
  private heldOpenings: Choice[] = [];

  /** `secrets`: credentials to keep out of error messages (an upstream may echo them back). */
  constructor(
    private readonly provider: string,
    model: string,
    private readonly secrets: readonly string[] = [],
  ) {
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

    const cands = Array.isArray(res.candidates) ? res.candidates : [];
    if (cands.length === 0) {
      if (res.promptFeedback?.blockReason) {
        // The prompt itself was refused: no candidate will come.
        this.promptBlocked = true;
        return this.chunk([this.choice(this.stateOf(0), 0, {}, 'content_filter')]);
      }
      return undefined;
    }
    const choices: Choice[] = [];
    cands.forEach((cand, position) => {
      const choice = this.candidateChoice(cand, typeof cand.index === 'number' ? cand.index : position);
      if (!choice) return;
      if (
        choice.finish_reason !== null &&
        (choice.delta.content !== undefined || choice.delta.tool_calls !== undefined)
      ) {
        this.heldFinishes.push({ index: choice.index, delta: {}, finish_reason: choice.finish_reason });
        choice.finish_reason = null;
      }
      choices.push(choice);
    });
    return choices.length > 0 ? this.chunk(choices) : undefined;
  }

  /** The openings of the last push()'s choices that carry logprobs, as a chunk to send before it (once). */
  openingChunk(): ChatChunk | undefined {
    if (this.heldOpenings.length === 0) return undefined;
    const chunk = this.chunk(this.heldOpenings);
    this.heldOpenings = [];
    return chunk;
  }

  /** The finishes held back from the last push()'s chunk, as a chunk of their own (once). */
  finishChunk(): ChatChunk | undefined {
    if (this.heldFinishes.length === 0) return undefined;
    const chunk = this.chunk(this.heldFinishes);
    this.heldFinishes = [];
    return chunk;
  }

  /** Call when the SSE stream ends: returns the final usage chunk, or throws if the stream was cut. */
  end(): ChatChunk {
    if (!this.finished) throw streamFailure(this.provider, 'stream ended without a finishReason');
    return usageChunk(this.id || newId('chatcmpl-'), this.created, this.model, toUsage(this.usage));
  }

  /** A blocked prompt, or every candidate that appeared has given its finishReason. */
  private get finished(): boolean {
    if (this.promptBlocked) return true;
    if (this.candidates.size === 0) return false;
    for (const c of this.candidates.values()) if (!c.finished) return false;
    return true;
  }

  private stateOf(index: number): CandidateState {
    let state = this.candidates.get(index);
    if (!state) this.candidates.set(index, (state = { roleSent: false, toolCount: 0, finished: false }));
    return state;
  }

  private candidateChoice(cand: GeminiCandidate, index: number): Choice | undefined {
    if (cand.finishReason === FAILED_FINISH)
      throw streamFailure(this.provider, `finished its answer with ${FAILED_FINISH} (no usable answer)`);
    const state = this.stateOf(index);
    const delta: Delta = {};
    let text = '';
    let hasText = false;
    for (const part of cand.content?.parts ?? []) {
      if (part.functionCall) {
        const tc = toolCallFrom(part);
        const call: ToolCallDelta = { index: state.toolCount++, id: tc.id, type: 'function', function: tc.function };
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
      state.finished = true;
      finish = withToolCalls(finish, state.toolCount > 0);
    }
    const logprobs = tokenLogprobs(cand.logprobsResult);
    if (!hasText && !delta.tool_calls && finish === null && !logprobs?.length) return undefined;
    if (logprobs?.length && !state.roleSent) {
      // The OpenAI SDKs' stream helpers take a choice's logprobs twice from the chunk that opens
      // it: the role goes first, in a chunk of its own (openingChunk), as OpenAI streams it.
      state.roleSent = true;
      this.heldOpenings.push({
        index,
        delta: { role: 'assistant', content: hasText ? '' : null },
        finish_reason: null,
      });
    }
    const choice = this.choice(state, index, delta, finish);
    if (logprobs?.length) choice.logprobs = { content: logprobs, refusal: null };
    return choice;
  }

  /** A choice; the first one of each candidate carries the role. */
  private choice(state: CandidateState, index: number, delta: Delta, finish: FinishReason): Choice {
    if (!state.roleSent) {
      state.roleSent = true;
      delta = { role: 'assistant', ...delta };
    }
    return { index, delta, finish_reason: finish };
  }

  private chunk(choices: Choice[]): ChatChunk {
    return { id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.model, choices };
  }

  private errorFrame(err: unknown): ProviderError {
    const e = isRecord(err) ? err : {};
    const code = typeof e['code'] === 'number' ? e['code'] : 500;
    // As for an HTTP answer (http-errors.ts): an account refused with 400 is not a bad request.
    const status = (code === 400 ? accountRefusalOf(e) : undefined) ?? code;
    const label = typeof e['status'] === 'string' ? `${e['status']}: ` : '';
    const msg = typeof e['message'] === 'string' ? e['message'] : 'unknown error';
    const message = redact(`${this.provider} stream error: ${label}${msg}`, this.secrets);
    return new ProviderError({
      provider: this.provider,
      status,
      retryable: isRetryableStatus(status),
      kind: 'http',
      message,
    });
  }
}
