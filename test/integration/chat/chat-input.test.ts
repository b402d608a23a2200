import { once } from 'node:events';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';
import { expectTypedError } from '../../support/security.js';

// Bad input gets a typed 4xx, nothing is costed, and the process carries on.

let c: ChatEnv;
beforeAll(async () => {
  c = await startChatEnv({ env: { GATEWAY_MAX_BODY_BYTES: String(64 * 1024) } });
});
afterAll(() => c.close());

const post = (body: unknown, token = c.tenant.token, headers: Record<string, string> = {}) =>
  c.env.http('POST', '/v1/chat/completions', { token, body, headers });
const user = [{ role: 'user', content: 'hi' }];

describe('bad input', () => {
  it.each([
    ['missing messages', { model: 'openai/gpt-4o-mini' }, 'messages'],
    ['empty messages', { model: 'openai/gpt-4o-mini', messages: [] }, 'messages'],
    ['unknown role', { model: 'openai/gpt-4o-mini', messages: [{ role: 'wizard', content: 'x' }] }, 'role'],
    ['content of a wrong type', { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 42 }] }, 'content'],
    ['missing content', { model: 'openai/gpt-4o-mini', messages: [{ role: 'user' }] }, 'content'],
    ['model of a wrong type', { model: 7, messages: user }, 'model'],
    ['temperature out of range', { model: 'openai/gpt-4o-mini', messages: user, temperature: 9 }, 'temperature'],
    ['stream not boolean', { model: 'openai/gpt-4o-mini', messages: user, stream: 'yes' }, 'stream'],
    ['unknown routing hint', { model: '', messages: user, routing_hint: 'poetry' }, 'routing_hint'],
    [
      'tool message without tool_call_id',
      { model: 'openai/gpt-4o-mini', messages: [{ role: 'tool', content: 'x' }] },
      'tool_call_id',
    ],
    ['a body that is not an object', [1, 2], 'object'],
    [
      'a prompt_version_id with a NUL character',
      { model: 'openai/gpt-4o-mini', messages: user, prompt_version_id: 'pv_1\u0000x' },
      'prompt_version_id',
    ],
    [
      'an empty prompt_version_id',
      { model: 'openai/gpt-4o-mini', messages: user, prompt_version_id: '' },
      'prompt_version_id',
    ],
    // Its request and cost rows would be refused by PostgreSQL (no UTF-8 for it): a 400, not a lost row.
    [
      'a prompt_version_id with a lone surrogate',
      { model: 'openai/gpt-4o-mini', messages: user, prompt_version_id: 'pv\ud800x' },
      'prompt_version_id',
    ],
    [
      'a function message without its name',
      { model: 'openai/gpt-4o-mini', messages: [{ role: 'function', content: '{}' }] },
      'name',
    ],
  ])('%s: 400 invalid_request_error naming the field', async (_name, body, field) => {
    const res = await post(body);
    expectTypedError(res, 400, 'invalid_request_error');
    expect(res.body.error.message).toContain(field);
  });

  it('a model no provider serves: 404 not_found_error', async () => {
    expectTypedError(await post({ model: 'no-such-model', messages: user }), 404, 'not_found_error');
    expectTypedError(await post({ model: 'openai/no-such-model', messages: user }), 404, 'not_found_error');
  });

  it('malformed JSON: 400', async () => {
    const res = await c.env.http('POST', '/v1/chat/completions', {
      token: c.tenant.token,
      rawBody: '{"model": "x", ',
      headers: { 'content-type': 'application/json' },
    });
    expectTypedError(res, 400, 'invalid_request_error');
  });

  it('a body that arrives in pieces after its headers is read whole, and the connection serves the next request', async () => {
    // temperature > 0: both calls go upstream (the test after this one counts cost rows per request).
    const body = JSON.stringify({
      model: 'openai/gpt-4o-mini',
      messages: [{ role: 'user', content: 'slow client' }],
      temperature: 0.5,
    });
    const { port } = new URL(c.env.baseUrl);
    const socket = net.connect(Number(port), '127.0.0.1');
    await once(socket, 'connect');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (received += d));
    const head = (len: number) =>
      `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${c.tenant.token}\r\nContent-Type: application/json\r\nContent-Length: ${len}\r\n\r\n`;
    socket.write(head(Buffer.byteLength(body)));
    await sleep(30);
    socket.write(body.slice(0, 20));
    await sleep(30);
    socket.write(body.slice(20));
    // Then a second request on the same connection, headers and body in one write.
    const waitFor = async (n: number) => {
      for (let i = 0; i < 200 && (received.match(/HTTP\/1\.1 200/g) ?? []).length < n; i++) await sleep(10);
    };
    await waitFor(1);
    socket.write(head(Buffer.byteLength(body)) + body);
    await waitFor(2);
    socket.destroy();
    expect((received.match(/HTTP\/1\.1 200/g) ?? []).length).toBe(2);
    expect(received).toContain('chat.completion');
  });

  it('an oversized body: 413 with a typed body', async () => {
    const res = await post({
      model: 'openai/gpt-4o-mini',
      messages: [{ role: 'user', content: 'x'.repeat(100 * 1024) }],
    });
    expectTypedError(res, 413, 'invalid_request_error');
  });

  it('logs no cost for rejected input, a request row only for a call that passed validation, and keeps serving', async () => {
    const invalid = (await post({ model: 'openai/gpt-4o-mini', messages: [] })).headers.get('x-gateway-request-id')!;
    // A model no provider serves passed validation: its call has a request row (SPEC.md), and no cost.
    const unserved = (await post({ model: 'missing', messages: user })).headers.get('x-gateway-request-id')!;
    const ok = await post({ model: 'openai/gpt-4o-mini', messages: user });
    expect(ok.status).toBe(200);
    await c.waitForCount(
      'select count(*) n from requests where tenant_id = $1 and id = $2',
      [c.tenant.tenantId, ok.body._gateway.requestId],
      1,
    );
    expect(
      await c.query('select id, status, error_type from requests where id = any($1)', [[invalid, unserved]]),
    ).toEqual([{ id: unserved, status: 'error', error_type: 'not_found_error' }]);
    expect(await c.query('select request_id from cost_logs where request_id = any($1)', [[invalid, unserved]])).toEqual(
      [],
    );
  });

  it('passes unknown OpenAI fields through to the provider', async () => {
    c.sim.resetRequests();
    const res = await post({
      model: 'openai/gpt-4o-mini',
      messages: user,
      seed: 42,
      logit_bias: { '50256': -100 },
      user: 'u-1',
    });
    expect(res.status).toBe(200);
    const upstream = c.sim.requests.find((r) => r.format === 'openai')!.body as any;
    expect(upstream).toMatchObject({ seed: 42, logit_bias: { '50256': -100 }, user: 'u-1', model: 'gpt-4o-mini' });
    expect(upstream.cache).toBeUndefined();
  });

  it('takes an answer sent back with `tool_calls: null` (as Mistral answers, as the Python SDK dumps messages) as one without calls, for every provider family', async () => {
    const history = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'Hello!', tool_calls: null, refusal: null },
      { role: 'user', content: 'and again' },
    ];
    for (const model of ['openai/gpt-4o-mini', 'anthropic/claude-sonnet-4-5', 'gemini/gemini-2.5-flash']) {
      c.sim.resetRequests();
      const res = await post({ model, messages: history, cache: false });
      expect([model, res.status]).toEqual([model, 200]);
      const upstream = c.sim.requests[0]!.body as { messages?: Array<Record<string, unknown>> };
      if (model.startsWith('openai/')) expect(upstream.messages![1]).not.toHaveProperty('tool_calls');
    }
  });
});

describe('auth and limits', () => {
  it('missing, malformed and unknown tokens: 401 auth_error', async () => {
    expectTypedError(
      await c.env.http('POST', '/v1/chat/completions', { body: { model: 'openai/gpt-4o-mini', messages: user } }),
      401,
      'auth_error',
    );
    expectTypedError(await post({ model: 'openai/gpt-4o-mini', messages: user }, 'gw_bogus'), 401, 'auth_error');
    const err = await c
      .openai('gw_bogus')
      .chat.completions.create({ model: 'openai/gpt-4o-mini', messages: user as any })
      .catch((e: any) => e);
    expect(err.status).toBe(401);
    expect(err.error).toMatchObject({ type: 'auth_error' });
  });

  it('a per-token rate limit reports its state and answers 429 when exhausted', async () => {
    const created = await c.env.http('POST', '/v1/admin/tokens', {
      token: c.tenant.token,
      body: { name: 'limited', rateLimitPerMinute: 2 },
    });
    const token = created.body.token;
    const a = await post({ model: 'openai/gpt-4o-mini', messages: user }, token);
    expect(a.status).toBe(200);
    expect(a.headers.get('x-ratelimit-limit')).toBe('2');
    expect(a.headers.get('x-ratelimit-remaining')).toBe('1');
    expect((await post({ model: 'openai/gpt-4o-mini', messages: user }, token)).status).toBe(200);
    const refused = await post({ model: 'openai/gpt-4o-mini', messages: user }, token);
    expectTypedError(refused, 429, 'rate_limit_error');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
