import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ChatEnv, startChatEnv } from '../../support/chat-env.js';
import { runCli } from '../../support/cli.js';
import type { TestTenant } from '../../support/harness.js';
import { expectTypedError, securityMatrix } from '../../support/security.js';

// The semantic cache over real HTTP, with the simulator's embeddings scripted so that similarity
// is controlled: an input containing `whenContains` embeds at exactly `similarity` to `anchor`.

const CAPITAL = 'What is the capital of France?';
const MODEL = 'openai/gpt-4o-mini';

let chat: ChatEnv;
let other: TestTenant;

beforeAll(async () => {
  chat = await startChatEnv({
    env: { GATEWAY_SEMANTIC_CACHE_ENABLED: 'true', GATEWAY_SEMANTIC_CACHE_MODEL: 'openai/text-embedding-3-small' },
    sim: {
      embeddingSimilarities: [
        { whenContains: "France's capital city", anchor: CAPITAL, similarity: 0.985 },
        { whenContains: 'French capital, roughly', anchor: CAPITAL, similarity: 0.9 },
        { whenContains: 'Largest city of Japan?', anchor: 'Which city is the largest in Japan?', similarity: 0.99 },
      ],
    },
  });
  other = await chat.env.createTenant();
});
afterAll(() => chat?.close());

type Msg = { role: 'system' | 'user' | 'assistant'; content: string };

async function ask(messages: Msg[], extra: Record<string, unknown> = {}, token = chat.tenant.token) {
  const res = await chat.env.http('POST', '/v1/chat/completions', {
    token,
    body: { model: MODEL, temperature: 0, messages, ...extra },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res;
}

/** The log writer commits asynchronously; entries are stored off the response path. */
async function settle(): Promise<void> {
  await new Promise((r) => setTimeout(r, 150));
}

const user = (content: string): Msg => ({ role: 'user', content });

/** Waits until the tenant's stored entries number `n`: a store lands after its response is sent. */
async function untilStored(n: number, tenantId = chat.tenant.tenantId): Promise<void> {
  await vi.waitFor(
    async () => {
      const rows = await chat.query<{ n: number }>(
        'select count(*)::int as n from semantic_cache_entries where tenant_id = $1',
        [tenantId],
      );
      expect(rows[0]!.n).toBe(n);
    },
    { timeout: 10_000, interval: 50 },
  );
}

describe('lookups', () => {
  it('answers a paraphrase above the threshold from the cache, and stores it once', async () => {
    const first = await ask([user(CAPITAL)]);
    expect(first.headers.get('x-gateway-cache')).toBeNull();
    await untilStored(1);

    const again = await ask([user("Tell me France's capital city")]);
    expect(again.headers.get('x-gateway-cache')).toBe('semantic');
    expect(again.body._gateway).toMatchObject({ cached: true, cacheType: 'semantic', latencyMs: 0 });
    expect(again.body.choices[0].message.content).toBe(first.body.choices[0].message.content);
    expect(again.body.id).not.toBe(first.body.id);

    const requestId = again.body._gateway.requestId;
    await chat.waitForCount(
      `select count(*)::int as n from requests where id = $1 and cached and cache_type = 'semantic' and latency_ms = 0 and tokens_saved_input > 0`,
      [requestId],
      1,
    );
    // The hit writes no cost row of its own; its embedding lookup is one, under semcache-<id>.
    const rows = await chat.query<{ request_id: string; model: string }>(
      'select request_id, model from cost_logs where request_id in ($1, $2)',
      [requestId, `semcache-${requestId}`],
    );
    expect(rows).toEqual([{ request_id: `semcache-${requestId}`, model: 'text-embedding-3-small' }]);
    const [entries] = await chat.query<{ n: number }>(
      'select count(*)::int as n from semantic_cache_entries where tenant_id = $1',
      [chat.tenant.tenantId],
    );
    expect(entries!.n).toBe(1);
  });

  it('misses below the threshold', async () => {
    const res = await ask([user('The French capital, roughly?')]);
    expect(res.headers.get('x-gateway-cache')).toBeNull();
    expect(res.body._gateway.cached).toBe(false);
  });

  it('never hits when anything but the last user turn differs', async () => {
    await ask([{ role: 'system', content: 'Answer in French.' }, user('Which city is the largest in Japan?')]);
    await settle();
    // The same context: a hit.
    const same = await ask([{ role: 'system', content: 'Answer in French.' }, user('Largest city of Japan?')]);
    expect(same.headers.get('x-gateway-cache')).toBe('semantic');

    const variants: Array<[string, Msg[], Record<string, unknown>]> = [
      ['another system prompt', [{ role: 'system', content: 'Answer in German.' }, user('Largest city of Japan?')], {}],
      ['no system prompt', [user('Largest city of Japan?')], {}],
      [
        'an earlier turn',
        [
          { role: 'system', content: 'Answer in French.' },
          user('Hi'),
          { role: 'assistant', content: 'Hello' },
          user('Largest city of Japan?'),
        ],
        {},
      ],
      [
        'a tool list',
        [{ role: 'system', content: 'Answer in French.' }, user('Largest city of Japan?')],
        { tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }] },
      ],
      [
        'a response format',
        [{ role: 'system', content: 'Answer in French.' }, user('Largest city of Japan?')],
        { response_format: { type: 'json_object' } },
      ],
      [
        'a max_tokens',
        [{ role: 'system', content: 'Answer in French.' }, user('Largest city of Japan?')],
        { max_tokens: 5 },
      ],
    ];
    for (const [what, messages, extra] of variants) {
      const res = await ask(messages, extra);
      expect(res.headers.get('x-gateway-cache'), what).toBeNull();
    }
  });

  it('never answers another workspace', async () => {
    const res = await ask([user("Tell me France's capital city")], {}, other.token);
    expect(res.headers.get('x-gateway-cache')).toBeNull();
  });

  it('streams a hit when the caller asked for a stream', async () => {
    const stream = await chat.openai().chat.completions.create({
      model: MODEL,
      temperature: 0,
      stream: true,
      messages: [user("So, France's capital city?")],
    });
    let text = '';
    let last: any;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      last = chunk;
    }
    expect(last._gateway).toMatchObject({ cached: true, cacheType: 'semantic' });
    expect(text.length).toBeGreaterThan(0);
  });

  it('leaves requests without a plain last user turn, or not eligible, to the exact cache alone', async () => {
    const before = chat.sim.requests.filter((r) => r.endpoint === 'embeddings').length;
    await ask([user("France's capital city, hot take")], { temperature: 0.7 });
    await ask([user("France's capital city?")], { cache: false });
    expect(chat.sim.requests.filter((r) => r.endpoint === 'embeddings').length).toBe(before);
  });
});

describe('persistence and eviction', () => {
  it('keeps entries across processes and restarts: a new node loads them from Postgres', async () => {
    const node = await chat.env.addNode();
    const res = await chat.env.http('POST', '/v1/chat/completions', {
      token: chat.tenant.token,
      body: { model: MODEL, temperature: 0, messages: [user("Remind me: France's capital city")] },
    });
    expect(res.status).toBe(200);
    // The first lookup of a workspace waits a moment for its load; ask again if it was not in time.
    const hit =
      res.headers.get('x-gateway-cache') === 'semantic' ||
      (
        await fetch(`${node.baseUrl}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${chat.tenant.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: MODEL, temperature: 0, messages: [user("Remind me: France's capital city")] }),
        })
      ).headers.get('x-gateway-cache') === 'semantic';
    expect(hit).toBe(true);
  });

  it('expires entries after their TTL and evicts beyond the per-workspace cap', async () => {
    const tenant = await chat.env.createTenant();
    const node = await chat.env.addNode({
      GATEWAY_SEMANTIC_CACHE_TTL_SECONDS: '1',
      GATEWAY_SEMANTIC_CACHE_MAX_ENTRIES: '2',
    });
    const call = (content: string) =>
      fetch(`${node.baseUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, temperature: 0, messages: [user(content)] }),
      });
    await call(CAPITAL);
    await untilStored(1, tenant.tenantId);
    expect((await call("Tell me France's capital city")).headers.get('x-gateway-cache')).toBe('semantic');
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await call("Tell me France's capital city")).headers.get('x-gateway-cache')).toBeNull();

    // Three distinct questions with a cap of two: the least recently used is deleted too.
    for (const q of ['First question here', 'Second question here', 'Third question here']) {
      await call(q);
      await settle();
    }
    await settle();
    const rows = await chat.query<{ n: number }>(
      `select count(*)::int as n from semantic_cache_entries where tenant_id = $1 and expires_at > now()`,
      [tenant.tenantId],
    );
    expect(rows[0]!.n).toBe(2);
  });
});

describe('/v1/cache and analytics', () => {
  it('reports exact and semantic hits apart in the cache savings', async () => {
    await ask([user('Exactly this question, twice')]);
    await ask([user('Exactly this question, twice')]);
    await settle();
    const res = await chat.env.http('GET', '/v1/analytics/cache/savings', { token: chat.tenant.token });
    expect(res.status).toBe(200);
    expect(res.body.exactHits).toBeGreaterThanOrEqual(1);
    expect(res.body.semanticHits).toBeGreaterThanOrEqual(3);
    expect(res.body.hits).toBe(res.body.exactHits + res.body.semanticHits);
  });

  it('shows the settings and entries, and clears one model or all, audited', async () => {
    const stats = await chat.env.http('GET', '/v1/cache/stats', { token: chat.tenant.token });
    expect(stats.body.semantic).toMatchObject({
      enabled: true,
      active: true,
      embeddingModel: 'openai/text-embedding-3-small',
      dimensions: 256,
      threshold: 0.97,
    });
    expect(stats.body.semantic.entries).toBeGreaterThan(0);

    const otherModel = await chat.env.http('DELETE', '/v1/cache?model=anthropic/claude-3-5-haiku-20241022', {
      token: chat.tenant.token,
    });
    expect(otherModel.body).toEqual({ deleted: 0, model: 'anthropic/claude-3-5-haiku-20241022' });
    const cleared = await chat.env.http('DELETE', `/v1/cache?model=${MODEL}`, { token: chat.tenant.token });
    expect(cleared.status).toBe(200);
    expect(cleared.body.deleted).toBe(stats.body.semantic.entries);
    expect((await ask([user("Tell me France's capital city")])).headers.get('x-gateway-cache')).toBeNull();
    await untilStored(1);
    const audit = await chat.env.http('GET', '/v1/audit-logs?action=cache.clear', { token: chat.tenant.token });
    expect(audit.body.items.map((i: any) => i.targetId)).toContain(MODEL);

    const all = await chat.env.http('DELETE', '/v1/cache', { token: chat.tenant.token });
    expect(all.status).toBe(200);
  });

  it('refuses a bad model with a 400, and clearing without an admin token with a 403', async () => {
    expectTypedError(
      await chat.env.http('DELETE', '/v1/cache?model=gpt-4o', { token: chat.tenant.token }),
      400,
      'invalid_request_error',
    );
    expectTypedError(
      await chat.env.http('DELETE', '/v1/cache?scope=all', { token: chat.tenant.token }),
      400,
      'invalid_request_error',
    );
    const created = await chat.env.http('POST', '/v1/admin/tokens', {
      token: chat.tenant.token,
      body: { name: 'app' },
    });
    expectTypedError(
      await chat.env.http('DELETE', '/v1/cache', { token: created.body.token }),
      403,
      'permission_error',
    );
  });

  it('gatewayctl cache stats and clear', async () => {
    await ask([user('A question for the command line')]);
    await untilStored(1);
    const vars = { url: chat.env.baseUrl, token: chat.tenant.token };
    const stats = await runCli(['cache', 'stats'], vars);
    expect(stats).toMatchObject({ code: 0, stderr: '' });
    expect(stats.stdout).toMatch(/EMBEDDING MODEL\s*│\s*openai\/text-embedding-3-small/);
    expect(stats.stdout).toMatch(/openai\/gpt-4o-mini\s*│\s*1\s*│/);
    const cleared = await runCli(['--json', 'cache', 'clear', '--model', MODEL], vars);
    expect(cleared.code).toBe(0);
    expect(JSON.parse(cleared.stdout)).toEqual({ deleted: 1, model: MODEL });
  });

  it('is listed in /openapi.json', async () => {
    const doc = (await chat.env.http('GET', '/openapi.json')).body;
    expect(doc.paths['/v1/cache/stats']?.get).toBeDefined();
    expect(doc.paths['/v1/cache']?.delete).toBeDefined();
  });
});

describe('without an embedding model', () => {
  it('stays off and serves calls as usual', async () => {
    const node = await chat.env.addNode({ GATEWAY_SEMANTIC_CACHE_MODEL: 'openai/no-such-embedding-model' });
    const res = await fetch(`${node.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${chat.tenant.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, temperature: 0, messages: [user("France's capital city, again")] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gateway-cache')).toBeNull();
    const stats = await fetch(`${node.baseUrl}/v1/cache/stats`, {
      headers: { authorization: `Bearer ${chat.tenant.token}` },
    }).then((r) => r.json() as Promise<any>);
    expect(stats.semantic).toMatchObject({ enabled: true, active: false, embeddingModel: null });
  });
});

describe('security', () => {
  securityMatrix(
    () => chat.env,
    () => ({ owner: chat.tenant, other, ids: {} }),
    [
      { method: 'GET', path: '/v1/cache/stats' },
      { method: 'DELETE', path: '/v1/cache' },
    ],
  );
});
