import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';
import { expectTypedError } from '../../support/security.js';

// POST /v1/embeddings with the official OpenAI client: OpenAI-compatible providers as they answer,
// Gemini translated (and its vectors base64-encoded for the client that asks), fallback, logging
// and cost, and bad input.

let c: ChatEnv;
beforeAll(async () => {
  c = await startChatEnv({ groq: true });
});
afterAll(() => c.close());

const post = (body: unknown, token = c.tenant.token) => c.env.http('POST', '/v1/embeddings', { token, body });

describe('embeddings through the OpenAI client', () => {
  it('embeds with an OpenAI-compatible provider, and logs and costs the call', async () => {
    // The client asks for base64 by default and decodes it to floats.
    const { data, response } = await c
      .openai()
      .embeddings.create({ model: 'openai/text-embedding-3-small', input: ['first text', 'second text'] })
      .withResponse();
    expect(data.data).toHaveLength(2);
    expect(data.data.map((d) => d.index)).toEqual([0, 1]);
    expect(data.data[0]!.embedding).toHaveLength(64);
    expect(data.data[0]!.embedding.every((v) => typeof v === 'number' && Number.isFinite(v))).toBe(true);
    expect(data.data[0]!.embedding).not.toEqual(data.data[1]!.embedding);
    expect(data.usage.prompt_tokens).toBeGreaterThan(0);
    const gw = (data as any)._gateway;
    expect(gw).toMatchObject({
      provider: 'openai',
      model: 'text-embedding-3-small',
      cached: false,
      routing: { routedBy: 'user-override', usedFallback: false },
    });
    expect(gw.cost).toBeCloseTo((data.usage.prompt_tokens * 0.02) / 1e6, 12);
    expect(response.headers.get('x-gateway-provider')).toBe('openai');
    expect(response.headers.get('server-timing')).toMatch(/^upstream;dur=[\d.]+, gateway;dur=[\d.]+$/);

    const id = response.headers.get('x-gateway-request-id')!;
    await c.waitForCount('select count(*) n from requests where id = $1', [id], 1);
    const [row] = await c.query('select * from requests where id = $1', [id]);
    expect(row).toMatchObject({
      tenant_id: c.tenant.tenantId,
      provider: 'openai',
      model: 'text-embedding-3-small',
      routed_by: 'user-override',
      status: 'ok',
      streamed: false,
      output_tokens: 0,
      input_tokens: data.usage.prompt_tokens,
      endpoint: 'embeddings',
    });
    const costs = await c.query('select * from cost_logs where request_id = $1', [id]);
    expect(costs).toHaveLength(1);
    expect(Number(costs[0].cost)).toBeCloseTo(gw.cost, 12);
  });

  it('translates Gemini, encoding its vectors as base64 when asked, as the client does by default', async () => {
    const asBase64 = await c
      .openai()
      .embeddings.create({ model: 'gemini/gemini-embedding-001', input: 'the same text', dimensions: 16 });
    const asFloat = await c.openai().embeddings.create({
      model: 'gemini/gemini-embedding-001',
      input: 'the same text',
      dimensions: 16,
      encoding_format: 'float',
    });
    expect(asFloat.data[0]!.embedding).toHaveLength(16);
    // base64 carries float32: the same vector to float32 precision.
    expect(asBase64.data[0]!.embedding).toHaveLength(16);
    asBase64.data[0]!.embedding.forEach((v, i) => expect(v).toBeCloseTo(asFloat.data[0]!.embedding[i]!, 5));
    expect((asFloat as any)._gateway.provider).toBe('gemini');
    expect(asFloat.usage.prompt_tokens).toBeGreaterThan(0);
  });

  it("sends more than Gemini's 100 inputs a batch as several batches, in order, and says its usage is a count", async () => {
    const input = Array.from({ length: 230 }, (_, i) => `text number ${i}`);
    const before = c.sim.requests.filter((r) => r.path.endsWith(':batchEmbedContents')).length;
    const all = await c
      .openai()
      .embeddings.create({ model: 'gemini/gemini-embedding-001', input, dimensions: 8, encoding_format: 'float' });
    const batches = c.sim.requests.filter((r) => r.path.endsWith(':batchEmbedContents')).slice(before);
    expect(batches.map((r) => (r.body as { requests: unknown[] }).requests.length).sort((a, b) => a - b)).toEqual([
      30, 100, 100,
    ]);
    expect(all.data.map((d) => d.index)).toEqual(input.map((_, i) => i));
    // Each vector is the one Gemini gives that text alone.
    for (const i of [0, 99, 100, 229]) {
      const one = await c.openai().embeddings.create({
        model: 'gemini/gemini-embedding-001',
        input: input[i]!,
        dimensions: 8,
        encoding_format: 'float',
      });
      expect(all.data[i]!.embedding).toEqual(one.data[0]!.embedding);
    }
    // Gemini reports no usage: the tokenizer's count, marked as such, and what the cost row holds.
    expect((all as unknown as { usage_estimated?: boolean }).usage_estimated).toBe(true);
    const gw = (all as unknown as { _gateway: { requestId: string } })._gateway;
    await c.waitForCount('select count(*) n from cost_logs where request_id = $1', [gw.requestId], 1);
    const [row] = await c.query('select input_tokens from cost_logs where request_id = $1', [gw.requestId]);
    expect(row.input_tokens).toBe(all.usage.prompt_tokens);
  });

  it('sends Gemini batches a few at a time, and sends one refused with a 429 once more', async () => {
    const input = Array.from({ length: 1_000 }, (_, i) => `batch text ${i}`);
    const before = c.sim.requests.filter((r) => r.path.endsWith(':batchEmbedContents')).length;
    c.sim.setFaults([{ format: 'gemini', endpoint: 'embeddings', status: 429, retryAfterSeconds: 0, times: 1 }]);
    try {
      const all = await c
        .openai()
        .embeddings.create({ model: 'gemini/gemini-embedding-001', input, dimensions: 8, encoding_format: 'float' });
      expect(all.data).toHaveLength(1_000);
      expect(all.data.map((d) => d.index)).toEqual(input.map((_, i) => i));
      // Ten batches, one of them sent twice.
      expect(c.sim.requests.filter((r) => r.path.endsWith(':batchEmbedContents')).length - before).toBe(11);
    } finally {
      c.sim.clearFaults();
    }
  });

  it('costs the Gemini batches answered before another failed: Google bills them though the call failed', async () => {
    const text = 'the same words in every input';
    const one = await c.openai().embeddings.create({
      model: 'gemini/gemini-embedding-001',
      input: text,
      dimensions: 8,
      encoding_format: 'float',
    });
    // Three batches; the first two to arrive are answered, the third is refused for good.
    c.sim.setFaults([
      { format: 'gemini', endpoint: 'embeddings', latencyMs: 1, times: 2 },
      { format: 'gemini', endpoint: 'embeddings', status: 400 },
    ]);
    try {
      const res = await post({
        model: 'gemini/gemini-embedding-001',
        input: Array.from({ length: 300 }, () => text),
        dimensions: 8,
      });
      expect(res.status).toBe(400);
      const id = res.headers.get('x-gateway-request-id')!;
      await c.waitForCount('select count(*) n from cost_logs where request_id = $1', [id], 1);
      const [cost] = await c.query(
        'select input_tokens, status, cost::float8 as cost from cost_logs where request_id = $1',
        [id],
      );
      expect(cost).toMatchObject({ input_tokens: 200 * one.usage.prompt_tokens, status: 'error' });
      expect(cost.cost).toBeGreaterThan(0);
      const [row] = await c.query('select status, input_tokens from requests where id = $1', [id]);
      expect(row).toMatchObject({ status: 'error', input_tokens: 0 });
    } finally {
      c.sim.clearFaults();
    }
  });

  it('resolves a bare model id, and passes dimensions and token-array input to OpenAI-compatible providers', async () => {
    const res = await post({
      model: 'text-embedding-3-small',
      input: [
        [1, 2, 3],
        [4, 5],
      ],
      dimensions: 8,
      encoding_format: 'float',
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(2);
    expect(res.body.data[0].embedding).toHaveLength(8);
    expect(['openai', 'groq']).toContain(res.body._gateway.provider);
    // A flat array of token ids is one input, as OpenAI reads it.
    const one = await post({
      model: 'text-embedding-3-small',
      input: [1, 2, 3],
      dimensions: 8,
      encoding_format: 'float',
    });
    expect(one.status).toBe(200);
    expect(one.body.data).toHaveLength(1);
  });

  it('falls back to another provider serving the model when one fails', async () => {
    c.sim.setFaults([{ format: 'openai', endpoint: 'embeddings', status: 503, times: 1 }]);
    try {
      const res = await post({ model: 'openai/text-embedding-3-small', input: 'fall back' });
      expect(res.status).toBe(200);
      expect(res.body._gateway.provider).toBe('groq');
      expect(res.body._gateway.routing.usedFallback).toBe(true);
      expect(JSON.parse(res.headers.get('x-gateway-errors')!)[0]).toMatchObject({ provider: 'openai', status: 503 });
      await c.waitForCount('select count(*) n from cost_logs where request_id = $1', [res.body._gateway.requestId], 2);
    } finally {
      c.sim.setFaults([]);
    }
  });

  it('answers 502 provider_error when every provider fails', async () => {
    c.sim.setFaults([{ format: 'openai', endpoint: 'embeddings', status: 500 }]);
    try {
      const res = await post({ model: 'openai/text-embedding-3-small', input: 'no luck' });
      expectTypedError(res, 502, 'provider_error');
      // Both providers were tried, and no fallback served the call: used_fallback stays false.
      const id = res.headers.get('x-gateway-request-id')!;
      await c.waitForCount(
        `select count(*) n from requests where id = $1 and status = 'error' and error_type = 'provider_error' and not used_fallback`,
        [id],
        1,
      );
      await c.waitForCount('select count(*) n from cost_logs where request_id = $1', [id], 2);
    } finally {
      c.sim.setFaults([]);
    }
  });
});

describe('embeddings in the analytics', () => {
  it('are left out of the request figures (chat completions), counted in cost, listed apart, and cannot be rated', async () => {
    const t = await c.env.createTenant();
    const get = (path: string) => c.env.http('GET', path, { token: t.token });
    const chat = await c.env.http('POST', '/v1/chat/completions', {
      token: t.token,
      body: { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'one chat call' }] },
    });
    const embedded = await post({ model: 'openai/text-embedding-3-small', input: 'one embeddings call' }, t.token);
    expect(embedded.status).toBe(200);
    const chatId = chat.body._gateway.requestId;
    const embeddingsId = embedded.body._gateway.requestId;
    await c.waitForCount('select count(*) n from cost_logs where request_id = any($1)', [[chatId, embeddingsId]], 2);

    const overview = (await get('/v1/analytics/overview')).body;
    expect(overview.totalRequests).toBe(1);
    expect(overview.totalCostUsd).toBeCloseTo(chat.body._gateway.cost + embedded.body._gateway.cost, 10);
    const series = (await get('/v1/analytics/timeseries?range=1h')).body;
    expect(series.buckets.reduce((n: number, b: { requests: number }) => n + b.requests, 0)).toBe(1);
    const compare = (await get('/v1/analytics/models/compare?range=24h')).body;
    expect(compare.items.find((m: { model: string }) => m.model === 'text-embedding-3-small')?.requests ?? 0).toBe(0);

    const chats = (await get('/v1/analytics/requests')).body.items;
    expect(chats.map((r: { id: string }) => r.id)).toEqual([chatId]);
    expect(chats[0].endpoint).toBe('chat');
    const embeddings = (await get('/v1/analytics/requests?endpoint=embeddings')).body.items;
    expect(embeddings).toEqual([
      expect.objectContaining({
        id: embeddingsId,
        endpoint: 'embeddings',
        model: 'text-embedding-3-small',
        costUsd: embedded.body._gateway.cost,
      }),
    ]);

    const rated = await c.env.http('POST', '/v1/feedback', {
      token: t.token,
      body: { requestId: embeddingsId, score: 5 },
    });
    expectTypedError(rated, 409, 'conflict_error');
  });
});

describe('bad embeddings requests', () => {
  it('gets a typed 4xx and writes no cost row', async () => {
    const ids: string[] = [];
    const expectRefused = async (body: unknown, status: number, type: string, token?: string) => {
      const res = token === undefined ? await post(body) : await c.env.http('POST', '/v1/embeddings', { body });
      expectTypedError(res, status, type);
      ids.push(res.headers.get('x-gateway-request-id')!);
      return res;
    };
    for (const body of [
      { input: 'no model' },
      { model: '', input: 'x' },
      { model: 'openai/text-embedding-3-small' },
      { model: 'openai/text-embedding-3-small', input: '' },
      { model: 'openai/text-embedding-3-small', input: [] },
      { model: 'openai/text-embedding-3-small', input: 42 },
      { model: 'openai/text-embedding-3-small', input: 'x', encoding_format: 'hex' },
      'not an object',
    ]) {
      await expectRefused(body, 400, 'invalid_request_error');
    }
    const unknown = (
      await expectRefused({ model: 'nobody/serves-this', input: 'x' }, 404, 'not_found_error')
    ).headers.get('x-gateway-request-id')!;
    expect(
      (await expectRefused({ model: 'anthropic/claude-sonnet-4-5', input: 'x' }, 400, 'invalid_request_error')).body
        .error.message,
    ).toContain('no embeddings endpoint');
    expect(
      (await expectRefused({ model: 'gemini/gemini-embedding-001', input: [1, 2, 3] }, 400, 'invalid_request_error'))
        .body.error.message,
    ).toContain('text input only');
    await expectRefused({ model: 'openai/text-embedding-3-small', input: 'x' }, 401, 'auth_error', 'none');
    expect(ids.every((id) => /^req_/.test(id))).toBe(true);
    // The log writer commits in order: once a later call's cost row is in, any of these would be.
    const later = await post({ model: 'openai/text-embedding-3-small', input: 'later' });
    await c.waitForCount('select count(*) n from cost_logs where request_id = $1', [later.body._gateway.requestId], 1);
    expect(await c.query('select request_id from cost_logs where request_id = any($1)', [ids])).toEqual([]);
    // A call that got past authentication and validation has its row, even when no provider serves its model.
    expect(
      await c.query('select id, status, error_type, provider, model from requests where id = any($1)', [ids]),
    ).toEqual([{ id: unknown, status: 'error', error_type: 'not_found_error', provider: null, model: null }]);
  });

  it("counts against the token's spend limit like chat calls", async () => {
    const created = await c.env.http('POST', '/v1/admin/tokens', {
      token: c.tenant.token,
      body: { name: 'embedder', spendLimitUsd: 0.0001 },
    });
    // 0.02 USD per million tokens: about 5,000 tokens cross 0.0001.
    const long = 'lorem ipsum dolor sit amet '.repeat(1_200);
    expect((await post({ model: 'openai/text-embedding-3-small', input: long }, created.body.token)).status).toBe(200);
    expectTypedError(
      await post({ model: 'openai/text-embedding-3-small', input: 'more' }, created.body.token),
      402,
      'spend_limit_error',
    );
  });
});
