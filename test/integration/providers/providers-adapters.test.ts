// Each adapter family against the upstream simulator over real HTTP: translation, streaming,
// usage, model lists, and how every kind of upstream failure surfaces as a ProviderError.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../server/simulator/index.js';
import { SIM_THOUGHT_SIGNATURE } from '../../../server/simulator/gemini.js';
import { DEFAULT_MODELS } from '../../../server/simulator/config.js';
import { simulatorProviderSettings } from '../../../server/providers/catalog.js';
import { createAdapter } from '../../../server/providers/factory.js';
import { closeHttp } from '../../../server/providers/http.js';
import { isAbortedError } from '../../../server/providers/http-errors.js';
import { SKIP_THOUGHT_SIGNATURE } from '../../../server/providers/gemini/request.js';
import {
  ProviderError,
  type CallOptions,
  type ChatChunk,
  type ChatRequest,
  type ProviderAdapter,
  type ToolCall,
} from '../../../server/providers/types.js';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';

const KEY = 'sk-integration-secret-0123456789';

let sim: Simulator;
const adapters: Record<string, ProviderAdapter> = {};

beforeAll(async () => {
  sim = await startSimulator({ seed: 7 });
  for (const s of simulatorProviderSettings(sim.baseUrls, KEY)) adapters[s.name] = createAdapter(s);
});
afterAll(async () => {
  await closeHttp();
  await sim.close();
});
afterEach(() => {
  sim.clearFaults();
  sim.configure({ latencyMs: 0, chunkDelayMs: 0 });
});

const opts = (timeoutMs = 5000, signal: AbortSignal = new AbortController().signal): CallOptions => ({
  signal,
  timeoutMs,
});

async function collect(it: AsyncIterable<ChatChunk>): Promise<ChatChunk[]> {
  const out: ChatChunk[] = [];
  for await (const c of it) out.push(c);
  return out;
}

async function caught(p: Promise<unknown>): Promise<ProviderError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ProviderError);
    return e as ProviderError;
  }
  throw new Error('expected a ProviderError');
}

function assembleToolCalls(chunks: ChatChunk[]): Array<{ id?: string; name?: string; arguments: string }> {
  const calls: Array<{ id?: string; name?: string; arguments: string }> = [];
  for (const c of chunks) {
    for (const tc of c.choices[0]?.delta.tool_calls ?? []) {
      const call = (calls[tc.index] ??= { arguments: '' });
      if (tc.id) call.id = tc.id;
      if (tc.function?.name) call.name = tc.function.name;
      if (tc.function?.arguments) call.arguments += tc.function.arguments;
    }
  }
  return calls;
}

const weather = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
      required: ['city'],
    },
  },
};

const families = [
  { provider: 'openai', format: 'openai' as const, model: 'gpt-4o-mini' },
  { provider: 'anthropic', format: 'anthropic' as const, model: 'claude-sonnet-4-5' },
  { provider: 'gemini', format: 'gemini' as const, model: 'gemini-2.5-flash' },
];

describe.each(families)('$provider adapter', ({ provider, format, model }) => {
  const a = (): ProviderAdapter => adapters[provider]!;
  const req = (extra: Partial<ChatRequest> = {}): ChatRequest => ({
    model,
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Say hello to the integration test' },
    ],
    ...extra,
  });

  it('completes a chat with text, finish reason and usage', async () => {
    const c = await a().chat(req(), opts());
    expect(c.object).toBe('chat.completion');
    expect(typeof c.choices[0]!.message.content).toBe('string');
    expect(c.choices[0]!.message.content).toContain('Simulated reply');
    expect(c.choices[0]!.finish_reason).toBe('stop');
    expect(c.usage!.prompt_tokens).toBeGreaterThan(0);
    expect(c.usage!.completion_tokens).toBeGreaterThan(0);
    expect(c.usage!.total_tokens).toBe(c.usage!.prompt_tokens + c.usage!.completion_tokens);
  });

  it('streams the same text, role first, one finish chunk and a final usage chunk', async () => {
    const full = await a().chat(req(), opts());
    const chunks = await collect(a().chatStream(req(), opts()));
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe(full.choices[0]!.message.content);
    const finishes = chunks.map((c) => c.choices[0]?.finish_reason).filter(Boolean);
    expect(finishes).toEqual(['stop']);
    const last = chunks[chunks.length - 1]!;
    expect(last.choices).toEqual([]);
    const { prompt_tokens, completion_tokens, total_tokens } = full.usage!;
    expect(last.usage).toMatchObject({ prompt_tokens, completion_tokens, total_tokens });
    expect(chunks.filter((c) => c.usage).length).toBe(1);
  });

  it('reports length when max_tokens cuts the answer', async () => {
    const c = await a().chat(req({ max_tokens: 3 }), opts());
    expect(c.choices[0]!.finish_reason).toBe('length');
    expect(c.usage!.completion_tokens).toBe(3);
  });

  it('calls tools (chat and stream)', async () => {
    const r = req({ tools: [weather], tool_choice: 'required' });
    const c = await a().chat(r, opts());
    expect(c.choices[0]!.finish_reason).toBe('tool_calls');
    const tc = c.choices[0]!.message.tool_calls![0]!;
    expect(tc.type).toBe('function');
    expect(tc.function.name).toBe('get_weather');
    expect(typeof JSON.parse(tc.function.arguments).city).toBe('string');
    expect(tc.id).toBeTruthy();

    const chunks = await collect(a().chatStream(r, opts()));
    const calls = assembleToolCalls(chunks);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.name).toBe('get_weather');
    expect(calls[0]!.id).toBeTruthy();
    expect(typeof JSON.parse(calls[0]!.arguments).city).toBe('string');
    expect(chunks.some((ch) => ch.choices[0]?.finish_reason === 'tool_calls')).toBe(true);
    expect(chunks[chunks.length - 1]!.usage!.completion_tokens).toBeGreaterThan(0);
  });

  it('sends tool results back and gets a text answer', async () => {
    const c = await a().chat(
      req({
        tools: [weather],
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: '{"temp_c":21}' },
        ],
      }),
      opts(),
    );
    expect(c.choices[0]!.finish_reason).toBe('stop');
    expect(typeof c.choices[0]!.message.content).toBe('string');
  });

  it('answers in JSON matching a schema (chat and stream)', async () => {
    const schema = {
      type: 'object',
      properties: { city: { type: 'string' }, population: { type: 'integer' } },
      required: ['city', 'population'],
    };
    const r = req({ response_format: { type: 'json_schema', json_schema: { name: 'city', schema } } });
    const c = await a().chat(r, opts());
    expect(c.choices[0]!.finish_reason).toBe('stop');
    const parsed = JSON.parse(c.choices[0]!.message.content!);
    expect(typeof parsed.city).toBe('string');
    expect(Number.isInteger(parsed.population)).toBe(true);

    const chunks = await collect(a().chatStream(r, opts()));
    const streamed = JSON.parse(chunks.map((ch) => ch.choices[0]?.delta.content ?? '').join(''));
    expect(typeof streamed.city).toBe('string');
  });

  it('lists models, and rejects when the endpoint fails (the registry falls back and says why)', async () => {
    const models = await a().listModels(opts());
    expect(models).toContain(model);
    sim.setFaults([{ format, endpoint: 'models', status: 500 }]);
    const fallback = createAdapter({
      name: provider,
      family: a().family,
      baseUrl: sim.baseUrls[format],
      apiKey: KEY,
      builtinModels: ['builtin-only'],
    });
    expect(await caught(fallback.listModels(opts()))).toMatchObject({ kind: 'http', status: 500, provider });
  });

  it('maps 429 with Retry-After to a retryable http error with the upstream message', async () => {
    sim.setFaults([{ format, status: 429, retryAfterSeconds: 3 }]);
    const e = await caught(a().chat(req(), opts()));
    expect(e).toMatchObject({ kind: 'http', status: 429, retryable: true, retryAfterMs: 3000, provider });
    expect(e.message).toContain('Rate limit exceeded');
    expect(e.message).not.toContain(KEY);
  });

  it('maps 500 to retryable and 400 to not retryable', async () => {
    sim.setFaults([
      { format, status: 500, times: 1 },
      { format, status: 400, times: 1 },
    ]);
    expect(await caught(a().chat(req(), opts()))).toMatchObject({ kind: 'http', status: 500, retryable: true });
    expect(await caught(a().chat(req(), opts()))).toMatchObject({ kind: 'http', status: 400, retryable: false });
  });

  it('maps a connection reset to a retryable connection error', async () => {
    sim.setFaults([{ format, resetConnection: true }]);
    expect(await caught(a().chat(req(), opts()))).toMatchObject({ kind: 'connection', status: 0, retryable: true });
  });

  it('maps a slow upstream to a retryable timeout', async () => {
    sim.setFaults([{ format, hang: true }]);
    const started = Date.now();
    expect(await caught(a().chat(req(), opts(150)))).toMatchObject({ kind: 'timeout', status: 0, retryable: true });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('throws a retryable error from the first next() when a stream fails before its first event', async () => {
    sim.setFaults([
      { format, status: 503, times: 1 },
      { format, resetConnection: true, times: 1 },
    ]);
    const e1 = await caught(collect(a().chatStream(req(), opts())));
    expect(e1).toMatchObject({ kind: 'http', status: 503, retryable: true });
    const e2 = await caught(collect(a().chatStream(req(), opts())));
    expect(e2).toMatchObject({ kind: 'connection', retryable: true });
  });

  it('treats a stream cut before any chunk as retryable', async () => {
    sim.setFaults([{ format, cutStreamAfterChunks: 0 }]);
    const e = await caught(collect(a().chatStream(req(), opts())));
    expect(e.retryable).toBe(true);
  });

  it('throws kind stream, not retryable, when a stream is cut after its first chunk', async () => {
    sim.setFaults([{ format, cutStreamAfterChunks: 1 }]);
    const got: ChatChunk[] = [];
    const e = await caught(
      (async () => {
        for await (const c of a().chatStream(req(), opts())) got.push(c);
      })(),
    );
    expect(got.length).toBeGreaterThanOrEqual(1);
    expect(e).toMatchObject({ kind: 'stream', retryable: false, provider });
  });

  it('times a stream out when the provider is silent too long: retryable before the first chunk, kind stream after it', async () => {
    sim.setFaults([{ format, hang: true, times: 1 }]);
    expect(await caught(collect(a().chatStream(req(), opts(150))))).toMatchObject({ kind: 'timeout', retryable: true });
    // The timeout bounds each wait for the next event, not the whole stream: a gap longer than it.
    sim.configure({ chunkDelayMs: 400 });
    const got: ChatChunk[] = [];
    const e = await caught(
      (async () => {
        for await (const c of a().chatStream(req(), opts(250))) got.push(c);
      })(),
    );
    expect(got.length).toBeGreaterThanOrEqual(1);
    expect(e).toMatchObject({ kind: 'stream', retryable: false });
    expect(e.message).toContain('timed out');
    // Gaps shorter than the timeout, however many: the stream completes.
    sim.configure({ chunkDelayMs: 100 });
    const whole = await collect(a().chatStream(req(), opts(250)));
    expect(whole.length).toBeGreaterThan(3);
  });

  it('aborts when the caller signal fires, with a non-retryable abort error', async () => {
    sim.setFaults([{ format, hang: true }]);
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 50);
    const e = await caught(a().chat(req(), opts(10_000, ctl.signal)));
    expect(isAbortedError(e)).toBe(true);
    expect(e.retryable).toBe(false);
    expect(e.name).toBe('AbortError');
  });

  it('aborts a running stream', async () => {
    sim.configure({ chunkDelayMs: 30 });
    const ctl = new AbortController();
    const got: ChatChunk[] = [];
    const e = await caught(
      (async () => {
        for await (const c of a().chatStream(req(), opts(10_000, ctl.signal))) {
          got.push(c);
          if (got.length === 2) ctl.abort();
        }
      })(),
    );
    expect(isAbortedError(e)).toBe(true);
    expect(got.length).toBe(2);
  });
});

describe('wire details', () => {
  it('openai: bearer key, stream_options.include_usage, body passed through', async () => {
    sim.resetRequests();
    await collect(
      adapters['openai']!.chatStream(
        { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], seed: 5, logit_bias: { 50256: -100 } },
        opts(),
      ),
    );
    const r = sim.requests[sim.requests.length - 1]!;
    expect(r.path).toBe('/openai/v1/chat/completions');
    expect(r.headers['authorization']).toBe(`Bearer ${KEY}`);
    expect(r.body).toMatchObject({
      model: 'gpt-4o',
      stream: true,
      stream_options: { include_usage: true },
      seed: 5,
      logit_bias: { 50256: -100 },
    });
  });

  it('anthropic: x-api-key, anthropic-version, /v1/messages, default max_tokens', async () => {
    sim.resetRequests();
    await adapters['anthropic']!.chat(
      {
        model: 'claude-3-5-haiku-latest',
        messages: [
          { role: 'system', content: 'S' },
          { role: 'user', content: 'hi' },
        ],
      },
      opts(),
    );
    const r = sim.requests[sim.requests.length - 1]!;
    expect(r.path).toBe('/anthropic/v1/messages');
    expect(r.headers['x-api-key']).toBe(KEY);
    expect(r.headers['anthropic-version']).toBe('2023-06-01');
    expect(r.body).toMatchObject({ model: 'claude-3-5-haiku-latest', system: 'S', max_tokens: 4096 });
  });

  it('gemini: x-goog-api-key header, model in the path, no key in the URL', async () => {
    sim.resetRequests();
    await collect(
      adapters['gemini']!.chatStream(
        { model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'hi' }] },
        opts(),
      ),
    );
    const r = sim.requests[sim.requests.length - 1]!;
    expect(r.path).toBe('/gemini/v1beta/models/gemini-2.0-flash:streamGenerateContent');
    expect(r.headers['x-goog-api-key']).toBe(KEY);
  });

  it('embeddings: openai-compatible and gemini batchEmbedContents', async () => {
    const o = await adapters['openai']!.embeddings!({ model: 'text-embedding-3-small', input: ['a b', 'c d'] }, opts());
    expect(o.data).toHaveLength(2);
    expect(o.data[0]!.embedding.length).toBeGreaterThan(0);
    expect(o.usage!.prompt_tokens).toBeGreaterThan(0);
    const g = await adapters['gemini']!.embeddings!(
      { model: 'gemini-embedding-001', input: 'hello world', dimensions: 16 },
      opts(),
    );
    expect(g.object).toBe('list');
    expect(g.data).toEqual([{ object: 'embedding', index: 0, embedding: expect.any(Array) }]);
    expect(g.data[0]!.embedding).toHaveLength(16);
    // Gemini reports no usage for embeddings: the core counts the input.
    expect(g.usage).toBeUndefined();
    expect(adapters['anthropic']!.embeddings).toBeUndefined();
  });

  it('reuses keep-alive connections for sequential calls', async () => {
    let connections = 0;
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: 'x',
            object: 'chat.completion',
            created: 1,
            model: 'm',
            choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
          }),
        );
      });
    });
    server.on('connection', () => {
      connections++;
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const local = createAdapter({
        name: 'local',
        family: 'openai-compatible',
        baseUrl: `http://127.0.0.1:${port}/v1`,
        builtinModels: [],
      });
      for (let i = 0; i < 10; i++)
        await local.chat({ model: 'm', messages: [{ role: 'user', content: `n${i}` }] }, opts());
      // undici may open a second socket while the first is still being released; never one per call.
      expect(connections).toBeLessThanOrEqual(2);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('rejected provider keys', () => {
  // The simulators refuse keys starting with "invalid" the way the real APIs refuse a wrong key.
  const BAD_KEY = 'invalid-key-0123456789abcdef';
  const badAdapter = (provider: 'gemini' | 'anthropic'): ProviderAdapter =>
    createAdapter({
      name: provider,
      family: provider,
      baseUrl: sim.baseUrls[provider],
      apiKey: BAD_KEY,
      builtinModels: [],
    });
  const hello = (model: string): ChatRequest => ({ model, messages: [{ role: 'user', content: 'hi' }] });

  it('gemini: the real 400 API_KEY_INVALID answer becomes an authentication failure (chat and stream)', async () => {
    const raw = await fetch(`${sim.baseUrls.gemini}/models/gemini-2.5-flash:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': BAD_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ parts: [{ text: 'hi' }] }] }),
    });
    expect(raw.status).toBe(400);
    expect(((await raw.json()) as any).error).toMatchObject({
      code: 400,
      status: 'INVALID_ARGUMENT',
      details: [expect.objectContaining({ reason: 'API_KEY_INVALID' }), expect.anything()],
    });

    for (const call of [
      () => badAdapter('gemini').chat(hello('gemini-2.5-flash'), opts()),
      () => collect(badAdapter('gemini').chatStream(hello('gemini-2.5-flash'), opts())),
    ]) {
      const e = await caught(call());
      expect(e).toMatchObject({ provider: 'gemini', kind: 'http', status: 401, retryable: false });
      expect(e.message).toContain('API key not valid. Please pass a valid API key.');
      expect(e.message).not.toContain(BAD_KEY);
    }
  });

  it('anthropic: 401 authentication_error, message kept, key left out', async () => {
    const e = await caught(badAdapter('anthropic').chat(hello('claude-sonnet-4-5'), opts()));
    expect(e).toMatchObject({ provider: 'anthropic', status: 401, retryable: false });
    expect(e.message).toContain('authentication_error: invalid x-api-key');
    expect(e.message).not.toContain(BAD_KEY);
  });
});

describe('anthropic tool calls without parameters', () => {
  it('streams the same arguments as the whole answer: "{}"', async () => {
    const noParams = {
      type: 'function' as const,
      function: { name: 'get_time', description: 'The current time', parameters: { type: 'object', properties: {} } },
    };
    const r: ChatRequest = {
      model: 'claude-sonnet-4-5',
      messages: [{ role: 'user', content: 'What time is it?' }],
      tools: [noParams],
      tool_choice: 'required',
    };
    const whole = await adapters['anthropic']!.chat(r, opts());
    expect(whole.choices[0]!.message.tool_calls![0]!.function).toEqual({ name: 'get_time', arguments: '{}' });
    const calls = assembleToolCalls(await collect(adapters['anthropic']!.chatStream(r, opts())));
    expect(calls).toEqual([{ id: expect.stringMatching(/^toolu_/), name: 'get_time', arguments: '{}' }]);
  });
});

describe('gemini thought signatures', () => {
  const GEMINI_3 = 'gemini-3-pro-preview';
  beforeAll(() => sim.configure({ models: { gemini: [...DEFAULT_MODELS.gemini, GEMINI_3] } }));
  afterAll(() => sim.configure({ models: { gemini: [...DEFAULT_MODELS.gemini] } }));

  const ask = (model: string): ChatRequest => ({
    model,
    messages: [{ role: 'user', content: 'Weather in Oslo?' }],
    tools: [weather],
    tool_choice: 'required',
  });
  const followUp = (model: string, call: ToolCall): ChatRequest => ({
    model,
    tools: [weather],
    messages: [
      { role: 'user', content: 'Weather in Oslo?' },
      { role: 'assistant', content: null, tool_calls: [call] },
      { role: 'tool', tool_call_id: call.id, content: '{"temp_c":-3}' },
    ],
  });
  const lastSentParts = (): unknown[] => {
    const body = sim.requests[sim.requests.length - 1]!.body as { contents: Array<{ role: string; parts: unknown[] }> };
    return body.contents.find((c) => c.role === 'model')!.parts;
  };

  it('hands the signature to the client on the tool call, whole and streamed, and sends it back', async () => {
    const a = adapters['gemini']!;
    const whole = await a.chat(ask(GEMINI_3), opts());
    const call = whole.choices[0]!.message.tool_calls![0]!;
    expect(call).toMatchObject({ extra_content: { google: { thought_signature: SIM_THOUGHT_SIGNATURE } } });

    const chunks = await collect(a.chatStream(ask(GEMINI_3), opts()));
    const streamed = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(streamed).toEqual([
      expect.objectContaining({ extra_content: { google: { thought_signature: SIM_THOUGHT_SIGNATURE } } }),
    ]);

    // The client sends the assistant message back as it got it (the JSON round trip of an HTTP client).
    const answer = await a.chat(followUp(GEMINI_3, JSON.parse(JSON.stringify(call))), opts());
    expect(answer.choices[0]!.finish_reason).toBe('stop');
    expect(lastSentParts()).toEqual([
      {
        functionCall: { id: call.id, name: 'get_weather', args: expect.any(Object) },
        thoughtSignature: SIM_THOUGHT_SIGNATURE,
      },
    ]);
  });

  it('signs a call made elsewhere with the placeholder for Gemini 3, which the model then accepts', async () => {
    const foreign: ToolCall = {
      id: 'toolu_01A',
      type: 'function',
      function: { name: 'get_weather', arguments: '{"city":"Oslo"}' },
    };
    // Without a signature the model refuses the turn, as the real Gemini 3 does.
    const refused = await fetch(`${sim.baseUrls.gemini}/models/${GEMINI_3}:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({
        contents: [
          { role: 'user', parts: [{ text: 'Weather?' }] },
          { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: {} } }] },
          { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: {} } }] },
        ],
      }),
    });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as any).error.message).toContain('missing a thought_signature');

    const answer = await adapters['gemini']!.chat(followUp(GEMINI_3, foreign), opts());
    expect(answer.choices[0]!.finish_reason).toBe('stop');
    expect(lastSentParts()).toEqual([
      {
        functionCall: { id: 'toolu_01A', name: 'get_weather', args: { city: 'Oslo' } },
        thoughtSignature: SKIP_THOUGHT_SIGNATURE,
      },
    ]);

    await adapters['gemini']!.chat(followUp('gemini-2.5-flash', foreign), opts());
    expect(lastSentParts()).toEqual([
      { functionCall: { id: 'toolu_01A', name: 'get_weather', args: { city: 'Oslo' } } },
    ]);
  });
});

describe('through the gateway', () => {
  let c: ChatEnv;
  beforeAll(async () => {
    c = await startChatEnv({ env: { GEMINI_API_KEY: 'invalid-gemini-key-0123456789' } });
  });
  afterAll(() => c.close());

  it('falls back to another provider when Gemini refuses its key with 400 API_KEY_INVALID', async () => {
    // The refused key fails discovery too: Gemini keeps its built-in list, which names this model.
    const { data, response } = await c
      .openai()
      .chat.completions.create({
        model: 'gemini/gemini-2.5-flash-lite',
        messages: [{ role: 'user', content: 'Hello' }],
      })
      .withResponse();
    const gw = (data as any)._gateway;
    expect(gw.routing.usedFallback).toBe(true);
    expect(gw.provider).not.toBe('gemini');
    expect(data.choices[0]!.message.content).toBeTruthy();
    const errors = JSON.parse(response.headers.get('x-gateway-errors')!);
    expect(errors[0]).toMatchObject({ provider: 'gemini', model: 'gemini-2.5-flash-lite', status: 401 });
    expect(errors[0].message).toContain('API key not valid');
    expect(JSON.stringify(errors)).not.toContain('invalid-gemini-key-0123456789');

    const stream = await c.openai().chat.completions.create({
      model: 'gemini/gemini-2.5-flash-lite',
      messages: [{ role: 'user', content: 'Stream please' }],
      stream: true,
    });
    let text = '';
    let routing: any;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      routing ??= (chunk as any)._gateway?.routing;
    }
    expect(text).toBeTruthy();
    expect(routing.usedFallback).toBe(true);
  });
});

describe('thought signatures through the gateway and the OpenAI SDK', () => {
  let c: ChatEnv;
  beforeAll(async () => {
    c = await startChatEnv({ sim: { models: { gemini: [...DEFAULT_MODELS.gemini, 'gemini-3-pro-preview'] } } });
  });
  afterAll(() => c.close());

  it('returns the signature on the tool call (whole and streamed) and takes it back on the next turn', async () => {
    const model = 'gemini/gemini-3-pro-preview';
    const question = [{ role: 'user' as const, content: 'Weather in Oslo?' }];
    const first = await c
      .openai()
      .chat.completions.create({ model, messages: question, tools: [weather], tool_choice: 'required' });
    const message = first.choices[0]!.message;
    expect(message.tool_calls![0]).toMatchObject({
      extra_content: { google: { thought_signature: SIM_THOUGHT_SIGNATURE } },
    });

    const stream = await c.openai().chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'Weather in Bergen?' }],
      tools: [weather],
      tool_choice: 'required',
      stream: true,
    });
    const deltas: unknown[] = [];
    for await (const chunk of stream) deltas.push(...(chunk.choices[0]?.delta?.tool_calls ?? []));
    expect(deltas).toEqual([
      expect.objectContaining({ extra_content: { google: { thought_signature: SIM_THOUGHT_SIGNATURE } } }),
    ]);

    // The assistant message goes back as the SDK returned it; Gemini 3 accepts the turn.
    const call = message.tool_calls![0]!;
    const second = await c.openai().chat.completions.create({
      model,
      tools: [weather],
      messages: [...question, message, { role: 'tool', tool_call_id: call.id, content: '{"temp_c":-3}' }],
    });
    expect(second.choices[0]!.finish_reason).toBe('stop');
    const sent = c.sim.requests[c.sim.requests.length - 1]!.body as {
      contents: Array<{ role: string; parts: Array<Record<string, unknown>> }>;
    };
    expect(sent.contents.find((x) => x.role === 'model')!.parts[0]!['thoughtSignature']).toBe(SIM_THOUGHT_SIGNATURE);
  });
});
