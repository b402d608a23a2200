import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';
import type { TestTenant } from '../../support/harness.js';
import { expectTypedError } from '../../support/security.js';

// The rules that keep A/B tests meaningful: one active test per overlapping cell (also under
// concurrent requests), one cell per test, chat models only, strict inputs, and results that
// count only what each variant answered itself.

let c: ChatEnv;
beforeAll(async () => {
  c = await startChatEnv({ env: { GATEWAY_ROUTING_SEED: '11', GATEWAY_EXPLORATION_RATE: '0' } });
});
afterAll(() => c.close());
beforeEach(() => c.sim.clearFaults());

function v(provider: string, model: string, taskType?: string, complexity?: string) {
  return { provider, model, weight: 1, ...(taskType ? { taskType } : {}), ...(complexity ? { complexity } : {}) };
}

const pair = (taskType?: string, complexity?: string) => [
  v('openai', 'gpt-4o-mini', taskType, complexity),
  v('gemini', 'gemini-2.0-flash', taskType, complexity),
];

const create = (t: TestTenant, body: Record<string, unknown>) =>
  c.env.http('POST', '/v1/ab-tests', { token: t.token, body });
const patch = (t: TestTenant, id: string, body: Record<string, unknown>) =>
  c.env.http('PATCH', `/v1/ab-tests/${id}`, { token: t.token, body });

describe('one active test per cell, under concurrency', () => {
  it('of 8 concurrent creates on one cell, exactly one succeeds and the others get 409', async () => {
    const t = await c.env.createTenant();
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => create(t, { name: `race ${i}`, variants: pair('qa', 'simple') })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
    for (const r of results.filter((x) => x.status === 409)) expectTypedError(r, 409, 'conflict_error');
    const active = (await c.env.http('GET', '/v1/ab-tests', { token: t.token })).body.items.filter(
      (x: any) => x.status === 'active',
    );
    expect(active).toHaveLength(1);
  });

  it('of 4 paused tests resumed at once on one cell, exactly one becomes active', async () => {
    const t = await c.env.createTenant();
    const ids: string[] = [];
    for (let i = 0; i < 4; i++)
      ids.push(
        (await create(t, { name: `paused ${i}`, status: 'paused', variants: pair('coding', 'complex') })).body.id,
      );
    const results = await Promise.all(ids.map((id) => patch(t, id, { status: 'active' })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409]);
    const active = (await c.env.http('GET', '/v1/ab-tests', { token: t.token })).body.items.filter(
      (x: any) => x.status === 'active',
    );
    expect(active).toHaveLength(1);
  });
});

describe('a cell left out ("any") overlaps the specific cells it covers', () => {
  it.each([
    ['any/any, then qa/simple', [undefined, undefined], ['qa', 'simple']],
    ['qa/simple, then any/any', ['qa', 'simple'], [undefined, undefined]],
    ['qa/any, then qa/simple', ['qa', undefined], ['qa', 'simple']],
    ['qa/simple, then qa/any', ['qa', 'simple'], ['qa', undefined]],
    ['any/simple, then coding/simple', [undefined, 'simple'], ['coding', 'simple']],
  ] as const)('%s: the second is 409', async (_name, first, second) => {
    const t = await c.env.createTenant();
    const a = await create(t, { name: 'first', variants: pair(...first) });
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    const b = await create(t, { name: 'second', variants: pair(...second) });
    expectTypedError(b, 409, 'conflict_error');
    expect(b.body.error.message).toContain(a.body.id);

    // Resuming a paused overlapping test is refused the same way.
    const paused = await create(t, { name: 'paused', status: 'paused', variants: pair(...second) });
    expect(paused.status).toBe(200);
    expectTypedError(await patch(t, paused.body.id, { status: 'active' }), 409, 'conflict_error');

    // Once the first is paused, the second may run.
    await patch(t, a.body.id, { status: 'paused' });
    expect((await patch(t, paused.body.id, { status: 'active' })).status).toBe(200);
  });

  it('cells that share no request do not clash (qa/any and coding/simple)', async () => {
    const t = await c.env.createTenant();
    expect((await create(t, { name: 'qa any', variants: pair('qa') })).status).toBe(200);
    expect((await create(t, { name: 'coding simple', variants: pair('coding', 'simple') })).status).toBe(200);
    expect((await create(t, { name: 'qa medium', variants: pair('qa', 'medium') })).status).toBe(409);
  });
});

describe('variants', () => {
  it.each([
    [
      'different task types',
      [v('openai', 'gpt-4o-mini', 'qa', 'simple'), v('gemini', 'gemini-2.0-flash', 'coding', 'simple')],
    ],
    [
      'different complexities',
      [v('openai', 'gpt-4o-mini', 'qa', 'simple'), v('gemini', 'gemini-2.0-flash', 'qa', 'complex')],
    ],
    ['one scoped, one not', [v('openai', 'gpt-4o-mini', 'qa', 'simple'), v('gemini', 'gemini-2.0-flash')]],
  ])('rejects variants scoped to %s with 400', async (_name, variants) => {
    const t = await c.env.createTenant();
    const res = await create(t, { name: 'mixed', variants });
    expectTypedError(res, 400, 'invalid_request_error');
    expect(res.body.error.message).toContain('variants.1');
    expect((await c.env.http('GET', '/v1/ab-tests', { token: t.token })).body.items).toEqual([]);
  });

  it('rejects a model that is not a chat model (an embeddings model) with 400', async () => {
    const t = await c.env.createTenant();
    const res = await create(t, {
      name: 'embed',
      variants: [v('openai', 'gpt-4o-mini'), v('openai', 'text-embedding-3-small')],
    });
    expectTypedError(res, 400, 'invalid_request_error');
    expect(res.body.error.message).toContain('variants.1.model');
    expect(res.body.error.message).toContain('text-embedding-3-small');
  });
});

describe('strict inputs', () => {
  it('rejects an unknown field on create with 400 naming it, and creates nothing', async () => {
    const t = await c.env.createTenant();
    const res = await create(t, { name: 'typo', paused: true, variants: pair('qa', 'simple') });
    expectTypedError(res, 400, 'invalid_request_error');
    expect(res.body.error.message).toContain('paused');
    expect((await c.env.http('GET', '/v1/ab-tests', { token: t.token })).body.items).toEqual([]);
  });

  it('rejects an unknown field in a variant with 400 naming it and the variant', async () => {
    const t = await c.env.createTenant();
    const res = await create(t, {
      name: 'typo',
      variants: [{ ...v('openai', 'gpt-4o-mini'), weigth: 2 }, v('gemini', 'gemini-2.0-flash')],
    });
    expectTypedError(res, 400, 'invalid_request_error');
    expect(res.body.error.message).toContain('variants.0');
    expect(res.body.error.message).toContain('weigth');
  });

  it('rejects an unknown field on update with 400 naming it, and changes nothing', async () => {
    const t = await c.env.createTenant();
    const created = await create(t, { name: 'strict', status: 'paused', variants: pair('qa', 'simple') });
    const res = await patch(t, created.body.id, { status: 'active', variants: [] });
    expectTypedError(res, 400, 'invalid_request_error');
    expect(res.body.error.message).toContain('variants');
    expect((await c.env.http('GET', `/v1/ab-tests/${created.body.id}`, { token: t.token })).body.status).toBe('paused');
  });
});

describe('results count what each variant answered itself', () => {
  it('a request a fallback model answered is an error of its variant, not a request, cost or score of it', async () => {
    const t = await c.env.createTenant();
    const test = await create(t, { name: 'faulty', variants: pair('qa', 'simple') });
    expect(test.status).toBe(200);
    // The first variant's model always fails: the gateway falls back to another model.
    c.sim.setFaults([{ format: 'openai', model: 'gpt-4o-mini', status: 503 }]);

    const client = c.openai(t.token);
    const routed: Record<string, string[]> = { 'openai/gpt-4o-mini': [], 'gemini/gemini-2.0-flash': [] };
    for (let i = 0; i < 24; i++) {
      const res = await client.chat.completions.create({
        model: '',
        messages: [{ role: 'user', content: `question ${i}` }],
        routing_hint: 'qa',
        complexity_hint: 'simple',
      } as any);
      const gw = (res as any)._gateway;
      expect(gw.routing.abTestId).toBe(test.body.id);
      routed[gw.routing.variant]!.push(gw.requestId);
      if (gw.routing.variant === 'openai/gpt-4o-mini') {
        expect(gw.routing.usedFallback).toBe(true);
        expect(`${gw.provider}/${gw.model}`).not.toBe('openai/gpt-4o-mini');
      }
      await c.env.http('POST', '/v1/feedback', { token: t.token, body: { requestId: gw.requestId, score: 5 } });
    }
    const failing = routed['openai/gpt-4o-mini']!.length;
    const healthy = routed['gemini/gemini-2.0-flash']!.length;
    expect(failing).toBeGreaterThan(0);
    expect(healthy).toBeGreaterThan(0);

    await c.waitForCount('select count(*) n from requests where ab_test_id = $1', [test.body.id], 24);
    const detail = (await c.env.http('GET', `/v1/ab-tests/${test.body.id}`, { token: t.token })).body;
    const byVariant = Object.fromEntries(detail.results.map((r: any) => [`${r.provider}/${r.model}`, r]));
    expect(byVariant['openai/gpt-4o-mini']).toMatchObject({
      requests: 0,
      errors: failing,
      avgLatencyMs: null,
      totalCostUsd: 0,
      avgScore: null,
      feedbackCount: 0,
    });
    expect(byVariant['gemini/gemini-2.0-flash']).toMatchObject({
      requests: healthy,
      errors: 0,
      avgScore: 5,
      feedbackCount: healthy,
    });
    expect(byVariant['gemini/gemini-2.0-flash'].totalCostUsd).toBeGreaterThan(0);
  });
});
