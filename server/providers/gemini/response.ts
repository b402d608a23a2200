// Gemini generateContent response -> OpenAI chat completion.
import type { ChatCompletion, FinishReason, ToolCall, Usage } from '../types.js';
import { newId, nowSeconds } from '../util.js';

export interface GeminiPart {
  text?: string;
  thought?: boolean;
  functionCall?: { name?: string; args?: unknown; id?: string };
  [k: string]: unknown;
}

export interface GeminiCandidate {
  content?: { role?: string; parts?: GeminiPart[] };
  finishReason?: string;
  index?: number;
}

export interface GeminiUsageMetadata {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  thoughtsTokenCount?: number;
  toolUsePromptTokenCount?: number;
  totalTokenCount?: number;
}

export interface GeminiResponse {
  candidates?: GeminiCandidate[];
  promptFeedback?: { blockReason?: string };
  usageMetadata?: GeminiUsageMetadata;
  modelVersion?: string;
  responseId?: string;
}

export function mapFinishReason(reason: string | undefined): FinishReason {
  switch (reason) {
    case undefined:
    case '':
      return null;
    case 'STOP':
      return 'stop';
    case 'MAX_TOKENS':
      return 'length';
    case 'SAFETY':
    case 'RECITATION':
    case 'BLOCKLIST':
    case 'PROHIBITED_CONTENT':
    case 'SPII':
    case 'IMAGE_SAFETY':
    case 'LANGUAGE':
      return 'content_filter';
    case 'MALFORMED_FUNCTION_CALL':
    case 'UNEXPECTED_TOOL_CALL':
      return 'tool_calls';
    default:
      return 'stop';
  }
}

/** Thinking tokens are billed as output, so they count as completion tokens. */
export function toUsage(u: GeminiUsageMetadata | undefined): Usage {
  const prompt = (u?.promptTokenCount ?? 0) + (u?.toolUsePromptTokenCount ?? 0);
  const completion = (u?.candidatesTokenCount ?? 0) + (u?.thoughtsTokenCount ?? 0);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: u?.totalTokenCount ?? prompt + completion };
}

export function toolCallFrom(part: GeminiPart): ToolCall {
  const fc = part.functionCall ?? {};
  return { id: fc.id || newId('call_'), type: 'function', function: { name: fc.name ?? '', arguments: JSON.stringify(fc.args ?? {}) } };
}

export function fromGeminiResponse(res: GeminiResponse, requestedModel: string): ChatCompletion {
  const cand = res.candidates?.[0];
  let text = '';
  let hasText = false;
  const toolCalls: ToolCall[] = [];
  for (const part of cand?.content?.parts ?? []) {
    if (part.functionCall) toolCalls.push(toolCallFrom(part));
    else if (typeof part.text === 'string' && !part.thought) {
      text += part.text;
      hasText = true;
    }
  }
  let finish = mapFinishReason(cand?.finishReason);
  if (!cand && res.promptFeedback?.blockReason) finish = 'content_filter';
  if (toolCalls.length > 0 && (finish === 'stop' || finish === null)) finish = 'tool_calls';
  const message: ChatCompletion['choices'][number]['message'] = { role: 'assistant', content: hasText ? text : null };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return {
    id: res.responseId ? `chatcmpl-${res.responseId}` : newId('chatcmpl-'),
    object: 'chat.completion',
    created: nowSeconds(),
    model: res.modelVersion ?? requestedModel,
    choices: [{ index: 0, message, finish_reason: finish ?? 'stop' }],
    usage: toUsage(res.usageMetadata),
  };
}
