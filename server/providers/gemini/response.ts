// Gemini generateContent response -> OpenAI chat completion.
//
// Thought signatures: thinking models put an opaque `thoughtSignature` on parts, and Gemini 3
// refuses a later request whose function calls come back without theirs. Each tool call carries
// its part's signature the way Google's own OpenAI-compatible endpoint does,
// `extra_content: { google: { thought_signature } }`, so a client that sends the assistant message
// back as it received it returns the signature too (request.ts puts it back on the part).
import type { ChatCompletion, FinishReason, ToolCall, Usage } from '../types.js';
import { newId, nowSeconds } from '../util.js';

export interface GeminiPart {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  functionCall?: { name?: string; args?: unknown; id?: string };
  [k: string]: unknown;
}

/** A tool call with the Gemini thought signature of the part it came from, when it had one. */
export interface GeminiCandidate {
  content?: { role?: string; parts?: GeminiPart[] };
  finishReason?: string;
  index?: number;
  logprobsResult?: GeminiLogprobsResult;
}

export interface GeminiLogprobsCandidate {
  token?: string;
  tokenId?: number;
  logProbability?: number;
}
export interface GeminiLogprobsResult {
  /** One per decoding step: the token chosen. */
  chosenCandidates?: GeminiLogprobsCandidate[];
  /** One per decoding step: the most likely tokens, best first. */
  topCandidates?: Array<{ candidates?: GeminiLogprobsCandidate[] }>;
}

/** OpenAI's per-token log probability entry. */
export interface TokenLogprob {
  token: string;
  logprob: number;
  bytes: number[];
  top_logprobs: Array<{ token: string; logprob: number; bytes: number[] }>;
}

export interface GeminiUsageMetadata {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  thoughtsTokenCount?: number;
  toolUsePromptTokenCount?: number;
  /** Already part of promptTokenCount, which is the whole effective prompt. */
  cachedContentTokenCount?: number;
  totalTokenCount?: number;
}

export interface GeminiResponse {
  candidates?: GeminiCandidate[];
  promptFeedback?: { blockReason?: string };
  usageMetadata?: GeminiUsageMetadata;
  modelVersion?: string;
  responseId?: string;
}

/**
 * Gemini's finishReason as OpenAI's, before looking at the parts: null while unfinished, 'length'
 * for MAX_TOKENS, 'content_filter' for the reasons that withheld content, and 'stop' for the rest.
 * The rest includes the failed tool turns (MALFORMED_FUNCTION_CALL, UNEXPECTED_TOOL_CALL,
 * TOO_MANY_TOOL_CALLS, MISSING_THOUGHT_SIGNATURE), which carry no usable call: 'tool_calls' is
 * given by `withToolCalls` only when a functionCall part actually arrived, so a client branching
 * on finish_reason always finds message.tool_calls.
 */
export function mapFinishReason(reason: string | undefined): FinishReason {
  switch (reason) {
    case undefined:
    case '':
      return null;
    case 'MAX_TOKENS':
      return 'length';
    case 'SAFETY':
    case 'RECITATION':
    case 'LANGUAGE':
    case 'BLOCKLIST':
    case 'PROHIBITED_CONTENT':
    case 'SPII':
    case 'IMAGE_SAFETY':
    case 'IMAGE_PROHIBITED_CONTENT':
    case 'IMAGE_RECITATION':
    case 'MODEL_ARMOR':
      return 'content_filter';
    default:
      // STOP, OTHER, IMAGE_OTHER, NO_IMAGE, the tool-turn failures and reasons added later.
      return 'stop';
  }
}

/**
 * A finish that means the model produced no usable answer (Google: "finished due to malformed
 * response"): a failed call, to fall back from and not to cache, not an empty success.
 */
export const FAILED_FINISH = 'MALFORMED_RESPONSE';

/** A natural end of a turn that produced function calls is OpenAI's 'tool_calls'; length and filters stay. */
export function withToolCalls(finish: FinishReason, hasToolCalls: boolean): FinishReason {
  return hasToolCalls && finish === 'stop' ? 'tool_calls' : finish;
}

/**
 * Thinking tokens are billed as output, so they count as completion tokens. promptTokenCount
 * already includes cached content, which is reported, as OpenAI does, in
 * prompt_tokens_details.cached_tokens; thinking in completion_tokens_details.reasoning_tokens.
 */
export function toUsage(u: GeminiUsageMetadata | undefined): Usage {
  const prompt = (u?.promptTokenCount ?? 0) + (u?.toolUsePromptTokenCount ?? 0);
  const completion = (u?.candidatesTokenCount ?? 0) + (u?.thoughtsTokenCount ?? 0);
  const usage: Usage = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: u?.totalTokenCount ?? prompt + completion,
  };
  if ((u?.cachedContentTokenCount ?? 0) > 0)
    usage.prompt_tokens_details = { cached_tokens: u!.cachedContentTokenCount! };
  if ((u?.thoughtsTokenCount ?? 0) > 0) usage.completion_tokens_details = { reasoning_tokens: u!.thoughtsTokenCount! };
  return usage;
}

export function toolCallFrom(part: GeminiPart): ToolCall {
  const fc = part.functionCall ?? {};
  const call: ToolCall = {
    id: fc.id || newId('call_'),
    type: 'function',
    function: { name: fc.name ?? '', arguments: JSON.stringify(fc.args ?? {}) },
  };
  if (typeof part.thoughtSignature === 'string' && part.thoughtSignature !== '') {
    call.extra_content = { google: { thought_signature: part.thoughtSignature } };
  }
  return call;
}

/** A Gemini logprobsResult as OpenAI's `logprobs.content`. */
export function tokenLogprobs(r: GeminiLogprobsResult | undefined): TokenLogprob[] | undefined {
  if (!r || !Array.isArray(r.chosenCandidates)) return undefined;
  const entry = (c: GeminiLogprobsCandidate | undefined) => {
    const token = typeof c?.token === 'string' ? c.token : '';
    return {
      token,
      logprob: typeof c?.logProbability === 'number' ? c.logProbability : 0,
      bytes: [...Buffer.from(token, 'utf8')],
    };
  };
  return r.chosenCandidates.map((chosen, step) => ({
    ...entry(chosen),
    top_logprobs: (r.topCandidates?.[step]?.candidates ?? []).map(entry),
  }));
}

type Choice = ChatCompletion['choices'][number];

function choiceFrom(cand: GeminiCandidate, position: number): Choice {
  let text = '';
  let hasText = false;
  const toolCalls: ToolCall[] = [];
  for (const part of cand.content?.parts ?? []) {
    if (part.functionCall) toolCalls.push(toolCallFrom(part));
    else if (typeof part.text === 'string' && !part.thought) {
      text += part.text;
      hasText = true;
    }
  }
  // `refusal` and `logprobs` null rather than missing, as OpenAI answers (see anthropic/response.ts).
  const message: Choice['message'] = { role: 'assistant', content: hasText ? text : null, refusal: null };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  const logprobs = tokenLogprobs(cand.logprobsResult);
  return {
    index: typeof cand.index === 'number' ? cand.index : position,
    message,
    logprobs: logprobs ? { content: logprobs, refusal: null } : null,
    finish_reason: withToolCalls(mapFinishReason(cand.finishReason) ?? 'stop', toolCalls.length > 0),
  };
}

/** Every candidate (n > 1 asks for several) as a choice, by its index. */
export function fromGeminiResponse(res: GeminiResponse, requestedModel: string): ChatCompletion {
  const candidates = res.candidates ?? [];
  const choices = candidates.map(choiceFrom).sort((a, b) => a.index - b.index);
  if (choices.length === 0) {
    // No candidate at all: a blocked prompt, or an answer with nothing in it.
    const finish: FinishReason = res.promptFeedback?.blockReason ? 'content_filter' : 'stop';
    choices.push({
      index: 0,
      message: { role: 'assistant', content: null, refusal: null },
      logprobs: null,
      finish_reason: finish,
    });
  }
  return {
    id: res.responseId ? `chatcmpl-${res.responseId}` : newId('chatcmpl-'),
    object: 'chat.completion',
    created: nowSeconds(),
    model: res.modelVersion ?? requestedModel,
    choices,
    usage: toUsage(res.usageMetadata),
  };
}
