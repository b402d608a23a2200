// Anthropic: its catalog entry (its request and model rules: request.ts, model-rules.ts, thinking.ts).
import type { ProviderDefinition } from '../definition.js';

export const anthropic: ProviderDefinition = {
  name: 'anthropic',
  family: 'anthropic',
  apiKeyEnv: 'ANTHROPIC_API_KEY',
  baseUrlEnv: 'ANTHROPIC_BASE_URL',
  defaultBaseUrl: 'https://api.anthropic.com',
  builtinModels: ['claude-opus-5-5', 'claude-sonnet-5-5', 'claude-haiku-5-5', 'claude-haiku-4-5'],
};
