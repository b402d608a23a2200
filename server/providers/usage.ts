// Fallback usage when an upstream reports none, so the gateway can still log cost.
import { forgetRawJson } from './raw-json.js';
import type { TokenSplit } from './pricing.js';
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

// What a provider bills beyond OpenAI's usage fields: the 1-hour share of Anthropic's cache writes
// and the service tier a provider served the call on. Kept on the usage object under a symbol key
// (JSON.stringify skips it), so the answer the client reads is the provider's, and the gateway's
// cost reads them wherever the usage goes (whole answers, a stream's usage chunk).
const BILLING = Symbol('billing detail');

export interface BillingDetail {
  /** Of `prompt_tokens_details.cache_write_tokens`, those written for 1 hour (the rest for 5 minutes). */
  cacheWrite1h?: number;
  /** The service tier the provider reports (OpenAI's `service_tier`, Anthropic's `usage.service_tier`). */
  serviceTier?: string;
}

type WithBilling = Usage & { [BILLING]?: BillingDetail };

/** Keeps `detail` on `usage` (merged with what it holds); returns `usage`. */
export function withBillingDetail(usage: Usage, detail: BillingDetail): Usage {
  const u = usage as WithBilling;
  u[BILLING] = u[BILLING] ? { ...u[BILLING], ...detail } : detail;
  return usage;
}

export function billingDetailOf(usage: Usage): BillingDetail | undefined {
  return (usage as WithBilling)[BILLING];
}

const count = (n: unknown): number => (typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.floor(n) : 0);

/**
 * A call's usage split by the kinds of token providers bill separately. `prompt_tokens` counts
 * every input token (OpenAI's convention, which the adapters keep for every family): cache reads
 * (`prompt_tokens_details.cached_tokens`) and writes (`cache_write_tokens`) are parts of it, and
 * what is left is read afresh. Output is `completion_tokens`, reasoning included.
 */
export function tokenSplit(usage: Usage): TokenSplit {
  const d = usage.prompt_tokens_details;
  const prompt = count(usage.prompt_tokens);
  // DeepSeek's own name for cache reads, where it gives no prompt_tokens_details.
  const reads = d?.cached_tokens ?? (usage as { prompt_cache_hit_tokens?: number }).prompt_cache_hit_tokens;
  const cachedInput = Math.min(count(reads), prompt);
  const writes = Math.min(count(d?.['cache_write_tokens']), prompt - cachedInput);
  const detail = billingDetailOf(usage);
  const cacheWrite1h = Math.min(count(detail?.cacheWrite1h), writes);
  return {
    input: prompt - cachedInput - writes,
    cachedInput,
    cacheWrite5m: writes - cacheWrite1h,
    cacheWrite1h,
    output: count(usage.completion_tokens),
    serviceTier: detail?.serviceTier ?? null,
  };
}
