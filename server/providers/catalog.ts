// Built-in provider definitions. Pure data plus a pure resolver: the caller passes the environment
// in, so this module never reads process.env and is trivially testable.
import type { ProviderFamily, ProviderSettings } from './types.js';
import type { OpenAICompatibleOptions } from './openai-compatible/adapter.js';
import { GROQ_FIELDS, MISTRAL_FIELDS } from './openai-compatible/accepted-fields.js';
import {
  deepseekReasoningRules,
  deepseekThinking,
  mistralReasoningEffort,
  openaiReasoningRules,
  openaiRequest,
  xaiReasoningEffort,
  xaiReasoningRules,
} from './openai-compatible/reasoning-models.js';

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

export const PROVIDERS: readonly ProviderDefinition[] = [
  {
    name: 'openai',
    family: 'openai-compatible',
    apiKeyEnv: 'OPENAI_API_KEY',
    baseUrlEnv: 'OPENAI_BASE_URL',
    defaultBaseUrl: 'https://api.openai.com/v1',
    builtinModels: [
      'gpt-6.1-sol',
      'gpt-6.1-terra',
      'gpt-6-luna',
      'gpt-5.4',
      'gpt-5.4-mini',
      'gpt-5.4-nano',
      'gpt-4o',
      'gpt-4o-mini',
      'gpt-4.1',
      'gpt-4.1-mini',
      'text-embedding-3-small',
      'text-embedding-3-large',
    ],
    openaiCompat: { reasoningRules: openaiReasoningRules, developerRole: true, adjustRequest: openaiRequest },
  },
  {
    name: 'anthropic',
    family: 'anthropic',
    apiKeyEnv: 'ANTHROPIC_API_KEY',
    baseUrlEnv: 'ANTHROPIC_BASE_URL',
    defaultBaseUrl: 'https://api.anthropic.com',
    builtinModels: ['claude-opus-5-5', 'claude-sonnet-5-5', 'claude-haiku-5-5', 'claude-haiku-4-5'],
  },
  {
    name: 'gemini',
    family: 'gemini',
    apiKeyEnv: 'GEMINI_API_KEY',
    baseUrlEnv: 'GEMINI_BASE_URL',
    defaultBaseUrl: 'https://generativelanguage.googleapis.com/v1beta',
    builtinModels: [
      'gemini-3.1-pro-preview',
      'gemini-3.8-flash',
      'gemini-3.5-flash-lite',
      'gemini-2.5-flash-lite',
      'gemini-embedding-001',
    ],
  },
  {
    name: 'mistral',
    family: 'openai-compatible',
    apiKeyEnv: 'MISTRAL_API_KEY',
    baseUrlEnv: 'MISTRAL_BASE_URL',
    defaultBaseUrl: 'https://api.mistral.ai/v1',
    builtinModels: [
      'mistral-large-latest',
      'mistral-medium-latest',
      'mistral-small-latest',
      'codestral-latest',
      'ministral-8b-latest',
      'mistral-embed',
    ],
    // Mistral refuses fields it does not define (stream_options among them) with 422, and always
    // reports usage on its last chunk.
    openaiCompat: { streamUsageOption: false, acceptedFields: MISTRAL_FIELDS, adjustRequest: mistralReasoningEffort },
  },
  {
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
  },
  {
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
  },
  {
    name: 'deepseek',
    family: 'openai-compatible',
    apiKeyEnv: 'DEEPSEEK_API_KEY',
    baseUrlEnv: 'DEEPSEEK_BASE_URL',
    defaultBaseUrl: 'https://api.deepseek.com/v1',
    builtinModels: ['deepseek-flash', 'deepseek-v4-pro'],
    openaiCompat: { reasoningRules: deepseekReasoningRules, adjustRequest: deepseekThinking },
  },
  {
    name: 'xai',
    family: 'openai-compatible',
    apiKeyEnv: 'XAI_API_KEY',
    baseUrlEnv: 'XAI_BASE_URL',
    defaultBaseUrl: 'https://api.x.ai/v1',
    builtinModels: ['grok-4.5', 'grok-4.3', 'grok-3-mini'],
    openaiCompat: { reasoningRules: xaiReasoningRules, adjustRequest: xaiReasoningEffort },
  },
  {
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
  },
  {
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
  },
  {
    name: 'ollama',
    family: 'openai-compatible',
    baseUrlEnv: 'OLLAMA_BASE_URL',
    defaultBaseUrl: 'http://127.0.0.1:11434/v1',
    builtinModels: ['llama3.2', 'qwen2.5'],
    local: true,
  },
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
