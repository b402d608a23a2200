// Static list prices, USD per million tokens, standard (non-batch, non-cached, shortest-context) tier.
// Used for cost logging and cost-aware routing; update PRICING_AS_OF whenever a price changes.
import { lookupModel, modelTable, providerPrefix } from './model-id.js';

export const PRICING_AS_OF = '2026-11-26';

export interface ModelPrice {
  /** USD per 1M input (prompt) tokens. */
  input: number;
  /** USD per 1M output (completion) tokens. */
  output: number;
}

const p = (input: number, output: number): ModelPrice => ({ input, output });

// Keys are the ids each provider uses. Where the same open model is sold by several hosts at
// different prices, the host-specific price is keyed `provider/model` and found via priceFor's
// provider argument; the plain id is the price any other host is assumed to charge.
// Models a provider has retired keep their last list price: rows logged before the retirement,
// and deployments that still serve them (cloud marketplaces), are priced all the same.
// Where a price depends on the prompt's length, the table holds the shortest-context rate; where
// it depends on the time of day (DeepSeek), the peak rate, so spend limits err on the safe side.
const PRICES: Record<string, ModelPrice> = {
  // OpenAI
  'gpt-6.1-sol': p(2, 10),
  'gpt-6.1-terra': p(1, 5),
  'gpt-6-sol': p(2, 10),
  'gpt-6-luna': p(0.1, 0.5),
  'gpt-5.6-sol': p(5, 30),
  'gpt-5.6-terra': p(2, 12),
  'gpt-5.6-luna': p(0.2, 1.2),
  'gpt-5.5': p(5, 30),
  'gpt-5.4': p(2.5, 15),
  'gpt-5.4-mini': p(0.75, 4.5),
  'gpt-5.4-nano': p(0.2, 1.25),
  'gpt-5.2': p(1.75, 14),
  'gpt-5.1': p(1.25, 10),
  'gpt-5': p(1.25, 10),
  'gpt-5-mini': p(0.25, 2),
  'gpt-5-nano': p(0.05, 0.4),
  'gpt-4o': p(2.5, 10),
  'gpt-4o-mini': p(0.15, 0.6),
  'gpt-4.1': p(2, 8),
  'gpt-4.1-mini': p(0.4, 1.6),
  'gpt-4.1-nano': p(0.1, 0.4),
  o1: p(15, 60),
  o3: p(2, 8),
  'o3-mini': p(1.1, 4.4),
  'o4-mini': p(1.1, 4.4),
  'text-embedding-3-small': p(0.02, 0),
  'text-embedding-3-large': p(0.13, 0),
  // Anthropic
  'claude-opus-5-5': p(4, 20),
  'claude-sonnet-5-5': p(2, 10),
  'claude-haiku-5-5': p(0.1, 0.5),
  'claude-fable-5-2': p(8, 40),
  'claude-fable-5-1': p(10, 50),
  'claude-fable-5': p(10, 50),
  'claude-opus-5': p(5, 25),
  'claude-sonnet-5': p(2, 10),
  'claude-opus-4-8': p(5, 25),
  'claude-opus-4-7': p(5, 25),
  'claude-opus-4-6': p(5, 25),
  'claude-opus-4-5': p(5, 25),
  'claude-sonnet-4-6': p(3, 15),
  'claude-opus-4-1': p(15, 75),
  'claude-opus-4-0': p(15, 75),
  'claude-sonnet-4-5': p(3, 15),
  'claude-sonnet-4-0': p(3, 15),
  'claude-3-7-sonnet-latest': p(3, 15),
  'claude-haiku-4-5': p(1, 5),
  'claude-3-5-haiku-latest': p(0.8, 4),
  // Google Gemini (prompts up to 200k tokens)
  'gemini-3.8-flash': p(0.75, 3.75),
  'gemini-3.5-flash': p(1.5, 9),
  'gemini-3.5-flash-lite': p(0.3, 2.5),
  'gemini-3.1-pro-preview': p(2, 12),
  'gemini-3.1-flash-lite': p(0.25, 1.5),
  'gemini-2.5-pro': p(1.25, 10),
  'gemini-2.5-flash': p(0.3, 2.5),
  'gemini-2.5-flash-lite': p(0.1, 0.4),
  'gemini-2.0-flash': p(0.1, 0.4),
  'gemini-2.0-flash-lite': p(0.075, 0.3),
  'gemini-embedding-2': p(0.2, 0),
  'gemini-embedding-001': p(0.15, 0),
  // Mistral (-latest aliases as they resolve now: Large 3, Medium 3.5, Ministral 3 8B)
  'mistral-large-latest': p(0.5, 1.5),
  'mistral-large-2512': p(0.5, 1.5),
  // Earlier snapshots keep their own prices (a dated id otherwise takes the -latest alias's).
  'mistral-large-2411': p(2, 6),
  'mistral-large-2407': p(2, 6),
  'mistral-medium-latest': p(1.5, 7.5),
  'mistral-medium-3-5': p(1.5, 7.5),
  'mistral-medium-2508': p(0.4, 2),
  'mistral-medium-2505': p(0.4, 2),
  'mistral-small-latest': p(0.1, 0.3),
  'codestral-latest': p(0.3, 0.9),
  'ministral-8b-latest': p(0.15, 0.15),
  'ministral-8b-2512': p(0.15, 0.15),
  'ministral-14b-2512': p(0.2, 0.2),
  'open-mistral-nemo': p(0.15, 0.15),
  'mistral-embed': p(0.1, 0),
  // Groq
  'llama-3.3-70b-versatile': p(0.59, 0.79),
  'llama-3.1-8b-instant': p(0.05, 0.08),
  'openai/gpt-oss-120b': p(0.15, 0.6),
  'openai/gpt-oss-20b': p(0.075, 0.3),
  'qwen/qwen3-32b': p(0.29, 0.59),
  'meta-llama/llama-4-scout-17b-16e-instruct': p(0.11, 0.34),
  'moonshotai/kimi-k2-instruct': p(1, 3),
  // Together AI
  'meta-llama/Llama-3.3-70B-Instruct-Turbo': p(0.88, 0.88),
  'meta-llama/Meta-Llama-3.1-8B-Instruct-Turbo': p(0.18, 0.18),
  'meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8': p(0.27, 0.85),
  'deepseek-ai/DeepSeek-V3': p(1.25, 1.25),
  'Qwen/Qwen2.5-72B-Instruct-Turbo': p(1.2, 1.2),
  'together/openai/gpt-oss-120b': p(0.15, 0.6),
  // DeepSeek (cache-miss input; peak hours, twice the off-peak rate)
  'deepseek-flash': p(0.3, 1.2),
  'deepseek-v4-pro': p(1.32, 3.96),
  'deepseek-chat': p(0.28, 0.42),
  'deepseek-reasoner': p(0.28, 0.42),
  // xAI
  'grok-4.5': p(2, 6),
  'grok-4.3': p(1.25, 2.5),
  'grok-4': p(3, 15),
  'grok-4-fast-reasoning': p(0.2, 0.5),
  'grok-4-fast-non-reasoning': p(0.2, 0.5),
  'grok-3': p(3, 15),
  'grok-3-mini': p(0.3, 0.5),
  'grok-code-fast-1': p(0.2, 1.5),
  // Fireworks
  'accounts/fireworks/models/llama-v3p3-70b-instruct': p(0.9, 0.9),
  'accounts/fireworks/models/llama-v3p1-8b-instruct': p(0.2, 0.2),
  'accounts/fireworks/models/deepseek-v3': p(0.56, 1.68),
  'accounts/fireworks/models/deepseek-v3p1': p(0.56, 1.68),
  'accounts/fireworks/models/deepseek-v3p2': p(0.56, 1.68),
  'accounts/fireworks/models/qwen3-235b-a22b': p(0.22, 0.88),
  'accounts/fireworks/models/gpt-oss-120b': p(0.15, 0.6),
  'accounts/fireworks/models/gpt-oss-20b': p(0.07, 0.3),
};

const TABLE = modelTable(PRICES);

/** Providers that run on the operator's own hardware: every model is free. */
export const LOCAL_PROVIDERS: ReadonlySet<string> = new Set(['ollama']);
const FREE: ModelPrice = Object.freeze(p(0, 0));

/**
 * Price of a model, tolerating `provider/` prefixes, dated snapshots and `-latest` aliases.
 * Pass the serving provider when known: host-specific prices win, local providers cost 0.
 * Undefined for unknown models.
 */
export function priceFor(model: string, provider?: string): ModelPrice | undefined {
  if (provider && LOCAL_PROVIDERS.has(provider.toLowerCase())) return FREE;
  const prefix = providerPrefix(model);
  if (prefix && LOCAL_PROVIDERS.has(prefix)) return FREE;
  return lookupModel(TABLE, model, provider);
}

/** USD cost of one call, or undefined when the model's price is unknown. */
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
