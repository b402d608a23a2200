// DeepSeek: its catalog entry and how its thinking models take a request.
import type { ProviderDefinition } from '../../definition.js';
import type { ChatRequest } from '../../types.js';
import type { AcceptedFieldsFor } from '../accepted-fields.js';
import { LOGPROBS, refusing, withEffort } from '../reasoning-rules.js';

/**
 * DeepSeek: its thinking models (deepseek-reasoner; V4 and its deepseek-flash, which think unless
 * told not to) take the sampling settings (to no effect) but refuse logprobs.
 */
const DEEPSEEK_THINKING = /^deepseek-(?:reasoner|flash|v4)/;
const DEEPSEEK_RULES = refusing(LOGPROBS);
export const deepseekReasoningRules: AcceptedFieldsFor = (model) =>
  DEEPSEEK_THINKING.test(model) ? DEEPSEEK_RULES : undefined;

/**
 * DeepSeek's thinking models think unless told not to (`thinking: {type: "disabled"}`), and its
 * `reasoning_effort` takes low, high and max, mapping OpenAI's other values but "none" (DeepSeek's
 * thinking-mode guide): "none" goes as thinking turned off. In thinking mode DeepSeek also needs,
 * after a tool call, the `reasoning_content` of the assistant turn that made it, and refuses a
 * history without it (400). A conversation whose tool turns another provider answered (a fallback,
 * the router, an A/B test) has none to send: such a request goes with thinking turned off too. A
 * caller's own `thinking` is left alone.
 */
export function deepseekThinking(body: ChatRequest): ChatRequest {
  if (body['thinking'] !== undefined || !DEEPSEEK_THINKING.test(body.model)) return body;
  // OpenAI's "none", which DeepSeek's effort lacks (low, high, max): its thinking turned off.
  if (body['reasoning_effort'] === 'none')
    return Object.assign(withEffort(body, undefined), { thinking: { type: 'disabled' } });
  for (const m of body.messages) {
    if (
      m.role === 'assistant' &&
      Array.isArray(m.tool_calls) &&
      m.tool_calls.length > 0 &&
      typeof m['reasoning_content'] !== 'string'
    ) {
      return Object.assign({}, body, { thinking: { type: 'disabled' } });
    }
  }
  return body;
}

export const deepseek: ProviderDefinition = {
  name: 'deepseek',
  family: 'openai-compatible',
  apiKeyEnv: 'DEEPSEEK_API_KEY',
  baseUrlEnv: 'DEEPSEEK_BASE_URL',
  defaultBaseUrl: 'https://api.deepseek.com/v1',
  builtinModels: ['deepseek-flash', 'deepseek-v4-pro'],
  openaiCompat: { reasoningRules: deepseekReasoningRules, adjustRequest: deepseekThinking },
};
