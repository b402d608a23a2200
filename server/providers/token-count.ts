// Token counting for the rare case a provider reports no usage. The o200k tokenizer (GPT-4o family)
// has a large rank table, so it is imported on first use only: start-up and the normal path never load it.
// For non-OpenAI models the count is an approximation, which is all the fallback needs.
import type { ChatMessage, ChatRequest } from './types.js';

type CountFn = (text: string) => number;

let loading: Promise<CountFn> | undefined;

function tokenizer(): Promise<CountFn> {
  loading ??= import('gpt-tokenizer/encoding/o200k_base').then((mod) => {
    // Treat special-token text in user content as plain text instead of throwing.
    const opts = { disallowedSpecial: new Set<string>() };
    return (text: string) => mod.countTokens(text, opts);
  });
  return loading;
}

/** Loads the tokenizer ahead of time (optional; e.g. after start-up when idle). */
export async function warmTokenizer(): Promise<void> {
  await tokenizer();
}

/** Cheap estimate (~4 characters per token) for when even loading the tokenizer is not worth it. */
export function estimateTokens(text: string): number {
  return text.length === 0 ? 0 : Math.ceil(text.length / 4);
}

export async function countTokens(text: string): Promise<number> {
  if (text.length === 0) return 0;
  const count = await tokenizer();
  return count(text);
}

// OpenAI's published accounting: each message costs 3 tokens of framing (+1 for a name),
// the reply is primed with 3 more; an image is counted at the low-detail base of 85 tokens.
const PER_MESSAGE = 3;
const PER_NAME = 1;
const REPLY_PRIMING = 3;
const PER_IMAGE = 85;

export async function countChatPromptTokens(messages: readonly ChatMessage[], tools?: ChatRequest['tools']): Promise<number> {
  const count = await tokenizer();
  let total = REPLY_PRIMING;
  for (const m of messages) {
    total += PER_MESSAGE + count(m.role);
    if (typeof m.content === 'string') total += count(m.content);
    else if (Array.isArray(m.content)) {
      for (const p of m.content) {
        if (p.type === 'text' && typeof (p as { text?: unknown }).text === 'string') total += count((p as { text: string }).text);
        else if (p.type === 'image_url') total += PER_IMAGE;
      }
    }
    if (typeof m.name === 'string') total += PER_NAME + count(m.name);
    if (m.tool_calls) {
      for (const tc of m.tool_calls) total += PER_MESSAGE + count(tc.function.name) + count(tc.function.arguments);
    }
  }
  if (tools && tools.length > 0) total += count(JSON.stringify(tools));
  return total;
}
