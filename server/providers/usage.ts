// Fallback usage when an upstream reports none, so the gateway can still log cost.
import type { ChatRequest, Usage } from './types.js';
import { countChatPromptTokens, countTokens } from './token-count.js';

export async function estimateUsage(req: ChatRequest, completionText: string): Promise<Usage> {
  const [prompt, completion] = await Promise.all([countChatPromptTokens(req.messages, req.tools), countTokens(completionText)]);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}
