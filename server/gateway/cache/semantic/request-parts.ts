import type { ChatMessage } from '../../../providers/types.js';
import type { ChatBody } from '../../validate.js';
import { ExactCache } from '../exact-cache.js';

// What the semantic cache compares: the last user turn's wording, by similarity, and everything
// else in the request (system prompt, earlier turns, tools, response_format, sampling fields, the
// routed provider and model, the tenant), by an exact hash. So a different system prompt, tool list
// or earlier answer can never produce a hit, however alike the last questions are.

export interface SemanticParts {
  /** Exact hash of everything but the last user turn's text. */
  contextKey: string;
  /** The last user turn's text. */
  lastTurn: string;
}

/**
 * The request's parts, or null when it has no last user turn of plain text (a tool result last,
 * an image or audio part): such a request is left to the exact cache alone.
 */
export function semanticParts(
  tenantId: string,
  provider: string,
  model: string,
  body: ChatBody,
  messages: readonly ChatMessage[],
): SemanticParts | null {
  const last = messages.at(-1);
  if (last?.role !== 'user') return null;
  const lastTurn = textOnly(last.content);
  if (lastTurn === null || lastTurn.trim() === '') return null;
  // The last turn stays in the hash with its text taken out: its name and any other field count.
  const context = { ...body, messages: [...messages.slice(0, -1), { ...last, content: null }] };
  const key = ExactCache.key(tenantId, provider, model, context as Record<string, unknown>);
  return key === null ? null : { contextKey: `sem:${key}`, lastTurn };
}

function textOnly(content: ChatMessage['content']): string | null {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  const texts: string[] = [];
  for (const part of content) {
    if (part.type !== 'text' || typeof part.text !== 'string') return null;
    texts.push(part.text);
  }
  return texts.join('\n');
}
