// Fireworks: its catalog entry; it takes OpenAI's requests as they are.
import type { ProviderDefinition } from '../../definition.js';

export const fireworks: ProviderDefinition = {
  name: 'fireworks',
  family: 'openai-compatible',
  apiKeyEnv: 'FIREWORKS_API_KEY',
  baseUrlEnv: 'FIREWORKS_BASE_URL',
  defaultBaseUrl: 'https://api.fireworks.ai/inference/v1',
  builtinModels: [
    'accounts/fireworks/models/llama-v3p3-70b-instruct',
    'accounts/fireworks/models/llama-v3p1-8b-instruct',
    'accounts/fireworks/models/deepseek-v3',
    'accounts/fireworks/models/qwen3-235b-a22b',
    'accounts/fireworks/models/gpt-oss-120b',
  ],
};
