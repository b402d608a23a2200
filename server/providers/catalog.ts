// Built-in provider definitions. Pure data plus a pure resolver: the caller passes the environment
// in, so this module never reads process.env and is trivially testable. A vendor's definition and
// quirks (catalog entry, accepted fields, reasoning rules) sit in its own file under its family
// folder: adding or fixing a vendor touches that file, and this list.
import { anthropic } from './anthropic/vendor.js';
import type { ProviderDefinition } from './definition.js';
import { gemini } from './gemini/vendor.js';
import { deepseek } from './openai-compatible/vendors/deepseek.js';
import { fireworks } from './openai-compatible/vendors/fireworks.js';
import { groq } from './openai-compatible/vendors/groq.js';
import { mistral } from './openai-compatible/vendors/mistral.js';
import { ollama } from './openai-compatible/vendors/ollama.js';
import { openai } from './openai-compatible/vendors/openai.js';
import { openrouter } from './openai-compatible/vendors/openrouter.js';
import { together } from './openai-compatible/vendors/together.js';
import { xai } from './openai-compatible/vendors/xai.js';
import type { ProviderSettings } from './types.js';

export type { ProviderDefinition } from './definition.js';

export const PROVIDERS: readonly ProviderDefinition[] = [
  openai,
  anthropic,
  gemini,
  mistral,
  groq,
  together,
  deepseek,
  xai,
  openrouter,
  fireworks,
  ollama,
];

const BY_NAME = new Map(PROVIDERS.map((p) => [p.name, p]));

export function providerDefinition(name: string): ProviderDefinition | undefined {
  return BY_NAME.get(name);
}

function nonEmpty(v: string | undefined): string | undefined {
  const t = v?.trim();
  return t ? t : undefined;
}

/**
 * The providers to enable for an environment: every provider whose API key is set, plus local
 * providers (ollama) always. `<NAME>_BASE_URL` overrides the default base URL.
 */
export function resolveProviderSettings(env: Record<string, string | undefined>): ProviderSettings[] {
  const out: ProviderSettings[] = [];
  for (const def of PROVIDERS) {
    const apiKey = def.apiKeyEnv ? nonEmpty(env[def.apiKeyEnv]) : undefined;
    if (!apiKey && !def.local) continue;
    const settings: ProviderSettings = {
      name: def.name,
      family: def.family,
      baseUrl: (nonEmpty(env[def.baseUrlEnv]) ?? def.defaultBaseUrl).replace(/\/+$/, ''),
      builtinModels: [...def.builtinModels],
    };
    if (apiKey) settings.apiKey = apiKey;
    out.push(settings);
  }
  return out;
}

/** Base URLs of a running simulator (its `baseUrls`), one per wire format. */
export interface SimulatorBaseUrls {
  openai: string;
  anthropic: string;
  gemini: string;
}

/** Default models the simulator serves per wire format. */
export const SIMULATOR_MODELS = {
  openai: [
    'gpt-4o',
    'gpt-4o-mini',
    'gpt-4.1',
    'gpt-4.1-mini',
    'gpt-4.1-nano',
    'o3-mini',
    'text-embedding-3-small',
    'text-embedding-3-large',
  ],
  anthropic: ['claude-opus-4-1', 'claude-sonnet-4-5', 'claude-3-5-haiku-latest'],
  gemini: ['gemini-2.5-pro', 'gemini-2.5-flash', 'gemini-2.0-flash', 'gemini-embedding-001'],
} as const;

/**
 * Settings that point the openai, anthropic and gemini providers at the built-in simulator, for
 * demos and tests without real keys. The simulator accepts any key.
 */
export function simulatorProviderSettings(urls: SimulatorBaseUrls, apiKey = 'sim-key'): ProviderSettings[] {
  return [
    {
      name: 'openai',
      family: 'openai-compatible',
      baseUrl: urls.openai,
      apiKey,
      builtinModels: [...SIMULATOR_MODELS.openai],
    },
    {
      name: 'anthropic',
      family: 'anthropic',
      baseUrl: urls.anthropic,
      apiKey,
      builtinModels: [...SIMULATOR_MODELS.anthropic],
    },
    { name: 'gemini', family: 'gemini', baseUrl: urls.gemini, apiKey, builtinModels: [...SIMULATOR_MODELS.gemini] },
  ];
}
