// OpenRouter: its catalog entry; it takes OpenAI's requests as they are.
import type { ProviderDefinition } from '../../definition.js';

export const openrouter: ProviderDefinition = {
  name: 'openrouter',
  family: 'openai-compatible',
  apiKeyEnv: 'OPENROUTER_API_KEY',
  baseUrlEnv: 'OPENROUTER_BASE_URL',
  defaultBaseUrl: 'https://openrouter.ai/api/v1',
  builtinModels: [
    'openai/gpt-4o',
    'openai/gpt-4o-mini',
    'anthropic/claude-sonnet-4.5',
    'google/gemini-2.5-flash',
    'deepseek/deepseek-chat',
  ],
};
