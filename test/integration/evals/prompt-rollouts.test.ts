import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';
import type { TestTenant } from '../../support/harness.js';
import { crossTenantMatrix, expectTypedError, securityMatrix, type SecurityContext } from '../../support/security.js';

// Prompt templates, versions and canary rollouts over HTTP: resolve by weight, prompt_version_id on
// chat calls tying feedback to the version, the prompt-rollout-eval job promoting one rollout and
// reverting another from seeded feedback, manual promote and revert, the one-active rule.

let c: ChatEnv;
let other: TestTenant;
const ids: Record<string, string> = {};

beforeAll(async () => {
  c = await startChatEnv({ env: { GATEWAY_EXPLORATION_RATE: '0' } });
  other = await c.env.createTenant('free');
});
afterAll(() => c.close());

const post = (path: string, body: unknown = {}, token = c.tenant.token) => c.env.http('POST', path, { token, body });
const get = (path: string, token = c.tenant.token) => c.env.http('GET', path, { token });
const sys = (content: string) => [
  { role: 'system', content },
  { role: 'user', content: 'Tell {{name}} about {{topic}}.' },
];

async function template(name: string, stableText: string, canaryText: string) {
  const t = await post('/v1/prompts', { name, messages: sys(stableText) });
  expect(t.status, JSON.stringify(t.body)).toBe(200);
  const v2 = await post(`/v1/prompts/${t.body.id}/versions`, { messages: sys(canaryText), note: 'shorter' });
  expect(v2.status).toBe(200);
  return { templateId: t.body.id as string, stable: t.body.publishedVersionId as string, canary: v2.body.id as string };
}

/** A chat call carrying prompt_version_id, rated `score`. */
async function ratedCall(versionId: string, score: number): Promise<void> {
  const res = await post('/v1/chat/completions', {
    model: 'openai/gpt-4o-mini',
    messages: [{ role: 'user', content: 'hello' }],
    prompt_version_id: versionId,
  });
  expect(res.status).toBe(200);
  const fb = await post('/v1/feedback', { requestId: res.body._gateway.requestId, score });
  expect(fb.status, JSON.stringify(fb.body)).toBe(200);
}

describe('templates and versions', () => {
  it('creates a template with version 1 published, adds versions, lists variables', async () => {
    const t = await post('/v1/prompts', { name: 'greeter', description: 'says hi', messages: sys('Be kind.') });
    expect(t.status).toBe(200);
    expect(t.body.publishedVersionId).toMatch(/^pv_/);
    ids.template = t.body.id;
    const v2 = await post(`/v1/prompts/${t.body.id}/versions`, { messages: sys('Be brief.') });
    expect(v2.body).toMatchObject({ version: 2, status: 'draft', variables: ['name', 'topic'] });
    ids.version = v2.body.id;
    const detail = await get(`/v1/prompts/${t.body.id}`);
    expect(detail.body.versions.map((v: any) => [v.version, v.status])).toEqual([
      [2, 'draft'],
      [1, 'published'],
    ]);
    expect((await get(`/v1/prompts/${t.body.id}/versions`)).body.items).toHaveLength(2);
    expect((await get('/v1/prompts')).body.items.map((x: any) => x.id)).toContain(t.body.id);
    expectTypedError(await post('/v1/prompts', { name: 'greeter' }), 409, 'conflict_error');
    expectTypedError(
      await post(`/v1/prompts/${t.body.id}/versions`, { messages: [{ role: 'wizard', content: 'x' }] }),
      400,
      'invalid_request_error',
    );
  });

  it('publishes a version: the old one is retired; resolve answers with it and fills variables', async () => {
    const t = await template('publisher', 'One.', 'Two.');
    const res = await post(`/v1/prompts/${t.templateId}/versions/${t.canary}/publish`);
    expect(res.body.publishedVersionId).toBe(t.canary);
    const versions = (await get(`/v1/prompts/${t.templateId}`)).body.versions;
    expect(versions.map((v: any) => v.status)).toEqual(['published', 'retired']);
    const resolved = await post(`/v1/rollouts/resolve/${t.templateId}`, { variables: { name: 'Ada' } });
    expect(resolved.status).toBe(200);
    expect(resolved.body).toEqual({
      versionId: t.canary,
      messages: [
        { role: 'system', content: 'Two.' },
        { role: 'user', content: 'Tell Ada about {{topic}}.' },
      ],
    });
    const bare = await post(`/v1/rollouts/resolve/${t.templateId}`);
    expect(bare.body.messages[1].content).toBe('Tell {{name}} about {{topic}}.');
    const empty = await post('/v1/prompts', { name: 'empty' });
    expectTypedError(await post(`/v1/rollouts/resolve/${empty.body.id}`), 409, 'conflict_error');
  });
});

describe('rollouts', () => {
  it('creates a rollout with default criteria; a second on the template is a 409', async () => {
    const t = await template('weights', 'Stable.', 'Canary.');
    const res = await post('/v1/rollouts', { templateId: t.templateId, canaryVersionId: t.canary, rolloutPct: 30 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      status: 'active',
      stableVersionId: t.stable,
      canaryVersionId: t.canary,
      rolloutPct: 30,
      criteria: { min_samples: 20, window_hours: 24, max_avg_score_delta: 0.25 },
    });
    ids.rollout = res.body.id;
    expectTypedError(
      await post('/v1/rollouts', { templateId: t.templateId, canaryVersionId: t.canary, rolloutPct: 10 }),
      409,
      'conflict_error',
    );
    expectTypedError(await post(`/v1/prompts/${t.templateId}/versions/${t.canary}/publish`), 409, 'conflict_error');
    for (const bad of [0, 100, -5]) {
      expectTypedError(
        await post('/v1/rollouts', { templateId: t.templateId, canaryVersionId: t.canary, rolloutPct: bad }),
        400,
        'invalid_request_error',
      );
    }
    expectTypedError(
      await post('/v1/rollouts', { templateId: t.templateId, canaryVersionId: t.stable, rolloutPct: 10 }),
      400,
      'invalid_request_error',
    );

    // Weighted choice: 30% canary; 200 resolves land within a bound that cannot flake (>6 sd).
    let canary = 0;
    for (let i = 0; i < 200; i++) {
      const r = await post(`/v1/rollouts/resolve/${t.templateId}`);
      expect(r.body.rolloutId).toBe(res.body.id);
      if (r.body.variant === 'canary') {
        canary++;
        expect(r.body.versionId).toBe(t.canary);
      } else expect(r.body).toMatchObject({ variant: 'stable', versionId: t.stable });
    }
    expect(canary).toBeGreaterThan(20);
    expect(canary).toBeLessThan(100);
  });

  it('the job promotes a canary that scores within the delta, from feedback on prompt_version_id calls', async () => {
    const t = await template('promote-me', 'Stable.', 'Canary.');
    const ro = await post('/v1/rollouts', {
      templateId: t.templateId,
      canaryVersionId: t.canary,
      rolloutPct: 50,
      criteria: { min_samples: 3, max_avg_score_delta: 0.5 },
    });
    expect(ro.status).toBe(200);
    // Stable 4, 4, 4 (avg 4); canary 5, 4, 3 (avg 4): delta 0 >= -0.5.
    for (const s of [4, 4, 4]) await ratedCall(t.stable, s);
    for (const s of [5, 4]) await ratedCall(t.canary, s);
    // Two canary samples of three: the job waits.
    let run = await post('/v1/admin/scheduler/jobs/prompt-rollout-eval/run');
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    expect((await get(`/v1/rollouts/${ro.body.id}`)).body).toMatchObject({
      status: 'active',
      stable: { versionId: t.stable, samples: 3, avgScore: 4 },
      canary: { versionId: t.canary, samples: 2, avgScore: 4.5 },
    });
    await ratedCall(t.canary, 3);
    run = await post('/v1/admin/scheduler/jobs/prompt-rollout-eval/run');
    expect(run.body.outcome).toBe('succeeded');
    const detail = (await get(`/v1/rollouts/${ro.body.id}`)).body;
    expect(detail.status).toBe('promoted');
    expect(detail.canary).toMatchObject({ samples: 3, avgScore: 4 });
    expect(detail.completionReason).toMatch(/delta 0\.00 within -0\.5/);
    const tpl = (await get(`/v1/prompts/${t.templateId}`)).body;
    expect(tpl.publishedVersionId).toBe(t.canary);
    const resolved = await post(`/v1/rollouts/resolve/${t.templateId}`);
    expect(resolved.body).toEqual({ versionId: t.canary, messages: sys('Canary.') });
  });

  it('the job reverts a canary that scores worse than the delta allows', async () => {
    const t = await template('revert-me', 'Stable.', 'Canary.');
    const ro = await post('/v1/rollouts', {
      templateId: t.templateId,
      canaryVersionId: t.canary,
      rolloutPct: 50,
      criteria: { min_samples: 2, max_avg_score_delta: 0.5, window_hours: 1 },
    });
    // Stable 5, 4 (avg 4.5); canary 4, 3 (avg 3.5): delta -1 < -0.5.
    for (const s of [5, 4]) await ratedCall(t.stable, s);
    for (const s of [4, 3]) await ratedCall(t.canary, s);
    const run = await post('/v1/admin/scheduler/jobs/prompt-rollout-eval/run');
    expect(run.body.outcome).toBe('succeeded');
    const detail = (await get(`/v1/rollouts/${ro.body.id}`)).body;
    expect(detail.status).toBe('reverted');
    expect(detail.completionReason).toMatch(/delta -1\.00 below -0\.5/);
    const tpl = (await get(`/v1/prompts/${t.templateId}`)).body;
    expect(tpl.publishedVersionId).toBe(t.stable);
    expect(tpl.versions.find((v: any) => v.id === t.canary).status).toBe('rejected');
    const history = (await get('/v1/rollouts?status=reverted')).body.items;
    expect(history.map((r: any) => r.id)).toContain(ro.body.id);
  });

  it('manual promote and revert bypass the criteria; an ended rollout answers 409', async () => {
    const a = await template('manual-a', 'S.', 'C.');
    const ra = await post('/v1/rollouts', { templateId: a.templateId, canaryVersionId: a.canary, rolloutPct: 5 });
    const promoted = await post(`/v1/rollouts/${ra.body.id}/promote`);
    expect(promoted.body).toMatchObject({ status: 'promoted', completionReason: 'promoted manually' });
    expect((await get(`/v1/prompts/${a.templateId}`)).body.publishedVersionId).toBe(a.canary);
    expectTypedError(await post(`/v1/rollouts/${ra.body.id}/revert`), 409, 'conflict_error');

    const b = await template('manual-b', 'S.', 'C.');
    const rb = await post('/v1/rollouts', { templateId: b.templateId, canaryVersionId: b.canary, rolloutPct: 5 });
    const reverted = await post(`/v1/rollouts/${rb.body.id}/revert`);
    expect(reverted.body).toMatchObject({ status: 'reverted', completionReason: 'reverted manually' });
    expect((await get(`/v1/prompts/${b.templateId}`)).body.publishedVersionId).toBe(b.stable);
    // A new rollout may start once the last one ended.
    const again = await post('/v1/rollouts', { templateId: b.templateId, canaryVersionId: b.canary, rolloutPct: 5 });
    expect(again.status).toBe(200);
    const audit = await get('/v1/audit-logs?limit=100');
    const actions = audit.body.items.map((e: any) => e.action);
    expect(actions).toEqual(
      expect.arrayContaining(['rollout.create', 'rollout.promote', 'rollout.revert', 'prompt.create']),
    );
  });

  it('a template with an active rollout cannot be deleted; without one it goes with its versions', async () => {
    const t = await template('deletable', 'S.', 'C.');
    const ro = await post('/v1/rollouts', { templateId: t.templateId, canaryVersionId: t.canary, rolloutPct: 5 });
    expectTypedError(
      await c.env.http('DELETE', `/v1/prompts/${t.templateId}`, { token: c.tenant.token }),
      409,
      'conflict_error',
    );
    await post(`/v1/rollouts/${ro.body.id}/revert`);
    const del = await c.env.http('DELETE', `/v1/prompts/${t.templateId}`, { token: c.tenant.token });
    expect(del.body).toEqual({ id: t.templateId, deleted: true });
    expectTypedError(await get(`/v1/prompts/${t.templateId}`), 404, 'not_found_error');
    expectTypedError(await get(`/v1/rollouts/${ro.body.id}`), 404, 'not_found_error');
    const left = await c.query('select 1 from prompt_versions where template_id = $1', [t.templateId]);
    expect(left).toHaveLength(0);
  });

  it('rollouts are free tier', async () => {
    const free = await c.env.createTenant('free');
    const t = await post('/v1/prompts', { name: 'free', messages: sys('x') }, free.token);
    expect(t.status).toBe(200);
    const v = await post(`/v1/prompts/${t.body.id}/versions`, { messages: sys('y') }, free.token);
    const r = await post(
      '/v1/rollouts',
      { templateId: t.body.id, canaryVersionId: v.body.id, rolloutPct: 50 },
      free.token,
    );
    expect(r.status).toBe(200);
  });
});

describe('OpenAPI', () => {
  it('describes every prompts and rollouts path', async () => {
    const { paths } = (await c.env.http('GET', '/openapi.json')).body;
    for (const [path, methods] of Object.entries({
      '/v1/prompts': ['get', 'post'],
      '/v1/prompts/{id}': ['get', 'delete'],
      '/v1/prompts/{id}/versions': ['get', 'post'],
      '/v1/prompts/{id}/versions/{versionId}/publish': ['post'],
      '/v1/rollouts': ['get', 'post'],
      '/v1/rollouts/{id}': ['get'],
      '/v1/rollouts/resolve/{templateId}': ['post'],
      '/v1/rollouts/{id}/promote': ['post'],
      '/v1/rollouts/{id}/revert': ['post'],
    }))
      expect(Object.keys(paths[path] ?? {}), path).toEqual(expect.arrayContaining(methods));
  });
});

describe('security', () => {
  const ctx = (): SecurityContext => ({ owner: c.tenant, other, ids });
  securityMatrix(() => c.env, ctx, [
    { method: 'GET', path: '/v1/prompts' },
    { method: 'POST', path: '/v1/prompts', body: { name: 'x' } },
    { method: 'GET', path: (x) => `/v1/prompts/${x.ids.template}` },
    { method: 'DELETE', path: (x) => `/v1/prompts/${x.ids.template}` },
    { method: 'GET', path: (x) => `/v1/prompts/${x.ids.template}/versions` },
    { method: 'POST', path: (x) => `/v1/prompts/${x.ids.template}/versions`, body: { messages: sys('x') } },
    { method: 'POST', path: (x) => `/v1/prompts/${x.ids.template}/versions/${x.ids.version}/publish` },
    { method: 'GET', path: '/v1/rollouts' },
    { method: 'POST', path: '/v1/rollouts', body: { templateId: 'pt_x', canaryVersionId: 'pv_x', rolloutPct: 5 } },
    { method: 'GET', path: (x) => `/v1/rollouts/${x.ids.rollout}` },
    { method: 'POST', path: (x) => `/v1/rollouts/resolve/${x.ids.template}` },
    { method: 'POST', path: (x) => `/v1/rollouts/${x.ids.rollout}/promote` },
    { method: 'POST', path: (x) => `/v1/rollouts/${x.ids.rollout}/revert` },
  ]);
  crossTenantMatrix(() => c.env, ctx, [
    { method: 'GET', path: (x) => `/v1/prompts/${x.ids.template}` },
    { method: 'DELETE', path: (x) => `/v1/prompts/${x.ids.template}` },
    { method: 'GET', path: (x) => `/v1/prompts/${x.ids.template}/versions` },
    { method: 'POST', path: (x) => `/v1/prompts/${x.ids.template}/versions`, body: { messages: sys('x') } },
    { method: 'POST', path: (x) => `/v1/prompts/${x.ids.template}/versions/${x.ids.version}/publish` },
    { method: 'GET', path: (x) => `/v1/rollouts/${x.ids.rollout}` },
    { method: 'POST', path: (x) => `/v1/rollouts/resolve/${x.ids.template}` },
    { method: 'POST', path: (x) => `/v1/rollouts/${x.ids.rollout}/promote` },
    { method: 'POST', path: (x) => `/v1/rollouts/${x.ids.rollout}/revert` },
  ]);
  it("another tenant's template or version in a rollout body answers 404, and lists are empty", async () => {
    const res = await post(
      '/v1/rollouts',
      { templateId: ids.template, canaryVersionId: ids.version, rolloutPct: 5 },
      other.token,
    );
    expectTypedError(res, 404, 'not_found_error');
    expect((await get('/v1/prompts', other.token)).body.items).toEqual([]);
    expect((await get('/v1/rollouts', other.token)).body.items).toEqual([]);
  });
  it('only admin tokens change prompts and rollouts; any token resolves', async () => {
    const app = (await post('/v1/admin/tokens', { name: 'app' })).body.token;
    expectTypedError(await post('/v1/prompts', { name: 'nope' }, app), 403, 'permission_error');
    expectTypedError(await post(`/v1/rollouts/${ids.rollout}/promote`, {}, app), 403, 'permission_error');
    expect((await post(`/v1/rollouts/resolve/${ids.template}`, {}, app)).status).toBe(200);
  });
});
