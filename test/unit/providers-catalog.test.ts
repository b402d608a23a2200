import { describe, expect, it } from 'vitest';
import { PROVIDERS, resolveProviderSettings, simulatorProviderSettings } from '../../server/providers/catalog.js';
import { PRICING_AS_OF, costUsd, priceFor } from '../../server/providers/pricing.js';
import {
  STRUCTURED_OUTPUT_RELIABLE,
  capabilitiesFor,
  isStructuredOutputReliable,
  modelTier,
} from '../../server/providers/capabilities.js';
import { createAdapter } from '../../server/providers/factory.js';
import { AnthropicAdapter } from '../../server/providers/anthropic/adapter.js';
import { GeminiAdapter } from '../../server/providers/gemini/adapter.js';
import { OpenAICompatibleAdapter } from '../../server/providers/openai-compatible/adapter.js';

describe('resolveProviderSettings', () => {
  it('returns only ollama for an empty environment', () => {
    const s = resolveProviderSettings({});
    expect(s).toEqual([
      {
        name: 'ollama',
        family: 'openai-compatible',
        baseUrl: 'http://127.0.0.1:11434/v1',
        builtinModels: expect.any(Array),
      },
    ]);
  });

  it('enables every provider whose key is set, with base URL overrides', () => {
    const s = resolveProviderSettings({
      OPENAI_API_KEY: 'sk-1',
      ANTHROPIC_API_KEY: 'ak',
      GEMINI_API_KEY: 'gk',
      MISTRAL_API_KEY: '  ',
      GROQ_API_KEY: 'g',
      GROQ_BASE_URL: 'http://proxy.local/groq/v1/',
      OLLAMA_BASE_URL: 'http://gpu-box:11434/v1',
    });
    expect(s.map((p) => p.name)).toEqual(['openai', 'anthropic', 'gemini', 'groq', 'ollama']);
    expect(s[0]).toMatchObject({ family: 'openai-compatible', baseUrl: 'https://api.openai.com/v1', apiKey: 'sk-1' });
    expect(s[1]).toMatchObject({ family: 'anthropic', baseUrl: 'https://api.anthropic.com', apiKey: 'ak' });
    expect(s[2]).toMatchObject({
      family: 'gemini',
      baseUrl: 'https://generativelanguage.googleapis.com/v1beta',
      apiKey: 'gk',
    });
    expect(s[3]).toMatchObject({ baseUrl: 'http://proxy.local/groq/v1' });
    expect(s[4]).toMatchObject({ baseUrl: 'http://gpu-box:11434/v1' });
    expect(s[4]!.apiKey).toBeUndefined();
  });

  it('knows every documented key env var', () => {
    const envs = PROVIDERS.map((p) => p.apiKeyEnv).filter(Boolean);
    expect(envs).toEqual([
      'OPENAI_API_KEY',
      'ANTHROPIC_API_KEY',
      'GEMINI_API_KEY',
      'MISTRAL_API_KEY',
      'GROQ_API_KEY',
      'TOGETHER_API_KEY',
      'DEEPSEEK_API_KEY',
      'XAI_API_KEY',
      'OPENROUTER_API_KEY',
      'FIREWORKS_API_KEY',
    ]);
    for (const p of PROVIDERS) expect(p.baseUrlEnv).toBe(`${p.name.toUpperCase()}_BASE_URL`);
  });

  it('points the three formats at a simulator', () => {
    const s = simulatorProviderSettings({
      openai: 'http://h/openai/v1',
      anthropic: 'http://h/anthropic',
      gemini: 'http://h/gemini/v1beta',
    });
    expect(s.map((p) => [p.name, p.family, p.baseUrl])).toEqual([
      ['openai', 'openai-compatible', 'http://h/openai/v1'],
      ['anthropic', 'anthropic', 'http://h/anthropic'],
      ['gemini', 'gemini', 'http://h/gemini/v1beta'],
    ]);
  });
});

describe('pricing', () => {
  it('has a date', () => {
    expect(PRICING_AS_OF).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('prices every required model and every built-in remote model', () => {
    const required = [
      'gpt-4o',
      'gpt-4o-mini',
      'gpt-4.1',
      'gpt-4.1-mini',
      'gpt-4.1-nano',
      'o3-mini',
      'claude-opus-4-1',
      'claude-sonnet-4-5',
      'claude-3-5-haiku-latest',
      'gemini-2.5-pro',
      'gemini-2.5-flash',
      'gemini-2.0-flash',
    ];
    for (const m of required) expect(priceFor(m), m).toBeDefined();
    for (const p of PROVIDERS) {
      if (p.local) continue;
      for (const m of p.builtinModels) expect(priceFor(m, p.name), `${p.name}/${m}`).toBeDefined();
    }
  });

  it('tolerates provider prefixes, dated snapshots and aliases', () => {
    expect(priceFor('gpt-4o-2024-08-06')).toEqual(priceFor('gpt-4o'));
    expect(priceFor('openai/gpt-4o')).toMatchObject({ input: 2.5, output: 10 });
    expect(priceFor('claude-sonnet-4-5-20250929')).toMatchObject({ input: 3, output: 15 });
    expect(priceFor('anthropic/claude-sonnet-4.5')).toMatchObject({ input: 3, output: 15 });
    expect(priceFor('claude-3-5-haiku-20241022')).toEqual(priceFor('claude-3-5-haiku-latest'));
    // Mistral's YYMM snapshots: the one -latest names now, and the one it named before.
    expect(priceFor('mistral-large-2512')).toEqual(priceFor('mistral-large-latest'));
    expect(priceFor('mistral-large-2411')).toMatchObject({ input: 2, output: 6 });
    expect(priceFor('mistral-large-2407')).toMatchObject({ input: 2, output: 6 });
    expect(priceFor('mistral-medium-2505')).toMatchObject({ input: 0.4, output: 2 });
    expect(priceFor('gemini-2.0-flash-001')).toEqual(priceFor('gemini-2.0-flash'));
    expect(priceFor('groq/llama-3.3-70b-versatile')).toMatchObject({ input: 0.59, output: 0.79 });
    expect(priceFor('META-LLAMA/llama-3.3-70b-instruct-turbo')).toMatchObject({ input: 0.88, output: 0.88 });
  });

  it('prefers host-specific prices when the provider is known', () => {
    expect(priceFor('openai/gpt-oss-20b', 'groq')).toMatchObject({ input: 0.075, output: 0.3 });
    expect(priceFor('accounts/fireworks/models/gpt-oss-20b', 'fireworks')).toMatchObject({ input: 0.07, output: 0.3 });
    expect(priceFor('openai/gpt-oss-120b', 'together')).toMatchObject({ input: 0.15, output: 0.6 });
  });

  it("prices the providers' current models by their exact ids, dotted versions included", () => {
    expect(priceFor('gpt-6.1-sol')).toMatchObject({ input: 2, output: 10 });
    expect(priceFor('openai/gpt-5.4-mini')).toMatchObject({ input: 0.75, output: 4.5 });
    expect(priceFor('claude-sonnet-5-5')).toMatchObject({ input: 2, output: 10 });
    expect(priceFor('gemini-3.1-pro-preview')).toMatchObject({ input: 2, output: 12 });
    expect(priceFor('grok-4.5', 'xai')).toMatchObject({ input: 2, output: 6 });
    expect(priceFor('deepseek-flash', 'deepseek')).toMatchObject({ input: 0.3, output: 1.2 });
    // A dotted id is not read as another model's dashed one.
    expect(priceFor('gpt-5.4')).not.toEqual(priceFor('gpt-5'));
  });

  it('returns undefined for unknown models and 0 for local ones', () => {
    expect(priceFor('my-finetune')).toBeUndefined();
    expect(priceFor('gpt-4o-but-not-really')).toBeUndefined();
    expect(priceFor('llama3.2', 'ollama')).toMatchObject({ input: 0, output: 0 });
    expect(priceFor('ollama/llama3.2')).toMatchObject({ input: 0, output: 0 });
  });

  it('computes cost in USD', () => {
    expect(costUsd('gpt-4o', 1_000_000, 1_000_000)).toBeCloseTo(12.5, 10);
    expect(costUsd('gpt-4o-mini', 1000, 500)).toBeCloseTo((1000 * 0.15 + 500 * 0.6) / 1e6, 12);
    expect(costUsd('claude-opus-4-1', 2000, 100)).toBeCloseTo(0.03 + 0.0075, 12);
    expect(costUsd('gemini-2.5-flash', 0, 0)).toBe(0);
    expect(costUsd('unknown-model', 10, 10)).toBeUndefined();
    expect(costUsd('qwen2.5', 1e6, 1e6, 'ollama')).toBe(0);
  });
});

describe('capabilities', () => {
  it('lists exactly eight structured-output models, all capable', () => {
    expect(STRUCTURED_OUTPUT_RELIABLE).toHaveLength(8);
    expect(new Set(STRUCTURED_OUTPUT_RELIABLE).size).toBe(8);
    for (const m of STRUCTURED_OUTPUT_RELIABLE) {
      expect(capabilitiesFor(m)).toMatchObject({ tools: true, json: true });
      expect(isStructuredOutputReliable(m)).toBe(true);
    }
    expect(isStructuredOutputReliable('gpt-4o-2024-08-06')).toBe(true);
    expect(isStructuredOutputReliable('gpt-4.1-nano')).toBe(false);
  });

  it('flags vision, tools and json, and tiers', () => {
    expect(capabilitiesFor('gpt-4o')).toEqual({ vision: true, tools: true, json: true });
    expect(capabilitiesFor('o3-mini').vision).toBe(false);
    expect(capabilitiesFor('deepseek-reasoner').tools).toBe(false);
    expect(modelTier('gpt-4o-mini')).toBe('small');
    expect(modelTier('gemini-2.5-flash')).toBe('medium');
    expect(modelTier('claude-opus-4-1-20250805')).toBe('large');
  });

  it('treats unknown models as not capable', () => {
    expect(capabilitiesFor('mystery-model')).toEqual({ vision: false, tools: false, json: false });
    expect(modelTier('mystery-model')).toBeUndefined();
  });
});

describe('createAdapter', () => {
  it('picks the adapter by family', () => {
    const mk = (family: 'openai-compatible' | 'anthropic' | 'gemini') =>
      createAdapter({ name: 'x', family, baseUrl: 'http://h', builtinModels: [] });
    expect(mk('openai-compatible')).toBeInstanceOf(OpenAICompatibleAdapter);
    expect(mk('anthropic')).toBeInstanceOf(AnthropicAdapter);
    expect(mk('gemini')).toBeInstanceOf(GeminiAdapter);
    expect(mk('anthropic').embeddings).toBeUndefined();
    expect(typeof mk('gemini').embeddings).toBe('function');
  });
});
