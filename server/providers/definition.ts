// What a provider is to the gateway: its name, wire family, credentials and defaults, and its
// wire-level quirks. Each vendor's own definition sits in one file under its family folder
// (openai-compatible/vendors/<name>.ts, anthropic/vendor.ts, gemini/vendor.ts); catalog.ts lists them.
import type { OpenAICompatibleOptions } from './openai-compatible/adapter.js';
import type { ProviderFamily } from './types.js';

export interface ProviderDefinition {
  /** Registry name (`provider/model` prefix, GET /v1/providers). */
  name: string;
  family: ProviderFamily;
  /** Env var holding the API key; undefined for providers that need none (local servers). */
  apiKeyEnv?: string;
  baseUrlEnv: string;
  defaultBaseUrl: string;
  /** Used when the provider's models endpoint is missing or fails. */
  builtinModels: string[];
  /** Runs on the operator's hardware: always configured, costs nothing. */
  local?: boolean;
  /** Wire-level quirks for openai-compatible providers. */
  openaiCompat?: OpenAICompatibleOptions;
}
