// Anthropic Messages API response -> OpenAI chat completion.
import type { ChatCompletion, FinishReason, ToolCall, Usage } from '../types.js';
import { withBillingDetail, type BillingDetail } from '../usage.js';
import { nowSeconds } from '../util.js';
import { JSON_TOOL_NAME } from './request.js';
import { isThinkingBlock, withThinking, type ThinkingBlock } from './thinking.js';

export interface AnthropicUsage {
  input_tokens?: number;
  output_tokens?: number;
  /** Tokens written to the prompt cache (5-minute and 1-hour writes together). */
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  /** The cache writes by lifetime, each billed at its own rate. */
  cache_creation?: { ephemeral_5m_input_tokens?: number | null; ephemeral_1h_input_tokens?: number | null } | null;
  /** `standard`, `priority` or `batch`. */
  service_tier?: string | null;
}

export interface AnthropicResponse {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: Array<{ type: string; text?: string; id?: string; name?: string; input?: unknown }>;
  stop_reason: string | null;
  stop_sequence?: string | null;
  /** With stop_reason "refusal": why (`explanation`), and the policy's `category`. */
  stop_details?: { type?: string; category?: string; explanation?: string } | null;
  usage?: AnthropicUsage;
}

export function mapStopReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
    case 'pause_turn':
      return 'stop';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    case null:
    case undefined:
      return null;
    default:
      return 'stop';
  }
}

/**
 * A refused answer's `message.refusal`, where OpenAI puts the model's refusal: Anthropic's
 * explanation (`stop_details`), or a plain statement when it gave none. Null for any other answer.
 */
export function refusalOf(res: {
  stop_reason?: string | null;
  stop_details?: AnthropicResponse['stop_details'];
}): string | null {
  if (res.stop_reason !== 'refusal') return null;
  const explanation = res.stop_details?.explanation;
  return typeof explanation === 'string' && explanation !== ''
    ? explanation
    : 'The model declined to answer this request.';
}

/** Prompt tokens include cache writes and reads, as OpenAI's prompt_tokens includes cached tokens. */
export function promptTokens(u: AnthropicUsage | undefined): number {
  if (!u) return 0;
  return (u.input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0);
}

/**
 * Anthropic's usage in OpenAI's shape: prompt_tokens counts every input token (input_tokens are
 * only those after the last cache breakpoint); cache reads are OpenAI's
 * `prompt_tokens_details.cached_tokens`, cache writes its `cache_write_tokens` (OpenRouter's name);
 * the writes' 1-hour share and the service tier go with it as billing detail (usage.ts).
 */
export function toUsage(u: AnthropicUsage | undefined): Usage {
  const prompt = promptTokens(u);
  const completion = u?.output_tokens ?? 0;
  const usage: Usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  const cacheRead = u?.cache_read_input_tokens ?? 0;
  const cacheWrite = u?.cache_creation_input_tokens ?? 0;
  if (cacheRead > 0 || cacheWrite > 0) {
    usage.prompt_tokens_details = {};
    if (cacheRead > 0) usage.prompt_tokens_details.cached_tokens = cacheRead;
    if (cacheWrite > 0) usage.prompt_tokens_details.cache_write_tokens = cacheWrite;
  }
  const detail: BillingDetail = {};
  const oneHour = u?.cache_creation?.ephemeral_1h_input_tokens ?? 0;
  if (oneHour > 0) detail.cacheWrite1h = oneHour;
  if (typeof u?.service_tier === 'string' && u.service_tier !== '') detail.serviceTier = u.service_tier;
  if (detail.cacheWrite1h !== undefined || detail.serviceTier !== undefined) withBillingDetail(usage, detail);
  return usage;
}

/** `requestedModel`: the model id the request named, which the tool calls' thinking blocks are kept for (thinking.ts). */
export function fromAnthropicResponse(
  res: AnthropicResponse,
  jsonTool: boolean,
  requestedModel = res.model,
): ChatCompletion {
  let text = '';
  let hasText = false;
  const toolCalls: ToolCall[] = [];
  let json: string | undefined;
  let thinking: ThinkingBlock[] = [];
  let reasoning = '';
  for (const block of res.content ?? []) {
    if (block.type === 'text' && typeof block.text === 'string') {
      text += block.text;
      hasText = true;
    } else if (block.type === 'tool_use') {
      if (jsonTool && block.name === JSON_TOOL_NAME) {
        json = JSON.stringify(block.input ?? {});
      } else {
        const call: ToolCall = {
          id: block.id ?? '',
          type: 'function',
          function: { name: block.name ?? '', arguments: JSON.stringify(block.input ?? {}) },
        };
        const extra = withThinking(undefined, requestedModel, thinking);
        if (extra) call.extra_content = extra;
        thinking = [];
        toolCalls.push(call);
      }
    } else if (isThinkingBlock(block as Record<string, unknown>)) {
      // Kept with the next tool call, to be sent back; its text (a summary, when the model shows
      // one) is the answer's reasoning_content.
      thinking.push(block as Record<string, unknown>);
      const text = (block as Record<string, unknown>)['thinking'];
      if (typeof text === 'string') reasoning += text;
    }
  }
  let finish = mapStopReason(res.stop_reason);
  // In JSON mode the forced tool's input is the answer; any stray text around it would break the JSON.
  if (json !== undefined) {
    text = json;
    hasText = true;
    if (finish === 'tool_calls') finish = 'stop';
  }
  // `refusal` and `logprobs` are null where OpenAI has nothing to say, never missing: the OpenAI
  // SDKs type them as always present, and code tests `message.refusal !== null`.
  const message: ChatCompletion['choices'][number]['message'] = {
    role: 'assistant',
    content: hasText ? text : null,
    refusal: refusalOf(res),
  };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  if (reasoning !== '') message.reasoning_content = reasoning;
  return {
    id: res.id,
    object: 'chat.completion',
    created: nowSeconds(),
    model: res.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
    usage: toUsage(res.usage),
  };
}
