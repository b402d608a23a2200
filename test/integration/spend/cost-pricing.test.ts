import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedUsage } from '../../../server/simulator/types.js';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';
import { crossTenantMatrix, expectTypedError, securityMatrix } from '../../support/security.js';

// Cost as the provider's invoice says it. The simulator reports prompt caching, long prompts and
// service tiers in each provider's own usage fields (FaultRule.usage); each expected cost below is
// worked out by hand from the provider's published rates (USD per million tokens), and must match
// the cost row, `_gateway.cost` and X-Gateway-Cost to a billionth of a dollar. A streamed call
// costs what the whole one does; a negotiated price changes the next call's cost, not logged ones.

const OUTPUT = 20;
let c: ChatEnv;
beforeAll(async () => {
  c = await startChatEnv({
    sim: {
      outputTokens: OUTPUT,
      models: {
        openai: ['gpt-4o', 'gpt-4o-mini', 'o4-mini'],
        anthropic: ['claude-sonnet-4-5'],
        gemini: ['gemini-2.5-pro'],
      },
    },
    env: {
      GATEWAY_EXPLORATION_RATE: '0',
      // The deployment's negotiated price for gpt-4o-mini (cache rates left to the list ratio).
      GATEWAY_PRICE_OVERRIDES: JSON.stringify([{ provider: 'openai', model: 'gpt-4o-mini', input: 0.1, output: 0.4 }]),
    },
  });
});
afterAll(() => c.close());

let n = 0;
const prompt = () => `price this call ${++n}`;

interface CostRow {
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  cache_write_5m_tokens: number;
  cache_write_1h_tokens: number;
  service_tier: string | null;
  cost: number;
}

async function costRow(requestId: string): Promise<CostRow> {
  await c.waitForCount('select count(*) n from cost_logs where request_id = $1', [requestId], 1);
  const [row] = await c.query<CostRow>(
    `select input_tokens, output_tokens, cached_input_tokens, cache_write_5m_tokens, cache_write_1h_tokens,
            service_tier, cost::float8 cost from cost_logs where request_id = $1`,
    [requestId],
  );
  return row!;
}

/** One whole call to `model` with the simulator reporting `usage`: its cost three ways, and its row. */
async function whole(model: string, usage: ScriptedUsage) {
  c.sim.setFaults([{ model: model.split('/')[1], usage, times: 1 }]);
  const { data, response } = await c
    .openai()
    .chat.completions.create({ model, messages: [{ role: 'user', content: prompt() }] })
    .withResponse();
  const gw = (data as any)._gateway;
  expect(data.usage!.completion_tokens).toBe(OUTPUT);
  const row = await costRow(gw.requestId);
  expect(gw.cost).toBeCloseTo(row.cost, 12);
  return {
    requestId: gw.requestId as string,
    cost: row.cost,
    header: Number(response.headers.get('x-gateway-cost')),
    row,
    usage: data.usage!,
  };
}

/** The same, streamed: the cost travels in the last frame. */
async function streamed(model: string, usage: ScriptedUsage) {
  c.sim.setFaults([{ model: model.split('/')[1], usage, times: 1 }]);
  const stream = await c.openai().chat.completions.create({
    model,
    messages: [{ role: 'user', content: prompt() }],
    stream: true,
    stream_options: { include_usage: true },
  });
  let last: any;
  let reported: any;
  for await (const chunk of stream) {
    last = chunk;
    if (chunk.usage) reported = chunk.usage;
  }
  expect(reported.completion_tokens).toBe(OUTPUT);
  const gw = last._gateway;
  const row = await costRow(gw.requestId);
  expect(gw.cost).toBeCloseTo(row.cost, 12);
  return { cost: row.cost, row };
}

/** USD from token counts and rates per million. */
const usd = (...parts: Array<[tokens: number, perMillion: number]>) =>
  parts.reduce((s, [t, r]) => s + t * r, 0) / 1_000_000;

/** Whole and streamed, each must cost `expected`, to a billionth of a dollar. */
async function expectCost(model: string, usage: ScriptedUsage, expected: number) {
  const w = await whole(model, usage);
  expect(w.cost).toBeCloseTo(expected, 9);
  expect(w.header).toBeCloseTo(expected, 9);
  const s = await streamed(model, usage);
  expect(s.cost).toBeCloseTo(expected, 9);
  expect(s.row).toEqual(w.row);
  return w;
}

describe('OpenAI: cached input and service tiers', () => {
  it('bills cached tokens at the cached rate (gpt-4o: 2.50 input, 1.25 cached, 10 output)', async () => {
    const w = await expectCost(
      'openai/gpt-4o',
      { promptTokens: 10_000, cachedTokens: 8_000 },
      usd([2_000, 2.5], [8_000, 1.25], [OUTPUT, 10]),
    );
    expect(w.usage.prompt_tokens_details?.cached_tokens).toBe(8_000);
    expect(w.row).toMatchObject({ input_tokens: 10_000, cached_input_tokens: 8_000, output_tokens: OUTPUT });
  });

  it('bills the priority tier at its rates (gpt-4o priority: 4.25 input, 2.125 cached, 17 output)', async () => {
    const w = await expectCost(
      'openai/gpt-4o',
      { promptTokens: 10_000, cachedTokens: 8_000, serviceTier: 'priority' },
      usd([2_000, 4.25], [8_000, 2.125], [OUTPUT, 17]),
    );
    expect(w.row.service_tier).toBe('priority');
  });

  it('bills the flex tier at half (o4-mini flex: 0.55 input, 0.1375 cached, 2.20 output)', async () => {
    await expectCost(
      'openai/o4-mini',
      { promptTokens: 6_000, cachedTokens: 4_000, serviceTier: 'flex' },
      usd([2_000, 0.55], [4_000, 0.1375], [OUTPUT, 2.2]),
    );
  });

  it('bills the default tier at the standard rates', async () => {
    await expectCost('openai/gpt-4o', { promptTokens: 3_000, serviceTier: 'default' }, usd([3_000, 2.5], [OUTPUT, 10]));
  });
});

describe('Anthropic: cache reads and 5-minute and 1-hour cache writes, long prompts', () => {
  it('bills each kind at its rate (claude-sonnet-4-5: 3 input, 0.30 read, 3.75 5m write, 6 1h write, 15 output)', async () => {
    const w = await expectCost(
      'anthropic/claude-sonnet-4-5',
      { promptTokens: 12_000, cachedTokens: 6_000, cacheWrite5mTokens: 2_000, cacheWrite1hTokens: 3_000 },
      usd([1_000, 3], [6_000, 0.3], [2_000, 3.75], [3_000, 6], [OUTPUT, 15]),
    );
    expect(w.usage.prompt_tokens).toBe(12_000);
    expect(w.usage.prompt_tokens_details).toMatchObject({ cached_tokens: 6_000, cache_write_tokens: 5_000 });
    expect(w.row).toMatchObject({
      input_tokens: 12_000,
      cached_input_tokens: 6_000,
      cache_write_5m_tokens: 2_000,
      cache_write_1h_tokens: 3_000,
      service_tier: 'standard',
    });
  });

  it('bills a prompt over 200k tokens at the long-context rates (6 input, 0.60 read, 7.50 5m write, 22.50 output)', async () => {
    await expectCost(
      'anthropic/claude-sonnet-4-5',
      { promptTokens: 250_000, cachedTokens: 100_000, cacheWrite5mTokens: 50_000 },
      usd([100_000, 6], [100_000, 0.6], [50_000, 7.5], [OUTPUT, 22.5]),
    );
  });
});

describe('Gemini: cached content and long prompts', () => {
  it('bills cached content at the cached rate (gemini-2.5-pro: 1.25 input, 0.125 cached, 10 output)', async () => {
    await expectCost(
      'gemini/gemini-2.5-pro',
      { promptTokens: 50_000, cachedTokens: 40_000 },
      usd([10_000, 1.25], [40_000, 0.125], [OUTPUT, 10]),
    );
  });

  it('bills a prompt over 200k tokens at the long-context rates (2.50 input, 0.25 cached, 15 output)', async () => {
    await expectCost(
      'gemini/gemini-2.5-pro',
      { promptTokens: 300_000, cachedTokens: 100_000 },
      usd([200_000, 2.5], [100_000, 0.25], [OUTPUT, 15]),
    );
  });
});

describe('GET /v1/models/stats', () => {
  it('shows what prompt caching did for each model', async () => {
    const res = await c.env.http('GET', '/v1/models/stats', { token: c.tenant.token });
    const sonnet = res.body.items.find((m: any) => m.model === 'claude-sonnet-4-5');
    // The two Anthropic cases above, whole and streamed: reads 2 x (6,000 + 100,000), 5-minute
    // writes 2 x (2,000 + 50,000), 1-hour writes 2 x 3,000. Saved at the list rates (3 input, 0.30
    // read, 3.75 and 6 written): 212,000 x 2.70 - 104,000 x 0.75 - 6,000 x 3.
    expect(sonnet).toMatchObject({ cachedInputTokens: 212_000, cacheWriteTokens: 110_000 });
    expect(sonnet.promptCacheSavingsUsd).toBeCloseTo(usd([212_000, 2.7], [104_000, -0.75], [6_000, -3]), 9);
  });
});

describe('negotiated prices', () => {
  const overrides = '/v1/models/pricing/overrides';

  it("a workspace's override changes the next call's cost and not the rows logged before it", async () => {
    const usage = { promptTokens: 10_000, cachedTokens: 8_000 };
    const before = await whole('openai/gpt-4o', usage);
    expect(before.cost).toBeCloseTo(usd([2_000, 2.5], [8_000, 1.25], [OUTPUT, 10]), 9);

    const set = await c.env.http('PUT', overrides, {
      token: c.tenant.token,
      body: { provider: 'openai', model: 'gpt-4o', input: 2, output: 8, cachedInput: 0.5 },
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toMatchObject({
      provider: 'openai',
      model: 'gpt-4o',
      source: 'workspace',
      input: 2,
      cachedInput: 0.5,
    });

    const after = await whole('openai/gpt-4o', usage);
    expect(after.cost).toBeCloseTo(usd([2_000, 2], [8_000, 0.5], [OUTPUT, 8]), 9);
    expect(after.header).toBeCloseTo(after.cost, 9);
    // The earlier row keeps the cost it was logged with.
    expect((await costRow(before.requestId)).cost).toBeCloseTo(before.cost, 12);

    // Another workspace still pays the list price.
    const other = await c.env.createTenant();
    c.sim.setFaults([{ model: 'gpt-4o', usage, times: 1 }]);
    const theirs: any = await c
      .openai(other.token)
      .chat.completions.create({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: prompt() }] });
    expect(theirs._gateway.cost).toBeCloseTo(before.cost, 9);

    const removed = await c.env.http('DELETE', `${overrides}?model=gpt-4o&provider=openai`, { token: c.tenant.token });
    expect(removed.body).toEqual({ deleted: true, provider: 'openai', model: 'gpt-4o' });
    expect((await whole('openai/gpt-4o', usage)).cost).toBeCloseTo(before.cost, 9);

    const audit = await c.env.http('GET', '/v1/audit-logs?targetType=price_override', { token: c.tenant.token });
    expect(audit.body.items.map((e: any) => e.action)).toEqual(['pricing.override.delete', 'pricing.override.set']);
  });

  it("the deployment's override applies to every workspace, and a workspace's own wins over it", async () => {
    const usage = { promptTokens: 10_000, cachedTokens: 4_000 };
    // gpt-4o-mini list: 0.15 input, 0.075 cached (half), 0.60 output; the deployment's 0.10 / 0.40,
    // its cached rate at the list's ratio: 0.05.
    expect((await whole('openai/gpt-4o-mini', usage)).cost).toBeCloseTo(
      usd([6_000, 0.1], [4_000, 0.05], [OUTPUT, 0.4]),
      9,
    );
    const listed = await c.env.http('GET', overrides, { token: c.tenant.token });
    expect(listed.body.items).toEqual([
      expect.objectContaining({ provider: 'openai', model: 'gpt-4o-mini', source: 'deployment', cachedInput: 0.05 }),
    ]);

    await c.env.http('PUT', overrides, {
      token: c.tenant.token,
      body: { model: 'gpt-4o-mini', input: 0.05, output: 0.2, cachedInput: 0.01 },
    });
    expect((await whole('openai/gpt-4o-mini', usage)).cost).toBeCloseTo(
      usd([6_000, 0.05], [4_000, 0.01], [OUTPUT, 0.2]),
      9,
    );
    const pricing = await c.env.http('GET', '/v1/models/pricing', { token: c.tenant.token });
    expect(pricing.body.overrides.map((o: any) => o.source)).toEqual(['workspace', 'deployment']);
    await c.env.http('DELETE', `${overrides}?model=gpt-4o-mini`, { token: c.tenant.token });
  });

  it('bad bodies answer 400; removing an override that does not exist answers 404; only admins change them', async () => {
    for (const body of [
      { model: 'gpt-4o', input: -1, output: 1 },
      { model: 'gpt-4o', input: 1 },
      { model: '', input: 1, output: 1 },
      { model: 'gpt-4o', input: 1, output: 1, bogus: true },
    ])
      expectTypedError(
        await c.env.http('PUT', overrides, { token: c.tenant.token, body }),
        400,
        'invalid_request_error',
      );
    expectTypedError(
      await c.env.http('DELETE', `${overrides}?model=never-set`, { token: c.tenant.token }),
      404,
      'not_found_error',
    );
    const created = await c.env.http('POST', '/v1/admin/tokens', {
      token: c.tenant.token,
      body: { name: 'not-admin', admin: false },
    });
    expectTypedError(
      await c.env.http('PUT', overrides, { token: created.body.token, body: { model: 'gpt-4o', input: 1, output: 1 } }),
      403,
      'permission_error',
    );
    expect((await c.env.http('GET', overrides, { token: created.body.token })).status).toBe(200);
  });
});

describe('GET /v1/models/pricing', () => {
  it('shows every rate and its date', async () => {
    const res = await c.env.http('GET', '/v1/models/pricing', { token: c.tenant.token });
    const sonnet = res.body.items.find((m: any) => m.model === 'claude-sonnet-4-5');
    expect(sonnet).toMatchObject({
      inputPerMillionUsd: 3,
      outputPerMillionUsd: 15,
      cachedInputPerMillionUsd: 0.3,
      cacheWrite5mPerMillionUsd: 3.75,
      cacheWrite1hPerMillionUsd: 6,
      longContext: { aboveTokens: 200_000, inputPerMillionUsd: 6, outputPerMillionUsd: 22.5 },
      asOf: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
    });
    const gpt4o = res.body.items.find((m: any) => m.model === 'gpt-4o');
    expect(gpt4o.serviceTiers.priority).toMatchObject({ inputPerMillionUsd: 4.25, outputPerMillionUsd: 17 });
  });
});

describe('security', () => {
  securityMatrix(
    () => c.env,
    () => ({ owner: c.tenant, other: c.tenant, ids: {} }),
    [
      { method: 'GET', path: '/v1/models/pricing/overrides' },
      { method: 'PUT', path: '/v1/models/pricing/overrides', body: { model: 'gpt-4o', input: 1, output: 1 } },
      { method: 'DELETE', path: '/v1/models/pricing/overrides?model=gpt-4o' },
    ],
  );

  describe("another workspace's override", () => {
    let other: Awaited<ReturnType<ChatEnv['env']['createTenant']>>;
    beforeAll(async () => {
      other = await c.env.createTenant();
      await c.env.http('PUT', '/v1/models/pricing/overrides', {
        token: c.tenant.token,
        body: { model: 'gpt-4.1', input: 1, output: 1 },
      });
    });
    it('is not listed', async () => {
      const res = await c.env.http('GET', '/v1/models/pricing/overrides', { token: other.token });
      expect(res.body.items.filter((o: any) => o.source === 'workspace')).toEqual([]);
    });
    crossTenantMatrix(
      () => c.env,
      () => ({ owner: c.tenant, other, ids: {} }),
      [{ method: 'DELETE', path: '/v1/models/pricing/overrides?model=gpt-4.1' }],
    );
  });
});
