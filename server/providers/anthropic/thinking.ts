import type { ToolCallExtraContent } from '../types.js';
import { isRecord } from '../util.js';

// Claude's thinking in a tool-use loop. Anthropic wants the thinking (and redacted_thinking) blocks
// of an assistant turn that called a tool sent back verbatim, signatures included, in that turn and
// ahead of its other content; without them the next request is refused (400 "expected thinking or
// redacted_thinking") or the model loses the reasoning it was following. The Claude 5 family thinks
// by default, so every tool loop on it depends on this. The OpenAI format has no place for such
// blocks: they travel with the tool call that followed them, in its `extra_content` (where Gemini's
// thought signature travels, in Google's own OpenAI-compatible form), and go back only to the model
// that wrote them, to which they are tied.

export type ThinkingBlock = Record<string, unknown>;

export function isThinkingBlock(block: Record<string, unknown>): boolean {
  return block['type'] === 'thinking' || block['type'] === 'redacted_thinking';
}

/** `extra` with the thinking blocks that came before a tool call (unchanged when there are none). */
export function withThinking(
  extra: ToolCallExtraContent | undefined,
  model: string,
  blocks: ThinkingBlock[],
): ToolCallExtraContent | undefined {
  if (blocks.length === 0) return extra;
  return Object.assign({}, extra, { anthropic: { model, thinking: blocks } });
}

/** The thinking blocks a tool call carries back, when `model` wrote them; none for another model. */
export function thinkingToSend(extra: ToolCallExtraContent | undefined, model: string): ThinkingBlock[] {
  const a = extra?.anthropic;
  if (!isRecord(a) || a['model'] !== model || !Array.isArray(a['thinking'])) return [];
  return (a['thinking'] as unknown[]).filter(isRecord).filter(isThinkingBlock);
}
