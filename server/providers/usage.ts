// Fallback usage when an upstream reports none, so the gateway can still log cost.
import { forgetRawJson } from './raw-json.js';
import type { ChatCompletion, ChatRequest, EmbeddingsResponse, Usage } from './types.js';
import { countChatPromptTokens, countTokens } from './token-count.js';

export async function estimateUsage(req: ChatRequest, completionText: string): Promise<Usage> {
  const [prompt, completion] = await Promise.all([
    countChatPromptTokens(req.messages, req.tools),
    countTokens(completionText),
  ]);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/**
 * The usage an upstream reported, or undefined when it reported none: absent, or all zeros (how the
 * Anthropic and Gemini stream translators end a stream the provider sent no usage for). No real
 * call reads and writes nothing, so zeros are taken as "not reported" and the call is counted.
 */
export function reportedUsage(usage: Usage | null | undefined): Usage | undefined {
  return usage && (usage.prompt_tokens > 0 || usage.completion_tokens > 0) ? usage : undefined;
}

/**
 * Gives an answer (a completion, an embeddings list) the usage counted for it, the provider having
 * reported none (or zeros), so the client reads the tokens it was charged for, marked
 * `usage_estimated`. Its upstream JSON text, if kept, no longer says what is sent.
 */
export function withEstimatedUsage(answer: ChatCompletion | EmbeddingsResponse, usage: Usage): void {
  forgetRawJson(answer);
  answer.usage = usage;
  answer.usage_estimated = true;
}
