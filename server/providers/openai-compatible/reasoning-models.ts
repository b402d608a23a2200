import type { ChatRequest } from '../types.js';
import { refuser, stopList } from '../util.js';

// Reasoning models behind OpenAI-format APIs refuse parts of a Chat Completions request that other
// models take, each provider its own set. Callers keep sending those (SDK defaults, code written for
// gpt-4o), and the router may pick such a model for a request that has them. What only renames or
// hints is adapted; what would change the answer is refused before anything is sent.

/** How one provider's reasoning models take a request. */
export interface ReasoningRules {
  /** Fields left out, as hints the model cannot follow (and refuses). */
  hints: readonly string[];
  /** A non-empty `stop` is refused: dropped, the answer would run past where the caller meant it to stop. */
  refuseStop: boolean;
  /** `logprobs: true` is refused: the answer would lack what was asked for. */
  refuseLogprobs: boolean;
  /** `max_tokens` goes as `max_completion_tokens` (which also bounds the hidden reasoning). */
  maxCompletionTokens: boolean;
}

/** The rules for a model id, or undefined when the model takes requests as they are. */
export type ReasoningRulesFor = (model: string) => ReasoningRules | undefined;

/** OpenAI: the o-series and the GPT-5 family but its -chat variants. */
const OPENAI_REASONING = /^(?:o\d|gpt-5)(?![\w.-]*-chat)/;
const OPENAI_RULES: ReasoningRules = {
  hints: ['temperature', 'top_p', 'presence_penalty', 'frequency_penalty', 'logit_bias'],
  refuseStop: true,
  refuseLogprobs: true,
  maxCompletionTokens: true,
};

export function isOpenAIReasoningModel(model: string): boolean {
  return OPENAI_REASONING.test(model);
}

export const openaiReasoningRules: ReasoningRulesFor = (model) => (OPENAI_REASONING.test(model) ? OPENAI_RULES : undefined);

/**
 * xAI: the Grok 4 family (its non-reasoning variants included) refuses the penalties, and Grok 4
 * `reasoning_effort`; its reasoning models, grok-3-mini and grok-code refuse the penalties and `stop`.
 */
const XAI_GROK4 = /^grok-4/;
const XAI_REASONING = /^(?:grok-4(?![\w.-]*non-reasoning)|grok-3-mini|grok-code)/;
const XAI_PENALTIES = ['presence_penalty', 'frequency_penalty'];
const XAI_RULES = {
  reasoning4: { hints: [...XAI_PENALTIES, 'reasoning_effort'], refuseStop: true, refuseLogprobs: false, maxCompletionTokens: false },
  plain4: { hints: [...XAI_PENALTIES, 'reasoning_effort'], refuseStop: false, refuseLogprobs: false, maxCompletionTokens: false },
  reasoning: { hints: XAI_PENALTIES, refuseStop: true, refuseLogprobs: false, maxCompletionTokens: false },
} satisfies Record<string, ReasoningRules>;

export const xaiReasoningRules: ReasoningRulesFor = (model) => {
  const reasoning = XAI_REASONING.test(model);
  if (XAI_GROK4.test(model)) return reasoning ? XAI_RULES.reasoning4 : XAI_RULES.plain4;
  return reasoning ? XAI_RULES.reasoning : undefined;
};

/** DeepSeek: deepseek-reasoner takes the sampling settings (to no effect) but refuses logprobs. */
const DEEPSEEK_RULES: ReasoningRules = { hints: [], refuseStop: false, refuseLogprobs: true, maxCompletionTokens: false };
export const deepseekReasoningRules: ReasoningRulesFor = (model) => (model.startsWith('deepseek-reasoner') ? DEEPSEEK_RULES : undefined);

/** `body` as a model with `rules` takes it, in a copy; refused (a 'request' ProviderError) when it cannot be. */
export function forReasoningModel(body: ChatRequest, rules: ReasoningRules, provider: string): ChatRequest {
  const refuse = refuser(provider);
  if (rules.refuseStop && stopList(body.stop)) refuse(`stop: ${body.model} is a reasoning model and does not take stop sequences`);
  if (rules.refuseLogprobs && body['logprobs'] === true) refuse(`logprobs: ${body.model} is a reasoning model and does not return log probabilities`);
  // Key by key, not a spread: see upstreamBody in gateway/pipeline.ts.
  const out = {} as ChatRequest;
  for (const key in body) {
    if (rules.hints.includes(key)) continue;
    if (rules.refuseStop && key === 'stop') continue;
    if (rules.refuseLogprobs && (key === 'logprobs' || key === 'top_logprobs')) continue;
    if (rules.maxCompletionTokens && key === 'max_tokens') continue;
    out[key] = body[key];
  }
  if (rules.maxCompletionTokens) {
    const max = body.max_completion_tokens ?? body.max_tokens;
    if (typeof max === 'number') out.max_completion_tokens = max;
  }
  return out;
}
