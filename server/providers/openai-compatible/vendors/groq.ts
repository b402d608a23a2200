// Groq: its catalog entry and the request fields it takes.
import type { ProviderDefinition } from '../../definition.js';
import type { AcceptedFields } from '../accepted-fields.js';

/**
 * Groq: every OpenAI field but the few its compatibility notes list as a 400. In messages it takes
 * only the fields its API defines ("property 'refusal' is unsupported"), and clients send back
 * answers with more: OpenAI's `refusal` and `annotations`, the Python SDK's `audio` and
 * `function_call` nulls, DeepSeek's `reasoning_content`, a framework's `id`. A message's `name` is
 * refused too (its compatibility notes), but a legacy `function` result's, which needs it.
 */
export const GROQ_FIELDS: AcceptedFields = {
  top: { except: new Set(['logprobs', 'top_logprobs', 'logit_bias']) },
  message: {
    system: { only: new Set(['role', 'content']) },
    developer: { only: new Set(['role', 'content']) },
    user: { only: new Set(['role', 'content']) },
    assistant: { only: new Set(['role', 'content', 'tool_calls', 'function_call']) },
    tool: { only: new Set(['role', 'content', 'tool_call_id']) },
    function: { only: new Set(['role', 'content', 'name']) },
  },
  maxChoices: 1,
};

export const groq: ProviderDefinition = {
  name: 'groq',
  family: 'openai-compatible',
  apiKeyEnv: 'GROQ_API_KEY',
  baseUrlEnv: 'GROQ_BASE_URL',
  defaultBaseUrl: 'https://api.groq.com/openai/v1',
  builtinModels: [
    'llama-3.3-70b-versatile',
    'llama-3.1-8b-instant',
    'openai/gpt-oss-120b',
    'openai/gpt-oss-20b',
    'qwen/qwen3-32b',
  ],
  // Groq answers 400 to logprobs, top_logprobs, logit_bias, message names and n > 1.
  openaiCompat: { acceptedFields: GROQ_FIELDS },
};
