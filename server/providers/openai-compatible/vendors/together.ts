// Together AI: its catalog entry; it takes OpenAI's requests as they are.
import type { ProviderDefinition } from '../../definition.js';

export const together: ProviderDefinition = {
  name: 'together',
  family: 'openai-compatible',
  apiKeyEnv: 'TOGETHER_API_KEY',
  baseUrlEnv: 'TOGETHER_BASE_URL',
  defaultBaseUrl: 'https://api.together.xyz/v1',
  builtinModels: [
    'meta-llama/Llama-3.3-70B-Instruct-Turbo',
    'meta-llama/Meta-Llama-3.1-8B-Instruct-Turbo',
    'deepseek-ai/DeepSeek-V3',
    'Qwen/Qwen2.5-72B-Instruct-Turbo',
  ],
};
