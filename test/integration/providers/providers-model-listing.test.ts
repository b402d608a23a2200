// Model discovery from OpenAI-compatible models endpoints in the shapes providers answer: OpenAI's
// `{object: 'list', data: [...]}` and Together's bare array with a `type` per model. A listing's
// `type` keeps non-chat models out of routing; a listing without any model id (of any provider
// family) is reported as a discovery error, not silently replaced by the built-in list.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeHttp } from '../../../server/providers/http.js';
import { ProviderRegistry, type RegistrySettings } from '../../../server/providers/registry.js';

// Together's answer (docs.together.ai/reference/models): a plain array, one object per model.
const TOGETHER_MODELS = [
  { id: 'meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8', object: 'model', type: 'chat', context_length: 1048576 },
  { id: 'Qwen/Qwen2.5-72B-Instruct-Turbo', object: 'model', type: 'chat' },
  { id: 'meta-llama/Meta-Llama-3-8B', object: 'model', type: 'language' },
  { id: 'togethercomputer/m2-bert-80M-32k-retrieval', object: 'model', type: 'embedding' },
  { id: 'black-forest-labs/FLUX.1-schnell', object: 'model', type: 'image' },
  { id: 'cartesia/sonic-2', object: 'model', type: 'audio' },
  { id: 'meta-llama/Llama-Guard-4-12B', object: 'model', type: 'moderation' },
  { id: 'mixedbread-ai/Mxbai-Rerank-Large-V2', object: 'model', type: 'rerank' },
  // A non-chat type on an id no word marks: only the listing's type tells.
  { id: 'acme/Helios-1B', object: 'model', type: 'audio' },
];

const answers: Record<string, unknown> = {
  '/together/v1/models': TOGETHER_MODELS,
  '/openai/v1/models': {
    object: 'list',
    data: [
      { id: 'gpt-4o-mini', object: 'model' },
      { id: 'text-embedding-3-small', object: 'model' },
    ],
  },
  '/empty/v1/models': { object: 'list', data: [] },
  '/odd/v1/models': { models: [{ name: 'gpt-4o-mini' }] },
  '/local/v1/models': [
    { id: 'qwen2.5-coder:7b', object: 'model' },
    { id: 'embeddinggemma:latest', object: 'model' },
  ],
  // Anthropic's and Gemini's own list shapes, empty.
  '/anthropic-empty/v1/models?limit=1000': { data: [], has_more: false },
  '/gemini-empty/models?pageSize=1000': { models: [] },
};

let server: Server;
let base: string;
const registry = new ProviderRegistry();

const provider = (
  name: string,
  path: string,
  builtinModels: string[],
  source: RegistrySettings['source'] = 'env',
): RegistrySettings => ({
  name,
  family: 'openai-compatible',
  baseUrl: `${base}/${path}/v1`,
  apiKey: 'sk-test-0123456789',
  builtinModels,
  source,
});

beforeAll(async () => {
  server = createServer((req, res) => {
    const answer = answers[req.url ?? ''];
    res.writeHead(answer === undefined ? 404 : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer ?? { error: { message: 'not found' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await registry.load([
    provider('together', 'together', ['builtin-together-model']),
    provider('openai', 'openai', ['builtin-openai-model']),
    provider('mistral', 'empty', ['builtin-mistral-model']),
    provider('groq', 'odd', ['builtin-groq-model']),
    provider('ollama', 'local', [], 'local'),
    {
      name: 'anthropic',
      family: 'anthropic',
      baseUrl: `${base}/anthropic-empty`,
      apiKey: 'sk-ant-test-0123456789',
      builtinModels: ['builtin-claude'],
      source: 'env',
    },
    {
      name: 'gemini',
      family: 'gemini',
      baseUrl: `${base}/gemini-empty`,
      apiKey: 'gem-test-0123456789',
      builtinModels: ['builtin-gemini'],
      source: 'env',
    },
  ]);
});
afterAll(async () => {
  await closeHttp();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const targetsOf = (name: string) =>
  registry
    .targets()
    .filter((t) => t.provider === name)
    .map((t) => t.model);

describe('model discovery', () => {
  it("reads Together's bare array: every listed model can be pinned, only its chat models are routed to", () => {
    const together = registry.get('together')!;
    expect(together.discoveryError).toBeNull();
    expect(together.models).toEqual(TOGETHER_MODELS.map((m) => m.id));
    expect(registry.providersFor('meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8').map((p) => p.name)).toEqual([
      'together',
    ]);
    expect(targetsOf('together')).toEqual([
      'meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8',
      'Qwen/Qwen2.5-72B-Instruct-Turbo',
    ]);
  });

  it("reads OpenAI's list, and decides by id where the listing gives no type", () => {
    const openai = registry.get('openai')!;
    expect(openai).toMatchObject({
      models: ['gpt-4o-mini', 'text-embedding-3-small'],
      discoveryError: null,
      active: true,
    });
    expect(targetsOf('openai')).toEqual(['gpt-4o-mini']);
  });

  it('reports a listing without any model id as a discovery error, and falls back to the built-in list', () => {
    expect(registry.get('mistral')).toMatchObject({
      models: ['builtin-mistral-model'],
      active: true,
      discoveryError: expect.stringContaining('listed no model ids'),
    });
    expect(registry.get('groq')).toMatchObject({
      models: ['builtin-groq-model'],
      active: true,
      discoveryError: expect.stringContaining('listed no model ids'),
    });
    // Anthropic's and Gemini's adapters alike.
    expect(registry.get('anthropic')).toMatchObject({
      models: ['builtin-claude'],
      active: true,
      discoveryError: expect.stringContaining('listed no model ids'),
    });
    expect(registry.get('gemini')).toMatchObject({
      models: ['builtin-gemini'],
      active: true,
      discoveryError: expect.stringContaining('listed no model ids'),
    });
  });

  it("reads a local server's list in either shape", () => {
    expect(registry.get('ollama')).toMatchObject({
      models: ['qwen2.5-coder:7b', 'embeddinggemma:latest'],
      active: true,
      discoveryError: null,
    });
    expect(targetsOf('ollama')).toEqual(['qwen2.5-coder:7b']);
  });
});
