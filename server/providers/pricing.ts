// List prices, USD per million tokens, per kind of token a provider bills separately: uncached
// input, cached input read, cache write (Anthropic's 5-minute and 1-hour writes), output (reasoning
// included), plus the long-context tier where a provider prices by prompt length and the service
// tiers (OpenAI's flex and priority) where it prices by speed. Used for cost logging and for
// cost-aware routing. Each row carries the date its rates were taken; update it (and PRICING_AS_OF
// when the whole table is reviewed) whenever a price changes. Negotiated prices are overrides
// (price-book.ts), never edits of this table.
import { lookupModel, modelTable, providerPrefix } from './model-id.js';

/** The day the table was last reviewed against the providers' pricing pages. */
export const PRICING_AS_OF = '2026-11-29';

/** USD per million tokens of each kind. */
export interface Rates {
  /** Input (prompt) tokens read afresh. */
  input: number;
  /** Output (completion) tokens, reasoning included. */
  output: number;
  /** Input tokens read from the provider's prompt cache. */
  cachedInput: number;
  /** Input tokens written to the prompt cache for 5 minutes (Anthropic's default write). */
  cacheWrite5m: number;
  /** Input tokens written to the prompt cache for 1 hour (Anthropic's `ttl: "1h"`). */
  cacheWrite1h: number;
}

export interface ModelPrice extends Rates {
  /** The date these rates were taken (YYYY-MM-DD). */
  asOf: string;
  /** Rates for a call whose prompt (all input kinds together) is longer than `aboveTokens`. */
  longContext?: Rates & { aboveTokens: number };
  /** Rates for a service tier the provider reports (`flex`, `priority`); any other tier bills the standard rates. */
  serviceTiers?: Readonly<Record<string, Rates>>;
}

const asOf = PRICING_AS_OF;
const scaled = (r: Rates, k: number): Rates => ({
  input: r.input * k,
  output: r.output * k,
  cachedInput: r.cachedInput * k,
  cacheWrite5m: r.cacheWrite5m * k,
  cacheWrite1h: r.cacheWrite1h * k,
});

/**
 * A provider whose cache writes cost the plain input rate (OpenAI, Gemini's implicit caching and
 * most OpenAI-format hosts): `cached` is the cached-read rate, the input rate where the provider
 * gives no discount.
 */
const flat = (input: number, output: number, cached = input): ModelPrice => ({
  input,
  output,
  cachedInput: cached,
  cacheWrite5m: input,
  cacheWrite1h: input,
  asOf,
});

/**
 * OpenAI: `cached` as a share of the input rate (a tenth on GPT-5 onwards, a quarter on GPT-4.1
 * and o3, half on GPT-4o and the older o-series). `flex`: the model is offered on the flex tier,
 * at half every rate. `priority`: the priority tier's [input, cached input, output] where OpenAI
 * lists them; GPT-5 onwards bill priority at twice the standard rates.
 */
const oai = (
  input: number,
  output: number,
  cachedShare: number,
  tiers: { flex?: boolean; priority?: [number, number, number] | 'double' } = {},
): ModelPrice => {
  const price = flat(input, output, round(input * cachedShare));
  const serviceTiers: Record<string, Rates> = {};
  if (tiers.flex) serviceTiers['flex'] = scaled(price, 0.5);
  if (tiers.priority === 'double') serviceTiers['priority'] = scaled(price, 2);
  else if (tiers.priority) {
    const [pin, pcached, pout] = tiers.priority;
    serviceTiers['priority'] = { input: pin, output: pout, cachedInput: pcached, cacheWrite5m: pin, cacheWrite1h: pin };
  }
  if (tiers.flex || tiers.priority) price.serviceTiers = serviceTiers;
  return price;
};
/** GPT-5 onwards: cached reads at a tenth, flex at half, priority at twice. */
const gpt5 = (input: number, output: number) => oai(input, output, 0.1, { flex: true, priority: 'double' });
/**
 * GPT-5.6 and 6.x: as gpt5, and prompts over 272k tokens bill input (cached reads too) at twice
 * the rate and output at 1.5x, on the standard tier.
 */
const gpt5Long = (input: number, output: number): ModelPrice => {
  const price = gpt5(input, output);
  price.longContext = { ...flat(input * 2, output * 1.5, round(input * 0.2)), aboveTokens: 272_000 };
  return price;
};

/**
 * Anthropic (its prompt-caching page): cache reads at 0.1x the input rate, 5-minute writes at
 * 1.25x, 1-hour writes at 2x. `longAbove`: prompts over that many tokens (200k on the models with
 * the 1M-token context window, 100k on Haiku 5.5) bill input at 2x and output at 1.5x, and the
 * cache rates follow the doubled input rate.
 */
const claude = (input: number, output: number, longAbove?: number): ModelPrice => {
  const rates = (i: number, o: number): Rates => ({
    input: i,
    output: o,
    cachedInput: round(i * 0.1),
    cacheWrite5m: round(i * 1.25),
    cacheWrite1h: i * 2,
  });
  const price: ModelPrice = { ...rates(input, output), asOf };
  if (longAbove) price.longContext = { ...rates(input * 2, output * 1.5), aboveTokens: longAbove };
  return price;
};

/**
 * Gemini: implicit (and explicit) cache reads at `cached`; cache storage, billed per hour for
 * explicit caches, is not a per-call cost and is not counted. `long`: prompts over 200k tokens
 * bill [input, output, cached] instead (the Pro models).
 */
const gemini = (input: number, output: number, cached: number, long?: [number, number, number]): ModelPrice => {
  const price = flat(input, output, cached);
  if (long) price.longContext = { ...flat(long[0], long[1], long[2]), aboveTokens: 200_000 };
  return price;
};

/** Rates below a thousandth of a cent per million read as float noise: rounded away. */
function round(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

// Keys are the ids each provider uses. Where the same open model is sold by several hosts at
// different prices, the host-specific price is keyed `provider/model` and found via priceFor's
// provider argument; the plain id is the price any other host is assumed to charge.
// Models a provider has retired keep their last list price: rows logged before the retirement,
// and deployments that still serve them (cloud marketplaces), are priced all the same.
// Where a price depends on the time of day (DeepSeek), the table holds the peak rate, so spend
// limits err on the safe side. Long-context rates: Gemini Pro above 200k prompt tokens, Claude
// Sonnet 4.x above 200k and Haiku 5.5 above 100k, GPT-5.6 and 6.x above 272k, Grok 4.5 above 200k.
const PRICES: Record<string, ModelPrice> = {
  // OpenAI
  'gpt-6.1-sol': gpt5Long(2, 10),
  'gpt-6.1-terra': gpt5Long(1, 5),
  'gpt-6-sol': gpt5Long(2, 10),
  'gpt-6-luna': gpt5Long(0.1, 0.5),
  'gpt-5.6-sol': gpt5Long(5, 30),
  'gpt-5.6-terra': gpt5Long(2, 12),
  'gpt-5.6-luna': gpt5Long(0.2, 1.2),
  'gpt-5.5': gpt5(5, 30),
  'gpt-5.4': gpt5(2.5, 15),
  'gpt-5.4-mini': gpt5(0.75, 4.5),
  'gpt-5.4-nano': gpt5(0.2, 1.25),
  'gpt-5.2': gpt5(1.75, 14),
  'gpt-5.1': gpt5(1.25, 10),
  'gpt-5': gpt5(1.25, 10),
  'gpt-5-mini': oai(0.25, 2, 0.1, { flex: true, priority: [0.45, 0.045, 3.6] }),
  'gpt-5-nano': oai(0.05, 0.4, 0.1, { flex: true }),
  'gpt-4o': oai(2.5, 10, 0.5, { priority: [4.25, 2.125, 17] }),
  'gpt-4o-mini': oai(0.15, 0.6, 0.5, { priority: [0.25, 0.125, 1] }),
  'gpt-4.1': oai(2, 8, 0.25, { priority: [3.5, 0.875, 14] }),
  'gpt-4.1-mini': oai(0.4, 1.6, 0.25, { priority: [0.7, 0.175, 2.8] }),
  'gpt-4.1-nano': oai(0.1, 0.4, 0.25, { priority: [0.2, 0.05, 0.8] }),
  o1: oai(15, 60, 0.5),
  o3: oai(2, 8, 0.25, { flex: true, priority: [3.5, 0.875, 14] }),
  'o3-mini': oai(1.1, 4.4, 0.5),
  'o4-mini': oai(1.1, 4.4, 0.25, { flex: true, priority: [2, 0.5, 8] }),
  'text-embedding-3-small': flat(0.02, 0),
  'text-embedding-3-large': flat(0.13, 0),
  // Anthropic
  'claude-opus-5-5': claude(4, 20),
  'claude-sonnet-5-5': claude(2, 10),
  'claude-haiku-5-5': claude(0.1, 0.5, 100_000),
  'claude-fable-5-2': claude(8, 40),
  'claude-fable-5-1': claude(10, 50),
  'claude-fable-5': claude(10, 50),
  'claude-opus-5': claude(5, 25),
  'claude-sonnet-5': claude(2, 10),
  'claude-opus-4-8': claude(5, 25),
  'claude-opus-4-7': claude(5, 25),
  'claude-opus-4-6': claude(5, 25),
  'claude-opus-4-5': claude(5, 25),
  'claude-sonnet-4-6': claude(3, 15, 200_000),
  'claude-opus-4-1': claude(15, 75),
  'claude-opus-4-0': claude(15, 75),
  'claude-sonnet-4-5': claude(3, 15, 200_000),
  'claude-sonnet-4-0': claude(3, 15, 200_000),
  'claude-3-7-sonnet-latest': claude(3, 15),
  'claude-haiku-4-5': claude(1, 5),
  'claude-3-5-haiku-latest': claude(0.8, 4),
  // Google Gemini (long-context rates above 200k prompt tokens on the Pro models)
  'gemini-3.8-flash': gemini(0.75, 3.75, 0.075),
  'gemini-3.5-flash': gemini(1.5, 9, 0.15),
  'gemini-3.5-flash-lite': gemini(0.3, 2.5, 0.03),
  'gemini-3.1-pro-preview': gemini(2, 12, 0.2, [4, 18, 0.4]),
  'gemini-3.1-flash-lite': gemini(0.25, 1.5, 0.025),
  'gemini-2.5-pro': gemini(1.25, 10, 0.125, [2.5, 15, 0.25]),
  'gemini-2.5-flash': gemini(0.3, 2.5, 0.03),
  'gemini-2.5-flash-lite': gemini(0.1, 0.4, 0.01),
  'gemini-2.0-flash': gemini(0.1, 0.4, 0.025),
  'gemini-2.0-flash-lite': flat(0.075, 0.3),
  'gemini-embedding-2': flat(0.2, 0),
  'gemini-embedding-001': flat(0.15, 0),
  // Mistral (-latest aliases as they resolve now: Large 3, Medium 3.5, Ministral 3 8B; no cache discount)
  'mistral-large-latest': flat(0.5, 1.5),
  'mistral-large-2512': flat(0.5, 1.5),
  // Earlier snapshots keep their own prices (a dated id otherwise takes the -latest alias's).
  'mistral-large-2411': flat(2, 6),
  'mistral-large-2407': flat(2, 6),
  'mistral-medium-latest': flat(1.5, 7.5),
  'mistral-medium-3-5': flat(1.5, 7.5),
  'mistral-medium-2508': flat(0.4, 2),
  'mistral-medium-2505': flat(0.4, 2),
  'mistral-small-latest': flat(0.1, 0.3),
  'codestral-latest': flat(0.3, 0.9),
  'ministral-8b-latest': flat(0.15, 0.15),
  'ministral-8b-2512': flat(0.15, 0.15),
  'ministral-14b-2512': flat(0.2, 0.2),
  'open-mistral-nemo': flat(0.15, 0.15),
  'mistral-embed': flat(0.1, 0),
  // Groq (cached reads at half the input rate on the models it caches)
  'llama-3.3-70b-versatile': flat(0.59, 0.79),
  'llama-3.1-8b-instant': flat(0.05, 0.08),
  'openai/gpt-oss-120b': flat(0.15, 0.6, 0.075),
  'openai/gpt-oss-20b': flat(0.075, 0.3, 0.0375),
  'qwen/qwen3-32b': flat(0.29, 0.59),
  'meta-llama/llama-4-scout-17b-16e-instruct': flat(0.11, 0.34),
  'moonshotai/kimi-k2-instruct': flat(1, 3, 0.5),
  // Together AI
  'meta-llama/Llama-3.3-70B-Instruct-Turbo': flat(0.88, 0.88),
  'meta-llama/Meta-Llama-3.1-8B-Instruct-Turbo': flat(0.18, 0.18),
  'meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8': flat(0.27, 0.85),
  'deepseek-ai/DeepSeek-V3': flat(1.25, 1.25),
  'Qwen/Qwen2.5-72B-Instruct-Turbo': flat(1.2, 1.2),
  'together/openai/gpt-oss-120b': flat(0.15, 0.6),
  // DeepSeek (cache-miss input, peak hours, twice the off-peak rate; cache hits at a tenth)
  'deepseek-flash': flat(0.3, 1.2, 0.03),
  'deepseek-v4-pro': flat(1.32, 3.96, 0.132),
  'deepseek-chat': flat(0.28, 0.42, 0.028),
  'deepseek-reasoner': flat(0.28, 0.42, 0.028),
  // xAI (cached reads at a quarter of the input rate, grok-code a tenth; Grok 4.5 above 200k prompt tokens 4 / 12)
  'grok-4.5': { ...flat(2, 6, 0.5), longContext: { ...flat(4, 12, 1), aboveTokens: 200_000 } },
  'grok-4.3': flat(1.25, 2.5, 0.3125),
  'grok-4': flat(3, 15, 0.75),
  'grok-4-fast-reasoning': flat(0.2, 0.5, 0.05),
  'grok-4-fast-non-reasoning': flat(0.2, 0.5, 0.05),
  'grok-3': flat(3, 15, 0.75),
  'grok-3-mini': flat(0.3, 0.5, 0.075),
  'grok-code-fast-1': flat(0.2, 1.5, 0.02),
  // Fireworks (cached-input column of its serverless pricing)
  'accounts/fireworks/models/llama-v3p3-70b-instruct': flat(0.9, 0.9),
  'accounts/fireworks/models/llama-v3p1-8b-instruct': flat(0.2, 0.2),
  'accounts/fireworks/models/deepseek-v3': flat(0.56, 1.68, 0.28),
  'accounts/fireworks/models/deepseek-v3p1': flat(0.56, 1.68, 0.28),
  'accounts/fireworks/models/deepseek-v3p2': flat(0.56, 1.68, 0.28),
  'accounts/fireworks/models/qwen3-235b-a22b': flat(0.22, 0.88),
  'accounts/fireworks/models/gpt-oss-120b': flat(0.15, 0.6, 0.015),
  'accounts/fireworks/models/gpt-oss-20b': flat(0.07, 0.3, 0.035),
};

const TABLE = modelTable(PRICES);

/** Providers that run on the operator's own hardware: every model is free. */
export const LOCAL_PROVIDERS: ReadonlySet<string> = new Set(['ollama']);
const FREE: ModelPrice = Object.freeze(flat(0, 0));

/**
 * List price of a model, tolerating `provider/` prefixes, dated snapshots and `-latest` aliases.
 * Pass the serving provider when known: host-specific prices win, local providers cost 0.
 * Undefined for unknown models.
 */
export function priceFor(model: string, provider?: string): ModelPrice | undefined {
  if (provider && LOCAL_PROVIDERS.has(provider.toLowerCase())) return FREE;
  const prefix = providerPrefix(model);
  if (prefix && LOCAL_PROVIDERS.has(prefix)) return FREE;
  return lookupModel(TABLE, model, provider);
}

/** A call's tokens, split by the kinds providers bill separately (usage.ts makes it from a usage). */
export interface TokenSplit {
  /** Input tokens read afresh (neither read from nor written to the prompt cache). */
  input: number;
  /** Input tokens read from the prompt cache. */
  cachedInput: number;
  /** Input tokens written to the prompt cache for 5 minutes. */
  cacheWrite5m: number;
  /** Input tokens written to the prompt cache for 1 hour. */
  cacheWrite1h: number;
  /** Output tokens, reasoning included. */
  output: number;
  /** The service tier the provider reports it served the call on, or null. */
  serviceTier: string | null;
}

/** Every input kind together: the prompt's length, which the long-context tier is decided on. */
export function promptTokensOf(t: TokenSplit): number {
  return t.input + t.cachedInput + t.cacheWrite5m + t.cacheWrite1h;
}

/**
 * The rates a call is billed at: the service tier's, when the provider reported one the model is
 * priced for; else the long-context rates when the prompt is over the model's threshold; else the
 * standard rates.
 */
export function ratesFor(price: ModelPrice, t: TokenSplit): Rates {
  const tier = t.serviceTier ? price.serviceTiers?.[t.serviceTier] : undefined;
  if (tier) return tier;
  const long = price.longContext;
  if (long && promptTokensOf(t) > long.aboveTokens) return long;
  return price;
}

/** USD cost of a call's tokens at `price` (unrounded). */
export function costOfTokens(price: ModelPrice, t: TokenSplit): number {
  const r = ratesFor(price, t);
  return (
    (t.input * r.input +
      t.cachedInput * r.cachedInput +
      t.cacheWrite5m * r.cacheWrite5m +
      t.cacheWrite1h * r.cacheWrite1h +
      t.output * r.output) /
    1_000_000
  );
}

/**
 * USD cost of `inputTokens` uncached input and `outputTokens` output at list price, or undefined
 * when the model's price is unknown. For estimates (tokens a cache hit saved, routing); a logged
 * call is costed from its whole split (costOfTokens).
 */
export function costUsd(
  model: string,
  inputTokens: number,
  outputTokens: number,
  provider?: string,
): number | undefined {
  const price = priceFor(model, provider);
  if (!price) return undefined;
  return (inputTokens * price.input + outputTokens * price.output) / 1_000_000;
}

/** All priced model ids (as keyed in the table). */
export function pricedModels(): string[] {
  return Object.keys(PRICES);
}
