// What each built-in chat model can do, plus a coarse size tier used as a routing prior.
// Unknown models count as not capable (and have no tier): routing must not send images, tools or
// JSON-mode requests to a model we know nothing about.
import { lookupModel, modelTable } from './model-id.js';

export type ModelTier = 'small' | 'medium' | 'large';

export interface ModelCapabilities {
  vision: boolean;
  tools: boolean;
  json: boolean;
}

export interface ModelInfo extends ModelCapabilities {
  tier: ModelTier;
  /**
   * Thinks in hidden tokens before it answers, which count against the answer's token limit: a
   * short answer under a small limit can come back empty, and costs more than its length says.
   */
  reasoning: boolean;
}

const m = (tier: ModelTier, vision: boolean, tools = true, json = true): ModelInfo => ({
  tier,
  vision,
  tools,
  json,
  reasoning: false,
});
/** A reasoning model (see ModelInfo.reasoning). */
const r = (tier: ModelTier, vision: boolean, tools = true, json = true): ModelInfo => ({
  tier,
  vision,
  tools,
  json,
  reasoning: true,
});

const MODELS: Record<string, ModelInfo> = {
  // OpenAI
  'gpt-6.1-sol': r('large', true),
  'gpt-6.1-terra': r('medium', true),
  'gpt-6-sol': r('large', true),
  'gpt-6-luna': r('small', true),
  'gpt-5.6-sol': r('large', true),
  'gpt-5.6-terra': r('medium', true),
  'gpt-5.6-luna': r('small', true),
  'gpt-5.5': r('large', true),
  'gpt-5.4': r('large', true),
  'gpt-5.4-mini': r('medium', true),
  'gpt-5.4-nano': r('small', true),
  'gpt-5.2': r('large', true),
  'gpt-5.1': r('large', true),
  'gpt-4o': m('large', true),
  'gpt-4o-mini': m('small', true),
  'gpt-4.1': m('large', true),
  'gpt-4.1-mini': m('medium', true),
  'gpt-4.1-nano': m('small', true),
  o1: r('large', true),
  o3: r('large', true),
  'o3-mini': r('medium', false),
  'o4-mini': r('medium', true),
  'gpt-5': r('large', true),
  'gpt-5-mini': r('medium', true),
  'gpt-5-nano': r('small', true),
  // Anthropic (JSON mode is provided through a forced tool, see anthropic/request.ts)
  // The Claude 5 family thinks before it answers unless told not to (anthropic/model-rules.ts).
  'claude-opus-5-5': r('large', true),
  'claude-sonnet-5-5': r('large', true),
  'claude-haiku-5-5': r('medium', true),
  'claude-fable-5-2': r('large', true),
  'claude-fable-5-1': r('large', true),
  'claude-fable-5': r('large', true),
  'claude-opus-5': r('large', true),
  'claude-sonnet-5': r('large', true),
  'claude-opus-4-8': m('large', true),
  'claude-opus-4-7': m('large', true),
  'claude-opus-4-6': m('large', true),
  'claude-opus-4-5': m('large', true),
  'claude-sonnet-4-6': m('large', true),
  'claude-opus-4-1': m('large', true),
  'claude-opus-4-0': m('large', true),
  'claude-sonnet-4-5': m('large', true),
  'claude-sonnet-4-0': m('large', true),
  'claude-3-7-sonnet-latest': m('large', true),
  'claude-haiku-4-5': m('medium', true),
  'claude-3-5-haiku-latest': m('small', false),
  // Google Gemini
  // Gemini 3 always thinks, within maxOutputTokens.
  'gemini-3.8-flash': r('medium', true),
  'gemini-3.5-flash': r('medium', true),
  'gemini-3.5-flash-lite': r('small', true),
  'gemini-3.1-pro-preview': r('large', true),
  'gemini-3.1-flash-lite': r('small', true),
  'gemini-2.5-pro': m('large', true),
  'gemini-2.5-flash': m('medium', true),
  'gemini-2.5-flash-lite': m('small', true),
  'gemini-2.0-flash': m('small', true),
  'gemini-2.0-flash-lite': m('small', true),
  // Mistral
  'mistral-large-2512': m('large', false),
  'mistral-medium-3-5': m('medium', true),
  'ministral-8b-2512': m('small', false),
  'ministral-14b-2512': m('small', false),
  'mistral-large-latest': m('large', false),
  'mistral-medium-latest': m('medium', true),
  'mistral-small-latest': m('small', true),
  'codestral-latest': m('medium', false),
  'ministral-8b-latest': m('small', false),
  'open-mistral-nemo': m('small', false),
  // Groq
  'llama-3.3-70b-versatile': m('medium', false),
  'llama-3.1-8b-instant': m('small', false),
  'openai/gpt-oss-120b': m('medium', false),
  'openai/gpt-oss-20b': m('small', false),
  'qwen/qwen3-32b': m('medium', false),
  'meta-llama/llama-4-scout-17b-16e-instruct': m('medium', true),
  'moonshotai/kimi-k2-instruct': m('large', false),
  // Together AI
  'meta-llama/Llama-3.3-70B-Instruct-Turbo': m('medium', false),
  'meta-llama/Meta-Llama-3.1-8B-Instruct-Turbo': m('small', false),
  'meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8': m('medium', true),
  'deepseek-ai/DeepSeek-V3': m('large', false),
  'Qwen/Qwen2.5-72B-Instruct-Turbo': m('medium', false),
  // DeepSeek
  'deepseek-flash': r('medium', false),
  'deepseek-v4-pro': r('large', false),
  'deepseek-chat': m('large', false),
  'deepseek-reasoner': r('large', false, false, true),
  // xAI
  'grok-4.5': r('large', true),
  'grok-4.3': r('medium', true),
  'grok-4': r('large', true),
  'grok-4-fast-reasoning': r('medium', true),
  'grok-4-fast-non-reasoning': m('medium', true),
  'grok-3': m('large', false),
  'grok-3-mini': r('small', false),
  'grok-code-fast-1': r('medium', false),
  // Fireworks
  'accounts/fireworks/models/llama-v3p3-70b-instruct': m('medium', false),
  'accounts/fireworks/models/llama-v3p1-8b-instruct': m('small', false),
  'accounts/fireworks/models/deepseek-v3': m('large', false),
  'accounts/fireworks/models/deepseek-v3p1': m('large', false),
  'accounts/fireworks/models/deepseek-v3p2': m('large', false),
  'accounts/fireworks/models/gpt-oss-20b': m('small', false),
  'accounts/fireworks/models/qwen3-235b-a22b': m('large', false),
  'accounts/fireworks/models/gpt-oss-120b': m('medium', false),
};

const TABLE = modelTable(MODELS);

const NONE: ModelCapabilities = Object.freeze({ vision: false, tools: false, json: false });

/**
 * The models trusted to follow a JSON schema or tool signature reliably. Fixed on purpose: the
 * router prefers them for structured-output requests.
 */
export const STRUCTURED_OUTPUT_RELIABLE: readonly string[] = Object.freeze([
  'gpt-4o',
  'gpt-4o-mini',
  'gpt-4.1',
  'gpt-4.1-mini',
  'claude-sonnet-4-5',
  'claude-opus-4-1',
  'gemini-2.5-pro',
  'gemini-2.5-flash',
]);

const RELIABLE = modelTable(Object.fromEntries(STRUCTURED_OUTPUT_RELIABLE.map((id) => [id, true])));

export function modelInfo(model: string, provider?: string): ModelInfo | undefined {
  return lookupModel(TABLE, model, provider);
}

export function capabilitiesFor(model: string, provider?: string): ModelCapabilities {
  const info = lookupModel(TABLE, model, provider);
  return info ? { vision: info.vision, tools: info.tools, json: info.json } : NONE;
}

/** Whether the model is known to reason in hidden tokens before it answers. */
export function isReasoningModel(model: string, provider?: string): boolean {
  return lookupModel(TABLE, model, provider)?.reasoning === true;
}

/** The model's size tier, or undefined when unknown. */
export function modelTier(model: string, provider?: string): ModelTier | undefined {
  return lookupModel(TABLE, model, provider)?.tier;
}

/** True for the STRUCTURED_OUTPUT_RELIABLE models, including their dated snapshots and prefixed ids. */
export function isStructuredOutputReliable(model: string): boolean {
  return lookupModel(RELIABLE, model) === true;
}
