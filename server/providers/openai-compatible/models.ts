// What an OpenAI-compatible models endpoint answers. OpenAI and most servers (Ollama, vLLM, Groq,
// Mistral, OpenRouter) wrap the models in `{object: 'list', data: [...]}`; Together answers a bare
// array of them, each with a `type` (chat, language, code, image, embedding, moderation, rerank,
// audio). A listed `type` is the provider's own word on what a model is for, so it keeps models
// out of chat routing beside the id rules of model-kind.ts.
import type { ModelListing } from '../model-kind.js';
import { isRecord } from '../util.js';

/** The ids an answer of either shape lists, and those its `type`s mark as not for chat. */
export function modelListingOf(answer: unknown): ModelListing {
  const ids: string[] = [];
  const notChat = new Set<string>();
  for (const model of listedModels(answer)) {
    if (!isRecord(model) || typeof model['id'] !== 'string') continue;
    const id = model['id'];
    ids.push(id);
    if (typeof model['type'] === 'string' && !isChatType(model['type'])) notChat.add(id);
  }
  return { ids, notChat };
}

/** The model objects of `{data: [...]}` or of a bare array; none for any other answer. */
function listedModels(answer: unknown): unknown[] {
  if (Array.isArray(answer)) return answer;
  if (isRecord(answer) && Array.isArray(answer['data'])) return answer['data'];
  return [];
}

/**
 * Whether a listed `type` is a chat model's. Together's `language` and `code` models are base
 * models served for plain completions (its instruction-tuned ones are listed as `chat`), and every
 * other type (embedding, image, audio, moderation, rerank, any new one) is not for chat.
 */
function isChatType(type: string): boolean {
  return type.toLowerCase() === 'chat';
}
