// Ollama (a local server: no key, every model free): its catalog entry; it takes OpenAI's requests as they are.
import type { ProviderDefinition } from '../../definition.js';

export const ollama: ProviderDefinition = {
  name: 'ollama',
  family: 'openai-compatible',
  baseUrlEnv: 'OLLAMA_BASE_URL',
  defaultBaseUrl: 'http://127.0.0.1:11434/v1',
  builtinModels: ['llama3.2', 'qwen2.5'],
  local: true,
};
