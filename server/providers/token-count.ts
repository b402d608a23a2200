// Token counting for the rare case a provider reports no usage. The o200k tokenizer (GPT-4o family)
// has a large rank table, so it is imported on first use only: start-up and the normal path never load it.
// For non-OpenAI models the count is an approximation, which is all the fallback needs.
import { performance } from 'node:perf_hooks';
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
  return countIn(await tokenizer(), text);
}

/**
 * BPE merging is quadratic in the length of a pre-token, and a run without spaces (`xxxx…`,
 * `ーーー…`, what a model stuck repeating itself writes) is one pre-token: counted whole, 40,000 such
 * characters held the event loop for seconds. Text is counted in slices of at most SLICE_CHARS, cut
 * just before a whitespace where there is one (the next pre-token starts there anyway, so the sum is
 * the whole text's count or within a token per slice of it), with a turn of the event loop given to
 * other requests every YIELD_EVERY_MS. Past MAX_COUNTED_CHARS the rest is extrapolated from the
 * counted part's tokens per character.
 */
const SLICE_CHARS = 512;
const YIELD_EVERY_MS = 4;
const MAX_COUNTED_CHARS = 1_000_000;

async function countIn(count: CountFn, text: string): Promise<number> {
  if (text.length <= SLICE_CHARS) return count(text);
  const end = Math.min(text.length, MAX_COUNTED_CHARS);
  let total = 0;
  let at = 0;
  let since = performance.now();
  while (at < end) {
    let cut = Math.min(at + SLICE_CHARS, end);
    if (cut < end) {
      const space = lastWhitespace(text, at + SLICE_CHARS / 2, cut);
      if (space > at) cut = space;
    }
    total += count(text.slice(at, cut));
    at = cut;
    if (performance.now() - since >= YIELD_EVERY_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      since = performance.now();
    }
  }
  return end === text.length ? total : Math.ceil((total * text.length) / end);
}

/** Index of the last whitespace character in text[from, to), or -1. */
function lastWhitespace(text: string, from: number, to: number): number {
  for (let i = to - 1; i >= from; i--) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 10 || c === 9 || c === 13) return i;
  }
  return -1;
}

// OpenAI's published accounting: each message costs 3 tokens of framing (+1 for a name),
// the reply is primed with 3 more; an image is counted at the low-detail base of 85 tokens.
const PER_MESSAGE = 3;
const PER_NAME = 1;
const REPLY_PRIMING = 3;
const PER_IMAGE = 85;

export async function countChatPromptTokens(
  messages: readonly ChatMessage[],
  tools?: ChatRequest['tools'],
): Promise<number> {
  const tokens = await tokenizer();
  const count = (text: string) => countIn(tokens, text);
  let total = REPLY_PRIMING;
  for (const m of messages) {
    total += PER_MESSAGE + (await count(m.role));
    if (typeof m.content === 'string') total += await count(m.content);
    else if (Array.isArray(m.content)) {
      for (const p of m.content) {
        if (p.type === 'text' && typeof (p as { text?: unknown }).text === 'string')
          total += await count((p as { text: string }).text);
        else if (p.type === 'image_url') total += PER_IMAGE;
      }
    }
    if (typeof m.name === 'string') total += PER_NAME + (await count(m.name));
    if (m.tool_calls) {
      for (const tc of m.tool_calls)
        total += PER_MESSAGE + (await count(tc.function.name)) + (await count(tc.function.arguments));
    }
  }
  if (tools && tools.length > 0) total += await count(JSON.stringify(tools));
  return total;
}
