import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../server/simulator/index.js';
import { readAll } from '../../support/read-body.js';

// ---------- helpers ----------

interface SseEvent {
  event?: string;
  data: string;
}

function parseSse(text: string): SseEvent[] {
  const out: SseEvent[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    if (!block.trim()) continue;
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
    }
    out.push(event === undefined ? { data: data.join('\n') } : { event, data: data.join('\n') });
  }
  return out;
}

const json = (v: unknown): string => JSON.stringify(v);
// Response bodies are inspected loosely; the assertions are the type checks.
const j = (res: Response): Promise<any> => res.json();
const OA = { authorization: 'Bearer sk-test', 'content-type': 'application/json' };
const AN = { 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' };
const GE = { 'x-goog-api-key': 'g-test', 'content-type': 'application/json' };

const weatherTool = {
  type: 'object',
  properties: {
    city: { type: 'string' },
    unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
    days: { type: 'integer', minimum: 1 },
  },
  required: ['city'],
};

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ seed: 42 });
});
afterAll(async () => {
  await sim.close();
});
afterEach(() => {
  sim.clearFaults();
  sim.configure({ latencyMs: 0, chunkDelayMs: 0, outputTokens: 24 });
});

const openai = (body: unknown, headers: Record<string, string> = OA, path = '/chat/completions'): Promise<Response> =>
  fetch(sim.baseUrls.openai + path, { method: 'POST', headers, body: json(body) });
const anthropic = (body: unknown, headers: Record<string, string> = AN): Promise<Response> =>
  fetch(sim.baseUrls.anthropic + '/v1/messages', { method: 'POST', headers, body: json(body) });
const gemini = (
  model: string,
  action: string,
  body: unknown,
  headers: Record<string, string> = GE,
): Promise<Response> =>
  fetch(`${sim.baseUrls.gemini}/models/${model}:${action}`, { method: 'POST', headers, body: json(body) });

const hello = [{ role: 'user', content: 'Hello there, how are you today?' }];

// ---------- OpenAI ----------

describe('openai format', () => {
  it('answers a chat completion with consistent usage', async () => {
    const res = await openai({ model: 'gpt-4o', messages: hello });
    expect(res.status).toBe(200);
    const body = await j(res);
    expect(body.object).toBe('chat.completion');
    expect(body.model).toBe('gpt-4o');
    const { message, finish_reason } = body.choices[0];
    expect(message.role).toBe('assistant');
    expect(message.content).toMatch(/^Simulated reply from gpt-4o to: Hello there, how are you today\?/);
    expect(finish_reason).toBe('stop');
    expect(body.usage.completion_tokens).toBe(message.content.split(' ').length);
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens + body.usage.completion_tokens);
  });

  it('streams one chunk per piece with the same text and usage as the non-streaming reply', async () => {
    const req = { model: 'gpt-4o-mini', messages: hello };
    const full = await j(await openai(req));
    const res = await openai({ ...req, stream: true, stream_options: { include_usage: true } });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = parseSse(await res.text());
    expect(events.at(-1)!.data).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.data));
    expect(chunks[0].choices[0].delta.role).toBe('assistant');
    const pieces = chunks.filter((c) => c.choices[0]?.delta?.content).map((c) => c.choices[0].delta.content as string);
    expect(pieces.join('')).toBe(full.choices[0].message.content);
    expect(pieces.length).toBe(full.usage.completion_tokens);
    const finish = chunks.find((c) => c.choices[0]?.finish_reason);
    expect(finish.choices[0].finish_reason).toBe('stop');
    const last = chunks.at(-1);
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual({
      prompt_tokens: full.usage.prompt_tokens,
      completion_tokens: full.usage.completion_tokens,
      total_tokens: full.usage.total_tokens,
    });
  });

  it('omits the usage chunk unless asked for', async () => {
    const events = parseSse(await (await openai({ model: 'gpt-4o', messages: hello, stream: true })).text());
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.data));
    expect(chunks.every((c) => c.usage === undefined && c.choices.length === 1)).toBe(true);
  });

  it('honours max_tokens, max_completion_tokens and stop', async () => {
    const a = await j(await openai({ model: 'gpt-4o', messages: hello, max_tokens: 3 }));
    expect(a.choices[0].message.content).toBe('Simulated reply from');
    expect(a.choices[0].finish_reason).toBe('length');
    expect(a.usage.completion_tokens).toBe(3);
    const b = await j(await openai({ model: 'gpt-4o', messages: hello, max_completion_tokens: 2 }));
    expect(b.usage.completion_tokens).toBe(2);
    const c = await j(await openai({ model: 'gpt-4o', messages: hello, stop: [' to:'] }));
    expect(c.choices[0].message.content).toBe('Simulated reply from gpt-4o');
    expect(c.choices[0].finish_reason).toBe('stop');
    expect(c.usage.completion_tokens).toBe(4);
  });

  it('calls a tool, streamed as id/name then argument fragments', async () => {
    const req = {
      model: 'gpt-4.1',
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: weatherTool } }],
    };
    const full = await j(await openai(req));
    const call = full.choices[0].message.tool_calls[0];
    expect(full.choices[0].finish_reason).toBe('tool_calls');
    expect(full.choices[0].message.content).toBeNull();
    expect(call.id).toMatch(/^call_/);
    expect(call.function.name).toBe('get_weather');
    const args = JSON.parse(call.function.arguments);
    expect(typeof args.city).toBe('string');
    expect(args.unit).toBe('celsius');
    expect(args.days).toBe(1);

    const events = parseSse(await (await openai({ ...req, stream: true })).text());
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.data));
    const deltas = chunks.flatMap((c) => c.choices[0].delta.tool_calls ?? []);
    expect(deltas[0]).toMatchObject({ index: 0, type: 'function', function: { name: 'get_weather' } });
    expect(deltas[0].id).toMatch(/^call_/);
    expect(deltas.length).toBeGreaterThan(2);
    expect(JSON.parse(deltas.map((d) => d.function.arguments).join(''))).toEqual(args);
    expect(chunks.at(-1).choices[0].finish_reason).toBe('tool_calls');
  });

  it('answers in text after a tool result, or when tool_choice is none', async () => {
    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: weatherTool } }];
    const none = await j(await openai({ model: 'gpt-4o', messages: hello, tools, tool_choice: 'none' }));
    expect(none.choices[0].finish_reason).toBe('stop');
    const after = await j(
      await openai({
        model: 'gpt-4o',
        tools,
        messages: [
          { role: 'user', content: 'Weather?' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: 'call_1', content: 'Sunny and warm' },
        ],
      }),
    );
    expect(after.choices[0].message.content).toContain('to: Sunny and warm');
  });

  it('returns JSON for json_object and schema-conforming JSON for json_schema', async () => {
    const obj = await j(await openai({ model: 'gpt-4o', messages: hello, response_format: { type: 'json_object' } }));
    expect(typeof JSON.parse(obj.choices[0].message.content)).toBe('object');
    const schema = {
      type: 'object',
      properties: {
        name: { type: 'string' },
        age: { type: 'integer' },
        score: { type: 'number' },
        ok: { type: 'boolean' },
        tags: { type: 'array', items: { type: 'string' } },
        mood: { enum: ['happy', 'sad'] },
        address: {
          type: 'object',
          properties: { zip: { type: 'string' } },
          required: ['zip'],
          additionalProperties: false,
        },
      },
      required: ['name', 'age', 'score', 'ok', 'tags', 'mood', 'address'],
      additionalProperties: false,
    };
    const res = await j(
      await openai({
        model: 'gpt-4o',
        messages: hello,
        response_format: { type: 'json_schema', json_schema: { name: 'p', schema, strict: true } },
      }),
    );
    const v = JSON.parse(res.choices[0].message.content);
    expect(typeof v.name).toBe('string');
    expect(Number.isInteger(v.age)).toBe(true);
    expect(typeof v.score).toBe('number');
    expect(typeof v.ok).toBe('boolean');
    expect(v.tags).toHaveLength(1);
    expect(v.mood).toBe('happy');
    expect(typeof v.address.zip).toBe('string');
  });

  it('lists models and serves the root /v1 alias', async () => {
    const list = await j(await fetch(sim.baseUrls.openai + '/models', { headers: OA }));
    expect(list.object).toBe('list');
    expect(list.data.map((m: { id: string }) => m.id)).toEqual([
      'gpt-4o',
      'gpt-4o-mini',
      'gpt-4.1',
      'gpt-4.1-mini',
      'gpt-4.1-nano',
      'o3-mini',
      'text-embedding-3-small',
      'text-embedding-3-large',
    ]);
    expect(list.data[0]).toMatchObject({ object: 'model', owned_by: expect.any(String), created: expect.any(Number) });
    const root = await fetch(sim.url + '/v1/chat/completions', {
      method: 'POST',
      headers: OA,
      body: json({ model: 'gpt-4o', messages: hello }),
    });
    expect(root.status).toBe(200);
  });

  it('returns deterministic normalised embeddings, also as base64', async () => {
    const body = await j(
      await openai({ model: 'text-embedding-3-small', input: ['alpha', 'beta', 'alpha'] }, OA, '/embeddings'),
    );
    expect(body.object).toBe('list');
    expect(body.data).toHaveLength(3);
    const [a, b, c] = body.data.map((d: { embedding: number[] }) => d.embedding);
    expect(a).toHaveLength(64);
    expect(a).toEqual(c);
    expect(a).not.toEqual(b);
    expect(Math.hypot(...a)).toBeCloseTo(1, 6);
    expect(body.usage.prompt_tokens).toBeGreaterThan(0);
    const b64 = await j(
      await openai({ model: 'text-embedding-3-small', input: 'alpha', encoding_format: 'base64' }, OA, '/embeddings'),
    );
    const buf = Buffer.from(b64.data[0].embedding, 'base64');
    const decoded = Array.from(new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4));
    expect(decoded[0]).toBeCloseTo(a[0], 6);
  });

  it('rejects a missing key and an unknown model with OpenAI error bodies', async () => {
    const unauth = await openai({ model: 'gpt-4o', messages: hello }, { 'content-type': 'application/json' });
    expect(unauth.status).toBe(401);
    expect((await j(unauth)).error).toMatchObject({
      type: 'invalid_request_error',
      code: 'invalid_api_key',
      param: null,
    });
    const missing = await openai({ model: 'gpt-5-imaginary', messages: hello });
    expect(missing.status).toBe(404);
    expect((await j(missing)).error).toMatchObject({ code: 'model_not_found', type: 'invalid_request_error' });
    const bad = await fetch(sim.baseUrls.openai + '/chat/completions', { method: 'POST', headers: OA, body: '{nope' });
    expect(bad.status).toBe(400);
  });
});

// ---------- Anthropic ----------

describe('anthropic format', () => {
  const base = {
    model: 'claude-sonnet-4-5',
    max_tokens: 256,
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Tell me a story' }] }],
  };

  it('answers a message with usage', async () => {
    const res = await anthropic({ ...base, system: [{ type: 'text', text: 'Be brief.' }] });
    expect(res.status).toBe(200);
    const body = await j(res);
    expect(body).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      stop_reason: 'end_turn',
      stop_sequence: null,
    });
    expect(body.id).toMatch(/^msg_/);
    expect(body.content[0].type).toBe('text');
    expect(body.content[0].text).toMatch(/^Simulated reply from claude-sonnet-4-5 to: Tell me a story/);
    expect(body.usage.output_tokens).toBe(body.content[0].text.split(' ').length);
    expect(body.usage.input_tokens).toBeGreaterThan(0);
  });

  it('streams the named event sequence with consistent usage', async () => {
    const full = await j(await anthropic(base));
    const events = parseSse(await (await anthropic({ ...base, stream: true })).text());
    const names = events.map((e) => e.event);
    expect(names.slice(0, 3)).toEqual(['message_start', 'content_block_start', 'ping']);
    expect(names.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
    for (const e of events) expect(JSON.parse(e.data).type).toBe(e.event);
    const start = JSON.parse(events[0]!.data);
    expect(start.message.usage.input_tokens).toBe(full.usage.input_tokens);
    const text = events
      .filter((e) => e.event === 'content_block_delta')
      .map((e) => JSON.parse(e.data).delta.text)
      .join('');
    expect(text).toBe(full.content[0].text);
    const delta = JSON.parse(events.find((e) => e.event === 'message_delta')!.data);
    expect(delta.delta.stop_reason).toBe('end_turn');
    expect(delta.usage.output_tokens).toBe(full.usage.output_tokens);
  });

  it('honours max_tokens and stop_sequences', async () => {
    const cut = await j(await anthropic({ ...base, max_tokens: 2 }));
    expect(cut).toMatchObject({ stop_reason: 'max_tokens', usage: { output_tokens: 2 } });
    const stop = await j(await anthropic({ ...base, stop_sequences: ['from'] }));
    expect(stop.content[0].text).toBe('Simulated reply ');
    expect(stop).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: 'from' });
  });

  it('uses tools, streaming input_json_delta fragments', async () => {
    const req = {
      ...base,
      tools: [{ name: 'get_weather', description: 'Weather', input_schema: weatherTool }],
      tool_choice: { type: 'any' },
    };
    const full = await j(await anthropic(req));
    expect(full.stop_reason).toBe('tool_use');
    const block = full.content[0];
    expect(block).toMatchObject({ type: 'tool_use', name: 'get_weather' });
    expect(block.id).toMatch(/^toolu_/);
    expect(block.input.unit).toBe('celsius');

    const events = parseSse(await (await anthropic({ ...req, stream: true })).text());
    const startBlock = JSON.parse(events.find((e) => e.event === 'content_block_start')!.data).content_block;
    expect(startBlock).toMatchObject({ type: 'tool_use', name: 'get_weather', input: {} });
    const partial = events.filter((e) => e.event === 'content_block_delta').map((e) => JSON.parse(e.data).delta);
    expect(partial.every((d) => d.type === 'input_json_delta')).toBe(true);
    expect(JSON.parse(partial.map((d) => d.partial_json).join(''))).toEqual(block.input);
    const after = await j(
      await anthropic({
        ...base,
        tools: req.tools,
        messages: [
          { role: 'user', content: 'Weather?' },
          {
            role: 'assistant',
            content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } }],
          },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Snowing' }] },
        ],
      }),
    );
    expect(after.stop_reason).toBe('end_turn');
    expect(after.content[0].text).toContain('to: Snowing');
  });

  it('validates like the real API', async () => {
    const noMax = await anthropic({ model: 'claude-sonnet-4-5', messages: base.messages });
    expect(noMax.status).toBe(400);
    expect(await j(noMax)).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    const noKey = await anthropic(base, { 'anthropic-version': '2023-06-01' });
    expect(noKey.status).toBe(401);
    expect((await j(noKey)).error.type).toBe('authentication_error');
    const noVersion = await anthropic(base, { 'x-api-key': 'k' });
    expect(noVersion.status).toBe(400);
    const unknown = await anthropic({ ...base, model: 'claude-imaginary' });
    expect(unknown.status).toBe(404);
    expect((await j(unknown)).error.type).toBe('not_found_error');
  });

  it('lists models', async () => {
    const body = await j(await fetch(sim.baseUrls.anthropic + '/v1/models', { headers: AN }));
    expect(body.data.map((m: { id: string }) => m.id)).toEqual([
      'claude-opus-4-1',
      'claude-sonnet-4-5',
      'claude-3-5-haiku-latest',
    ]);
    expect(body.data[1]).toMatchObject({
      type: 'model',
      display_name: 'Claude Sonnet 4.5',
      created_at: expect.any(String),
    });
    expect(body).toMatchObject({ has_more: false, first_id: 'claude-opus-4-1', last_id: 'claude-3-5-haiku-latest' });
  });
});

// ---------- Gemini ----------

describe('gemini format', () => {
  const base = {
    contents: [{ role: 'user', parts: [{ text: 'Explain tides' }] }],
    systemInstruction: { parts: [{ text: 'Be concise' }] },
  };

  it('generates content with usage metadata', async () => {
    const res = await gemini('gemini-2.5-flash', 'generateContent', base);
    expect(res.status).toBe(200);
    const body = await j(res);
    const cand = body.candidates[0];
    expect(cand).toMatchObject({ finishReason: 'STOP', index: 0, content: { role: 'model' } });
    expect(cand.content.parts[0].text).toMatch(/^Simulated reply from gemini-2.5-flash to: Explain tides/);
    const u = body.usageMetadata;
    expect(u.candidatesTokenCount).toBe(cand.content.parts[0].text.split(' ').length);
    expect(u.totalTokenCount).toBe(u.promptTokenCount + u.candidatesTokenCount);
    expect(body.modelVersion).toBe('gemini-2.5-flash');
    expect(typeof body.responseId).toBe('string');
  });

  it('streams SSE frames with cumulative usage and a final finishReason', async () => {
    const full = await j(await gemini('gemini-2.5-pro', 'generateContent', base));
    const res = await fetch(`${sim.baseUrls.gemini}/models/gemini-2.5-pro:streamGenerateContent?alt=sse`, {
      method: 'POST',
      headers: GE,
      body: json(base),
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frames = parseSse(await res.text()).map((e) => JSON.parse(e.data));
    expect(frames.length).toBe(full.usageMetadata.candidatesTokenCount);
    expect(frames.map((f) => f.candidates[0].content.parts[0].text).join('')).toBe(
      full.candidates[0].content.parts[0].text,
    );
    frames.forEach((f, i) => expect(f.usageMetadata.candidatesTokenCount).toBe(i + 1));
    expect(frames.slice(0, -1).every((f) => f.candidates[0].finishReason === undefined)).toBe(true);
    expect(frames.at(-1).candidates[0].finishReason).toBe('STOP');
    expect(frames.at(-1).usageMetadata).toEqual(full.usageMetadata);
  });

  it('streams a JSON array without alt=sse, and honours maxOutputTokens', async () => {
    const res = await gemini('gemini-2.0-flash', 'streamGenerateContent', {
      ...base,
      generationConfig: { maxOutputTokens: 4 },
    });
    const arr = await j(res);
    expect(arr).toHaveLength(4);
    expect(arr.at(-1).candidates[0].finishReason).toBe('MAX_TOKENS');
  });

  it('calls functions and produces schema-conforming JSON', async () => {
    const call = await j(
      await gemini('gemini-2.5-flash', 'generateContent', {
        ...base,
        tools: [
          {
            functionDeclarations: [
              {
                name: 'get_weather',
                description: 'w',
                parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } }, required: ['city'] },
              },
            ],
          },
        ],
        toolConfig: { functionCallingConfig: { mode: 'ANY' } },
      }),
    );
    expect(call.candidates[0].content.parts[0].functionCall).toEqual({
      name: 'get_weather',
      args: { city: 'sample city' },
    });
    const js = await j(
      await gemini('gemini-2.5-flash', 'generateContent', {
        ...base,
        generationConfig: {
          responseMimeType: 'application/json',
          responseSchema: {
            type: 'OBJECT',
            properties: { n: { type: 'INTEGER' }, items: { type: 'ARRAY', items: { type: 'STRING' } } },
          },
        },
      }),
    );
    const v = JSON.parse(js.candidates[0].content.parts[0].text);
    expect(Number.isInteger(v.n)).toBe(true);
    expect(v.items).toHaveLength(1);
  });

  it('embeds, lists models, checks keys and models', async () => {
    const one = await j(await gemini('text-embedding-004', 'embedContent', { content: { parts: [{ text: 'hi' }] } }));
    expect(one.embedding.values).toHaveLength(64);
    const batch = await j(
      await gemini('text-embedding-004', 'batchEmbedContents', {
        requests: [
          { model: 'models/text-embedding-004', content: { parts: [{ text: 'hi' }] } },
          { model: 'models/text-embedding-004', content: { parts: [{ text: 'yo' }] } },
        ],
      }),
    );
    expect(batch.embeddings).toHaveLength(2);
    expect(batch.embeddings[0].values).toEqual(one.embedding.values);

    const models = await j(await fetch(`${sim.baseUrls.gemini}/models?key=abc`));
    expect(models.models.map((m: { name: string }) => m.name)).toEqual([
      'models/gemini-2.5-pro',
      'models/gemini-2.5-flash',
      'models/gemini-2.0-flash',
      'models/gemini-embedding-001',
    ]);
    expect(models.models[0].supportedGenerationMethods).toContain('generateContent');

    const noKey = await gemini('gemini-2.5-flash', 'generateContent', base, { 'content-type': 'application/json' });
    expect(noKey.status).toBe(403);
    expect((await j(noKey)).error).toMatchObject({ code: 403, status: 'PERMISSION_DENIED' });
    const badKey = await gemini('gemini-2.5-flash', 'generateContent', base, {
      'content-type': 'application/json',
      'x-goog-api-key': 'invalid-key',
    });
    expect(badKey.status).toBe(400);
    expect((await j(badKey)).error).toMatchObject({
      code: 400,
      status: 'INVALID_ARGUMENT',
      details: expect.arrayContaining([expect.objectContaining({ reason: 'API_KEY_INVALID' })]),
    });
    const unknown = await gemini('gemini-9', 'generateContent', base);
    expect(unknown.status).toBe(404);
    expect((await j(unknown)).error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
  });
});

// ---------- faults ----------

describe('faults', () => {
  it('responds with a status, the provider error body and Retry-After', async () => {
    sim.setFaults([{ status: 429, retryAfterSeconds: 7 }]);
    const o = await openai({ model: 'gpt-4o', messages: hello });
    expect(o.status).toBe(429);
    expect(o.headers.get('retry-after')).toBe('7');
    expect((await j(o)).error.code).toBe('rate_limit_exceeded');
    const a = await anthropic({ model: 'claude-sonnet-4-5', max_tokens: 5, messages: hello });
    expect(a.status).toBe(429);
    expect((await j(a)).error.type).toBe('rate_limit_error');
    const g = await gemini('gemini-2.5-flash', 'generateContent', { contents: [{ parts: [{ text: 'x' }] }] });
    expect((await j(g)).error.status).toBe('RESOURCE_EXHAUSTED');

    sim.setFaults([{ format: 'anthropic', status: 529 }]);
    const over = await anthropic({ model: 'claude-sonnet-4-5', max_tokens: 5, messages: hello });
    expect(over.status).toBe(529);
    expect((await j(over)).error.type).toBe('overloaded_error');
    expect((await openai({ model: 'gpt-4o', messages: hello })).status).toBe(200);
  });

  it('matches on model and endpoint', async () => {
    sim.setFaults([
      { model: 'gpt-4o-mini', status: 500 },
      { endpoint: 'models', status: 503 },
    ]);
    expect((await openai({ model: 'gpt-4o', messages: hello })).status).toBe(200);
    const failed = await openai({ model: 'gpt-4o-mini', messages: hello });
    expect(failed.status).toBe(500);
    expect((await j(failed)).error.type).toBe('server_error');
    expect((await fetch(sim.baseUrls.openai + '/models', { headers: OA })).status).toBe(503);
    expect((await openai({ model: 'gpt-4o-mini', input: 'x' }, OA, '/embeddings')).status).toBe(200);
  });

  it('resets the connection', async () => {
    sim.setFaults([{ resetConnection: true, times: 1 }]);
    await expect(openai({ model: 'gpt-4o', messages: hello })).rejects.toThrow();
    expect((await openai({ model: 'gpt-4o', messages: hello })).status).toBe(200);
  });

  it('cuts a stream after N content chunks without a terminal event', async () => {
    sim.setFaults([{ cutStreamAfterChunks: 3 }]);
    // A cut-only rule leaves non-streaming calls alone.
    expect((await openai({ model: 'gpt-4o', messages: hello })).status).toBe(200);

    const o = await readAll(await openai({ model: 'gpt-4o', messages: hello, stream: true }));
    expect(o.broke).toBe(true);
    const chunks = parseSse(o.text).map((e) => JSON.parse(e.data));
    expect(chunks.filter((c) => c.choices[0].delta.content).length).toBe(3);
    expect(o.text).not.toContain('[DONE]');
    expect(chunks.some((c) => c.choices[0].finish_reason)).toBe(false);

    const a = await readAll(
      await anthropic({ model: 'claude-sonnet-4-5', max_tokens: 50, messages: hello, stream: true }),
    );
    expect(a.broke).toBe(true);
    const names = parseSse(a.text).map((e) => e.event);
    expect(names.filter((n) => n === 'content_block_delta')).toHaveLength(3);
    expect(names).not.toContain('message_stop');

    const g = await readAll(
      await fetch(`${sim.baseUrls.gemini}/models/gemini-2.5-flash:streamGenerateContent?alt=sse`, {
        method: 'POST',
        headers: GE,
        body: json({ contents: [{ parts: [{ text: 'x' }] }] }),
      }),
    );
    expect(g.broke).toBe(true);
    const frames = parseSse(g.text).map((e) => JSON.parse(e.data));
    expect(frames).toHaveLength(3);
    expect(frames.every((f) => f.candidates[0].finishReason === undefined)).toBe(true);
  });

  it('hangs until the client aborts, then keeps serving', async () => {
    sim.setFaults([{ hang: true, times: 1 }]);
    const started = Date.now();
    await expect(
      fetch(sim.baseUrls.openai + '/chat/completions', {
        method: 'POST',
        headers: OA,
        body: json({ model: 'gpt-4o', messages: hello }),
        signal: AbortSignal.timeout(150),
      }),
    ).rejects.toThrow();
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect((await openai({ model: 'gpt-4o', messages: hello })).status).toBe(200);
  });

  it('adds latency before headers', async () => {
    sim.setFaults([{ latencyMs: 120 }]);
    const t0 = Date.now();
    expect((await openai({ model: 'gpt-4o', messages: hello })).status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(110);
  });

  it('spends a rule after `times` firings', async () => {
    sim.setFaults([{ status: 503, times: 2 }]);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await openai({ model: 'gpt-4o', messages: hello })).status);
    expect(statuses).toEqual([503, 503, 200, 200]);
  });

  it('fires probabilistic rules reproducibly for a given seed', async () => {
    const run = async (): Promise<number[]> => {
      const s = await startSimulator({ seed: 7, faults: [{ rate: 0.5, status: 500 }] });
      try {
        const out: number[] = [];
        for (let i = 0; i < 40; i++) {
          out.push(
            (
              await fetch(s.baseUrls.openai + '/chat/completions', {
                method: 'POST',
                headers: OA,
                body: json({ model: 'gpt-4o', messages: hello }),
              })
            ).status,
          );
        }
        return out;
      } finally {
        await s.close();
      }
    };
    const first = await run();
    expect(await run()).toEqual(first);
    const failures = first.filter((s) => s === 500).length;
    expect(failures).toBeGreaterThan(5);
    expect(failures).toBeLessThan(35);
  });
});

// ---------- pacing, admin, lifecycle ----------

describe('control', () => {
  it('paces stream chunks and delays headers', async () => {
    sim.configure({ outputTokens: 6, chunkDelayMs: 25, latencyMs: 40 });
    const t0 = Date.now();
    const res = await openai({ model: 'gpt-4o', messages: hello, stream: true });
    const headersAt = Date.now() - t0;
    await res.text();
    const total = Date.now() - t0;
    expect(headersAt).toBeGreaterThanOrEqual(35);
    expect(total).toBeGreaterThanOrEqual(40 + 5 * 25 - 10);
  });

  it('records requests', async () => {
    sim.resetRequests();
    await openai({ model: 'gpt-4o', messages: hello, stream: true });
    await fetch(sim.baseUrls.anthropic + '/v1/models', { headers: AN });
    expect(sim.requests).toHaveLength(2);
    expect(sim.requests[0]).toMatchObject({
      format: 'openai',
      endpoint: 'stream',
      method: 'POST',
      path: '/openai/v1/chat/completions',
      body: { model: 'gpt-4o' },
    });
    expect(sim.requests[0]!.headers.authorization).toBe('Bearer sk-test');
    expect(sim.requests[1]).toMatchObject({ format: 'anthropic', endpoint: 'models', method: 'GET' });
  });

  it('is controllable over HTTP', async () => {
    const cfg = await fetch(sim.url + '/_simulator/config', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: json({ faults: [{ format: 'gemini', status: 500 }], outputTokens: 5, models: { openai: ['my-model'] } }),
    });
    expect(cfg.status).toBe(200);
    expect((await j(cfg)).models.openai).toEqual(['my-model']);
    expect(
      (await gemini('gemini-2.5-flash', 'generateContent', { contents: [{ parts: [{ text: 'x' }] }] })).status,
    ).toBe(500);
    const r = await j(await openai({ model: 'my-model', messages: hello }));
    expect(r.usage.completion_tokens).toBe(5);
    expect((await openai({ model: 'gpt-4o', messages: hello })).status).toBe(404);

    const log = await j(await fetch(sim.url + '/_simulator/requests'));
    expect(log.requests.length).toBeGreaterThan(0);
    expect(
      (await fetch(sim.url + '/_simulator/config', { method: 'POST', body: json({ latencyMs: -1 }) })).status,
    ).toBe(400);

    expect((await fetch(sim.url + '/_simulator/reset', { method: 'POST' })).status).toBe(200);
    expect(sim.requests).toHaveLength(0);
    expect(
      (await gemini('gemini-2.5-flash', 'generateContent', { contents: [{ parts: [{ text: 'x' }] }] })).status,
    ).toBe(200);
    expect((await openai({ model: 'gpt-4o', messages: hello })).status).toBe(200);
  });

  it('rejects bodies over the size cap', async () => {
    const big = 'x'.repeat(11 * 1024 * 1024);
    const res = await fetch(sim.baseUrls.openai + '/chat/completions', {
      method: 'POST',
      headers: OA,
      body: big,
    }).catch(() => undefined);
    // The server answers 413 as soon as it sees the declared length; either outcome proves the cap.
    if (res) expect(res.status).toBe(413);
  });

  it('closes promptly even with hung and idle connections', async () => {
    const s = await startSimulator({ faults: [{ hang: true }] });
    const pending = fetch(s.baseUrls.openai + '/chat/completions', {
      method: 'POST',
      headers: OA,
      body: json({ model: 'gpt-4o', messages: hello }),
    }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 50));
    const t0 = Date.now();
    await s.close();
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(await pending).toBeInstanceOf(Error);
  });
});
