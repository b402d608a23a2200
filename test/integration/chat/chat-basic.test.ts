import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { costUsd } from '../../../server/providers/pricing.js';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';
import { expectTypedError } from '../../support/security.js';

// The official OpenAI client, unchanged, against the gateway, with each provider family played by
// the simulator in its own wire format.

let c: ChatEnv;
beforeAll(async () => {
  c = await startChatEnv();
});
afterAll(() => c.close());

const FAMILIES = [
  ['openai', 'gpt-4o-mini'],
  ['anthropic', 'claude-3-5-haiku-latest'],
  ['gemini', 'gemini-2.0-flash'],
] as const;

describe.each(FAMILIES)('%s through the OpenAI client', (provider, model) => {
  it('answers a non-streaming call with usage, _gateway and headers, and logs request and cost rows', async () => {
    const { data, response } = await c
      .openai()
      .chat.completions.create({
        model: `${provider}/${model}`,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: `Hello ${provider}` },
        ],
      })
      .withResponse();
    expect(data.object).toBe('chat.completion');
    expect(data.choices[0]!.message.role).toBe('assistant');
    expect(data.choices[0]!.message.content).toContain(`Hello ${provider}`);
    expect(data.choices[0]!.finish_reason).toBe('stop');
    expect(data.usage!.prompt_tokens).toBeGreaterThan(0);
    expect(data.usage!.completion_tokens).toBeGreaterThan(0);
    expect(data.usage!.total_tokens).toBe(data.usage!.prompt_tokens + data.usage!.completion_tokens);

    const gw = (data as any)._gateway;
    const expectedCost = costUsd(model, data.usage!.prompt_tokens, data.usage!.completion_tokens, provider)!;
    expect(expectedCost).toBeGreaterThan(0);
    expect(gw).toMatchObject({
      provider,
      model,
      cached: false,
      routing: {
        routedBy: 'user-override',
        taskType: null,
        complexity: null,
        usedFallback: false,
        usedLlmFallback: false,
      },
    });
    expect(gw.cost).toBeCloseTo(expectedCost, 12);
    expect(gw.latencyMs).toBeGreaterThan(0);

    const id = response.headers.get('x-gateway-request-id')!;
    expect(id).toMatch(/^req_/);
    expect(gw.requestId).toBe(id);
    expect(response.headers.get('x-gateway-provider')).toBe(provider);
    expect(response.headers.get('x-gateway-model')).toBe(model);
    expect(Number(response.headers.get('x-gateway-cost'))).toBeCloseTo(expectedCost, 8);
    expect(Number(response.headers.get('x-gateway-latency'))).toBeGreaterThanOrEqual(0);
    expect(response.headers.get('x-gateway-cache')).toBeNull();

    await c.waitForCount('select count(*) n from requests where id = $1', [id], 1);
    const [row] = await c.query('select * from requests where id = $1', [id]);
    expect(row).toMatchObject({
      tenant_id: c.tenant.tenantId,
      provider,
      model,
      routed_by: 'user-override',
      task_type: null,
      complexity: null,
      cached: false,
      used_fallback: false,
      status: 'ok',
      streamed: false,
    });
    expect(row.input_tokens).toBe(data.usage!.prompt_tokens);
    expect(row.output_tokens).toBe(data.usage!.completion_tokens);
    const costs = await c.query('select * from cost_logs where request_id = $1', [id]);
    expect(costs).toHaveLength(1);
    expect(costs[0]).toMatchObject({
      provider,
      model,
      input_tokens: data.usage!.prompt_tokens,
      output_tokens: data.usage!.completion_tokens,
      status: 'ok',
    });
    expect(Number(costs[0].cost)).toBeCloseTo(expectedCost, 12);
  });

  it('streams chunks with the last data frame carrying _gateway and exact usage', async () => {
    const stream = await c.openai().chat.completions.create({
      model: `${provider}/${model}`,
      messages: [{ role: 'user', content: `Stream to me ${provider}` }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: any[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const text = chunks.map((ch) => ch.choices[0]?.delta?.content ?? '').join('');
    expect(text).toContain(`Stream to me ${provider}`);
    expect(chunks.filter((ch) => ch.choices[0]?.delta?.content).length).toBeGreaterThan(3);
    expect(chunks[0].choices[0].delta.role).toBe('assistant');
    expect(chunks.some((ch) => ch.choices[0]?.finish_reason === 'stop')).toBe(true);

    const last = chunks[chunks.length - 1];
    expect(last.choices).toEqual([]);
    expect(last.usage.completion_tokens).toBeGreaterThan(0);
    expect(last._gateway).toMatchObject({ provider, model, cached: false, routing: { routedBy: 'user-override' } });
    expect(last._gateway.cost).toBeCloseTo(
      costUsd(model, last.usage.prompt_tokens, last.usage.completion_tokens, provider)!,
      12,
    );
    // Usage is reported once, in the final frame.
    expect(chunks.filter((ch) => ch.usage).length).toBe(1);

    const id = last._gateway.requestId;
    await c.waitForCount('select count(*) n from requests where id = $1', [id], 1);
    const [row] = await c.query('select * from requests where id = $1', [id]);
    expect(row).toMatchObject({
      streamed: true,
      status: 'ok',
      input_tokens: last.usage.prompt_tokens,
      output_tokens: last.usage.completion_tokens,
    });
    const [cost] = await c.query('select * from cost_logs where request_id = $1', [id]);
    expect(Number(cost.cost)).toBeGreaterThan(0);
  });

  it('streams without usage when the client did not ask, still costing the call exactly; every chunk has a choice, as OpenAI sends them', async () => {
    const content = `no usage please ${provider} ${Math.random()}`;
    const framesOf = async () => {
      const res = await fetch(`${c.env.baseUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${c.tenant.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: `${provider}/${model}`, messages: [{ role: 'user', content }], stream: true }),
      });
      return (await res.text())
        .split('\n\n')
        .filter((f) => f.startsWith('data: {'))
        .map((f) => JSON.parse(f.slice(6)));
    };
    // Live, then served from the cache: the same shape. The answer's finish chunk comes last and
    // carries _gateway; no frame without a choice (OpenAI sends none without include_usage).
    for (const cached of [false, true]) {
      const frames = await framesOf();
      expect(frames.every((f) => f.choices.length > 0)).toBe(true);
      expect(frames.some((f) => 'usage' in f)).toBe(false);
      const last = frames[frames.length - 1];
      expect(last.choices[0].finish_reason).toBe('stop');
      expect(last._gateway).toMatchObject({ cached, provider });
      expect(frames.filter((f) => f._gateway)).toHaveLength(1);
      if (!cached) {
        expect(last._gateway.cost).toBeGreaterThan(0);
        await c.waitForCount(
          'select count(*) n from cost_logs where request_id = $1 and output_tokens > 0',
          [last._gateway.requestId],
          1,
        );
      }
    }
    // As the OpenAI SDKs' own examples read a stream.
    const stream = await c.openai().chat.completions.create({
      model: `${provider}/${model}`,
      messages: [{ role: 'user', content: `${content} again` }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]!.delta.content ?? '';
    expect(text.length).toBeGreaterThan(0);
  });

  it('returns tool calls, streamed and not', async () => {
    const tools = [
      {
        type: 'function' as const,
        function: {
          name: 'get_weather',
          description: 'Weather for a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
    ];
    const res = await c.openai().chat.completions.create({
      model: `${provider}/${model}`,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools,
    });
    const call = res.choices[0]!.message.tool_calls![0]! as any;
    expect(res.choices[0]!.finish_reason).toBe('tool_calls');
    expect(call.function.name).toBe('get_weather');
    expect(typeof JSON.parse(call.function.arguments).city).toBe('string');

    const stream = await c.openai().chat.completions.create({
      model: `${provider}/${model}`,
      messages: [{ role: 'user', content: 'Weather in Rome?' }],
      tools,
      stream: true,
    });
    let name = '';
    let args = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      for (const t of chunk.choices[0]?.delta?.tool_calls ?? []) {
        name += t.function?.name ?? '';
        args += t.function?.arguments ?? '';
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(name).toBe('get_weather');
    expect(typeof JSON.parse(args).city).toBe('string');
    expect(finish).toBe('tool_calls');

    // The tool result goes back and the conversation continues.
    const followUp = await c.openai().chat.completions.create({
      model: `${provider}/${model}`,
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: null, tool_calls: [call] },
        { role: 'tool', tool_call_id: call.id, content: '{"temp": 21}' },
      ],
      tools,
    });
    expect(followUp.choices[0]!.message.content).toBeTruthy();
  });

  it('honours JSON mode with a schema', async () => {
    const res = await c.openai().chat.completions.create({
      model: `${provider}/${model}`,
      messages: [{ role: 'user', content: 'Give me a person' }],
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'person',
          schema: {
            type: 'object',
            properties: { name: { type: 'string' }, age: { type: 'integer' } },
            required: ['name', 'age'],
          },
        },
      },
    });
    const parsed = JSON.parse(res.choices[0]!.message.content!);
    expect(typeof parsed.name).toBe('string');
    expect(Number.isInteger(parsed.age)).toBe(true);
  });
});

describe('model resolution', () => {
  it('serves a bare model id from the provider that lists it', async () => {
    const res = await c
      .openai()
      .chat.completions.create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }] });
    expect((res as any)._gateway.provider).toBe('gemini');
  });

  it('lists every routable model in the OpenAI format', async () => {
    const ids: string[] = [];
    for await (const m of c.openai().models.list()) ids.push(m.id);
    expect(ids).toEqual(
      expect.arrayContaining(['openai/gpt-4o-mini', 'anthropic/claude-sonnet-4-5', 'gemini/gemini-2.5-pro']),
    );
  });

  it('routes an empty model to a capable target', async () => {
    const res = await c.openai().chat.completions.create({ model: '', messages: [{ role: 'user', content: 'hi' }] });
    expect(res.choices[0]!.message.content).toBeTruthy();
    expect((res as any)._gateway.routing.routedBy).not.toBe('user-override');
  });

  it('passes images through to a vision model', async () => {
    const png =
      'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
    c.sim.resetRequests();
    const res = await c.openai().chat.completions.create({
      model: 'anthropic/claude-sonnet-4-5',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: png } },
          ],
        },
      ],
    });
    expect(res.choices[0]!.message.content).toBeTruthy();
    const upstream = c.sim.requests.find((r) => r.format === 'anthropic')!.body as any;
    expect(upstream.messages[0].content.some((b: any) => b.type === 'image' && b.source.type === 'base64')).toBe(true);
  });
});

describe('provider endpoints', () => {
  it('GET /v1/providers shows each provider, its models and circuit', async () => {
    const res = await c.env.http('GET', '/v1/providers', { token: c.tenant.token });
    expect(res.status).toBe(200);
    const names = res.body.items.map((p: any) => p.name);
    expect(names).toEqual(expect.arrayContaining(['openai', 'anthropic', 'gemini', 'ollama']));
    const ollama = res.body.items.find((p: any) => p.name === 'ollama');
    expect(ollama).toMatchObject({ active: false, source: 'local', modelCount: 0 });
    expect(res.body.activeCount).toBe(3);
    expect(JSON.stringify(res.body)).not.toContain('sk-test');
  });

  it("GET /v1/models/{model} answers the OpenAI client's models.retrieve, for provider/model and bare ids", async () => {
    const pinned = await c.openai().models.retrieve('anthropic/claude-sonnet-4-5');
    expect(pinned).toMatchObject({ id: 'anthropic/claude-sonnet-4-5', object: 'model', owned_by: 'anthropic' });
    const bare = await c.openai().models.retrieve('gemini-2.5-flash');
    expect(bare).toMatchObject({ id: 'gemini-2.5-flash', owned_by: 'gemini' });
    // As a curl user writes it, slash and all.
    expect((await c.env.http('GET', '/v1/models/openai/gpt-4o-mini', { token: c.tenant.token })).body).toMatchObject({
      id: 'openai/gpt-4o-mini',
      owned_by: 'openai',
    });
    expectTypedError(
      await c.env.http('GET', `/v1/models/${encodeURIComponent('openai/no-such-model')}`, { token: c.tenant.token }),
      404,
      'not_found_error',
    );
    expectTypedError(
      await c.env.http('GET', '/v1/models/nothing-serves-this', { token: c.tenant.token }),
      404,
      'not_found_error',
    );
    expectTypedError(
      await c.env.http('GET', '/v1/models/%E0%A4%A', { token: c.tenant.token }),
      400,
      'invalid_request_error',
    );
    expectTypedError(await c.env.http('GET', '/v1/models/gpt-4o'), 401, 'auth_error');
  });

  it('GET /v1/models/pricing lists prices with their date and the structured-output list', async () => {
    const res = await c.env.http('GET', '/v1/models/pricing', { token: c.tenant.token });
    expect(res.body.asOf).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const mini = res.body.items.find((m: any) => m.model === 'gpt-4o-mini');
    expect(mini).toMatchObject({ inputPerMillionUsd: 0.15, outputPerMillionUsd: 0.6 });
    expect(res.body.items.filter((m: any) => m.structuredOutputReliable)).toHaveLength(8);
  });

  it("GET /v1/models/stats reports this workspace's traffic only", async () => {
    const res = await c.env.http('GET', '/v1/models/stats', { token: c.tenant.token });
    const mini = res.body.items.find((m: any) => m.provider === 'openai' && m.model === 'gpt-4o-mini');
    expect(mini.requests).toBeGreaterThan(0);
    expect(mini.totalCostUsd).toBeGreaterThan(0);
    const other = await c.env.createTenant();
    const theirs = await c.env.http('GET', '/v1/models/stats', { token: other.token });
    expect(theirs.body.items).toEqual([]);
  });

  it("POST /v1/providers/reload rediscovers and is audited, admin only, in single mode; in multi mode it is the operator's (403)", async () => {
    const refused = await c.env.http('POST', '/v1/providers/reload', { token: c.tenant.token, body: {} });
    expect(refused.status).toBe(403);
    expect(refused.body.error.type).toBe('permission_error');
    const single = await c.env.addNode({ GATEWAY_MODE: 'single' });
    const reload = (token: string) =>
      fetch(`${single.baseUrl}/v1/providers/reload`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{}',
      });
    const res = await reload(c.tenant.token);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { activeCount: number }).activeCount).toBe(3);
    const audit = await c.env.http('GET', '/v1/audit-logs?action=providers.reload', { token: c.tenant.token });
    expect(audit.body.items.length).toBe(1);
    const member = await c.env.http('POST', '/v1/admin/tokens', { token: c.tenant.token, body: { name: 'member' } });
    expect((await reload(member.body.token)).status).toBe(403);
  });
});

describe('stream connection handling', () => {
  it('keeps the connection alive after a stream, and closes it when the client asked to', async () => {
    const { request } = await import('node:http');
    const statusAndConnection = (connection: string) =>
      new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
        const req = request(
          `${c.env.baseUrl}/v1/chat/completions`,
          {
            method: 'POST',
            headers: { authorization: `Bearer ${c.tenant.token}`, 'content-type': 'application/json', connection },
          },
          (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (d: string) => (body += d));
            res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, body }));
          },
        );
        req.on('error', reject);
        req.end(
          JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true }),
        );
      });
    const kept = await statusAndConnection('keep-alive');
    expect(kept).toMatchObject({ status: 200, connection: 'keep-alive' });
    expect(kept.body.endsWith('data: [DONE]\n\n')).toBe(true);
    const closed = await statusAndConnection('close');
    expect(closed).toMatchObject({ status: 200, connection: 'close' });
  });
});

describe('Server-Timing', () => {
  const parse = (h: string | null) =>
    Object.fromEntries((h ?? '').split(', ').map((m) => [m.split(';')[0], Number(m.split('dur=')[1])]));

  it("splits each response's time into the providers' share and the gateway's own, streamed or not", async () => {
    c.sim.configure({ latencyMs: 40 });
    try {
      const { data, response } = await c
        .openai()
        .chat.completions.create({
          model: 'openai/gpt-4o-mini',
          messages: [{ role: 'user', content: 'timing' }],
          temperature: 0.5,
        })
        .withResponse();
      const timing = parse(response.headers.get('server-timing'));
      expect(timing.upstream).toBeGreaterThanOrEqual(40);
      expect(timing.gateway).toBeGreaterThanOrEqual(0);
      expect(timing.gateway).toBeLessThan(timing.upstream);
      // Together they are the call's latency, up to the response's own encoding.
      expect(Math.abs(timing.upstream + timing.gateway - (data as any)._gateway.latencyMs)).toBeLessThan(5);

      const res = await fetch(`${c.env.baseUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${c.tenant.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'openai/gpt-4o-mini',
          messages: [{ role: 'user', content: 'timing' }],
          temperature: 0.5,
          stream: true,
        }),
      });
      // A stream's header leaves with its first chunk: the providers' share is their time to it.
      const streamed = parse(res.headers.get('server-timing'));
      await res.text();
      expect(streamed.upstream).toBeGreaterThanOrEqual(40);
      expect(streamed.gateway).toBeLessThan(streamed.upstream);
    } finally {
      c.sim.configure({ latencyMs: 0 });
    }
  });
});

describe('stream response headers', () => {
  const streamed = (content: string) =>
    fetch(`${c.env.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${c.tenant.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content }], stream: true }),
    });
  const lastGateway = (body: string) => {
    const frames = body.split('\n\n').filter((f) => f.startsWith('data: {'));
    return JSON.parse(frames[frames.length - 1]!.slice(6))._gateway;
  };

  it("leave out cost and latency, unknown when a live stream's head leaves: the last frame carries them; a cache hit's head has both", async () => {
    const content = `headers ${Math.random()}`;
    const res = await streamed(content);
    expect(res.headers.get('x-gateway-provider')).toBe('openai');
    expect(res.headers.get('x-gateway-cost')).toBeNull();
    expect(res.headers.get('x-gateway-latency')).toBeNull();
    const gw = lastGateway(await res.text());
    expect(gw.cost).toBeGreaterThan(0);
    expect(gw.latencyMs).toBeGreaterThan(0);

    // A stream served from the cache knows both before its first chunk.
    const hit = await streamed(content);
    expect(hit.headers.get('x-gateway-cache')).toBe('exact');
    expect(hit.headers.get('x-gateway-cost')).toBe('0.00000000');
    expect(hit.headers.get('x-gateway-latency')).toBe('0');
    expect(lastGateway(await hit.text())).toMatchObject({ cached: true, cost: 0 });
  });
});
