// Builds the adapter for a provider's wire family.
import type { ProviderAdapter, ProviderSettings } from './types.js';
import { AnthropicAdapter } from './anthropic/adapter.js';
import { GeminiAdapter } from './gemini/adapter.js';
import { OpenAICompatibleAdapter } from './openai-compatible/adapter.js';
import { providerDefinition } from './catalog.js';

export function createAdapter(settings: ProviderSettings): ProviderAdapter {
  switch (settings.family) {
    case 'openai-compatible':
      // Built-in providers bring their known wire quirks (e.g. Mistral and stream_options).
      return new OpenAICompatibleAdapter(settings, providerDefinition(settings.name)?.openaiCompat);
    case 'anthropic':
      return new AnthropicAdapter(settings);
    case 'gemini':
      return new GeminiAdapter(settings);
    default: {
      const family: never = settings.family;
      throw new Error(`unknown provider family: ${String(family)}`);
    }
  }
}
