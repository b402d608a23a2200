import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import * as schema from '../../../server/db/schema/index.js';
import { RoutingState } from '../../../server/gateway/routing/state.js';
import { routingSource } from '../../../server/modules/routing-source.js';
import { newId, newTimeOrderedId } from '../../../server/lib/ids.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';
import type { TestTenant } from '../../support/harness.js';
import { expectTypedError, securityMatrix, type SecurityContext } from '../../support/security.js';

// Feedback: scores and thumbs, replacement, quality reports, judge configuration and the judge job.

let c: ChatEnv;
let other: TestTenant;
const ids: Record<string, string> = {};

beforeAll(async () => {
  c = await startChatEnv({
    env: { GATEWAY_EXPLORATION_RATE: '0' },
    sim: { modelQualities: { 'gpt-4o-mini': 4, 'gemini-2.0-flash': 2 } },
  });
  other = await c.env.createTenant();
  ids.request = await ask('openai/gpt-4o-mini', 'fixture');
});
afterAll(() => c.close());

async function ask(
  model: string,
  content: string,
  token = c.tenant.token,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const res = await c.env.http('POST', '/v1/chat/completions', {
    token,
    body: { model, messages: [{ role: 'user', content }], ...extra },
  });
  expect(res.status).toBe(200);
  return res.body._gateway.requestId;
}
const rate = (body: unknown, token = c.tenant.token) => c.env.http('POST', '/v1/feedback', { token, body });

describe('submitting feedback', () => {
  it('records a score at once after the call (the request row may still be queued)', async () => {
    const id = await ask('openai/gpt-4o-mini', `immediate ${Math.random()}`);
    const res = await rate({ requestId: id, score: 4, comment: 'good' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      requestId: id,
      score: 4,
      source: 'user',
      comment: 'good',
      provider: 'openai',
      model: 'gpt-4o-mini',
      taskType: null,
      complexity: null,
    });
  });

  it('maps thumbs to 5 and 1, and rating again replaces the score', async () => {
    const id = await ask('openai/gpt-4o-mini', `thumbs ${Math.random()}`);
    expect((await rate({ requestId: id, thumbs: 'up' })).body.score).toBe(5);
    expect((await rate({ requestId: id, thumbs: 'down' })).body.score).toBe(1);
    const list = await c.env.http('GET', `/v1/feedback?requestId=${id}`, { token: c.tenant.token });
    expect(list.body.items).toHaveLength(1);
    expect(list.body.items[0].score).toBe(1);
  });

  it('takes the request id as request_id (SPEC) as well as requestId', async () => {
    const id = await ask('openai/gpt-4o-mini', `snake ${Math.random()}`);
    const res = await rate({ request_id: id, score: 3 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ requestId: id, score: 3, source: 'user' });
    // Both, naming the same request, are fine; the score is replaced as usual.
    const both = await rate({ requestId: id, request_id: id, thumbs: 'up' });
    expect(both.status).toBe(200);
    expect(both.body.score).toBe(5);
    const list = await c.env.http('GET', `/v1/feedback?requestId=${id}`, { token: c.tenant.token });
    expect(list.body.items).toHaveLength(1);
    // A foreign id under either name is a 404.
    expectTypedError(await rate({ request_id: id, score: 2 }, other.token), 404, 'not_found_error');
  });

  it.each([
    ['neither name', { score: 3 }, 'requestId'],
    ['two different ids', { requestId: 'req_a', request_id: 'req_b', score: 3 }, 'request_id'],
    ['an empty request_id', { request_id: '', score: 3 }, 'request_id'],
  ])('refuses a request id given by %s with 400 naming the field', async (_what, body, field) => {
    const res = await rate(body);
    expectTypedError(res, 400, 'invalid_request_error');
    expect(res.body.error.message).toContain(`${field}:`);
  });

  it('copies the routing cell of routed requests', async () => {
    const id = await ask('', `cell ${Math.random()}`, c.tenant.token, {
      routing_hint: 'qa',
      complexity_hint: 'simple',
    });
    const res = await rate({ requestId: id, score: 3 });
    expect(res.body).toMatchObject({ taskType: 'qa', complexity: 'simple' });
  });

  it("answers 404 for unknown ids and for another tenant's requests", async () => {
    expectTypedError(await rate({ requestId: 'req_doesnotexist', score: 3 }), 404, 'not_found_error');
    expectTypedError(await rate({ requestId: ids.request, score: 3 }, other.token), 404, 'not_found_error');
  });

  it('refuses a score for a failed call (409: no model answered), and takes one for a call the client left', async () => {
    c.sim.setFaults([{ format: 'openai', model: 'gpt-4o-mini', status: 400, times: 1 }]);
    const failed = await c.env.http('POST', '/v1/chat/completions', {
      token: c.tenant.token,
      body: { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: `fails ${Math.random()}` }] },
    });
    expect(failed.status).toBe(400);
    const failedId = failed.headers.get('x-gateway-request-id')!;
    expect(failedId).toMatch(/^req_/);
    // Rated at once: the row may still be queued in the log writer.
    const res = await rate({ requestId: failedId, score: 1 });
    expectTypedError(res, 409, 'conflict_error');
    expect(res.body.error.message).toContain('no answer to score');
    expect(await c.query(`SELECT 1 FROM feedback WHERE request_id = $1`, [failedId])).toHaveLength(0);

    await c.query(`UPDATE requests SET status = 'client_closed', error_type = 'client_closed' WHERE id = $1`, [
      ids.request,
    ]);
    expect((await rate({ requestId: ids.request, score: 2 })).status).toBe(200);
    await c.query(`UPDATE requests SET status = 'ok', error_type = NULL WHERE id = $1`, [ids.request]);
  });

  it('never leaves a score counted in the rollups for a request deleted beside it (log retention): it waits, then 404', async () => {
    const t = await c.env.createTenant();
    const id = await ask('openai/gpt-4o-mini', `deleted beside ${Math.random()}`, t.token);
    await c.waitForCount('select count(*) n from requests where id = $1', [id], 1);
    const deleting = new pg.Client({ connectionString: c.env.databaseUrl });
    await deleting.connect();
    try {
      await deleting.query('BEGIN');
      await deleting.query('DELETE FROM requests WHERE id = $1', [id]);
      const rated = rate({ requestId: id, score: 5 }, t.token);
      await new Promise((r) => setTimeout(r, 300));
      await deleting.query('COMMIT');
      expectTypedError(await rated, 404, 'not_found_error');
    } finally {
      await deleting.end();
    }
    const [hourly] = await c.query(
      'select coalesce(sum(feedback_count), 0)::int n from analytics_request_hourly where tenant_id = $1',
      [t.tenantId],
    );
    expect(hourly.n).toBe(0);
    expect(await c.query('select 1 from feedback where request_id = $1', [id])).toHaveLength(0);
  });

  it('waits for at most a few made-up recent ids of a workspace at once: beyond, an unknown id is a 404 at once', async () => {
    const t = await c.env.createTenant();
    const recent = () => newTimeOrderedId('req');
    const order: string[] = [];
    const waiting = Array.from({ length: 8 }, (_, i) =>
      rate({ requestId: recent(), score: 3 }, t.token).then((r) => (order.push(`waited ${i}`), r)),
    );
    // Until the eight are all waiting on the gateway (a fixed pause was too short on a busy machine).
    const feedback = c.env.services.feedback as unknown as { pendingWaits: Map<string, number> };
    for (let i = 0; i < 500 && (feedback.pendingWaits.get(t.tenantId) ?? 0) < 8; i++)
      await new Promise((r) => setTimeout(r, 10));
    const refused = await rate({ requestId: recent(), score: 3 }, t.token).then((r) => (order.push('at once'), r));
    expectTypedError(refused, 404, 'not_found_error');
    for (const res of await Promise.all(waiting)) expectTypedError(res, 404, 'not_found_error');
    expect(order[0]).toBe('at once');
  });

  it('answers more than 20 procedure calls in one /trpc batch with a 400', async () => {
    const calls = Array.from({ length: 21 }, () => 'feedback.list').join(',');
    const input = encodeURIComponent(
      JSON.stringify(Object.fromEntries(Array.from({ length: 21 }, (_, i) => [i, { json: {} }]))),
    );
    const res = await fetch(`${c.env.baseUrl}/trpc/${calls}?batch=1&input=${input}`, {
      headers: { authorization: `Bearer ${c.tenant.token}` },
    });
    expect(res.status).toBe(400);
    const ok = await fetch(`${c.env.baseUrl}/trpc/${calls.split(',').slice(0, 20).join(',')}?batch=1&input=${input}`, {
      headers: { authorization: `Bearer ${c.tenant.token}` },
    });
    expect(ok.status).toBe(200);
  });

  it.each([
    [{ requestId: 'x', score: 6 }, 'score'],
    [{ requestId: 'x', score: 0 }, 'score'],
    [{ requestId: 'x', score: 2.5 }, 'score'],
    [{ requestId: 'x' }, 'score'],
    [{ requestId: 'x', score: 3, thumbs: 'up' }, 'score'],
    [{ requestId: 'x', thumbs: 'sideways' }, 'thumbs'],
    [{ score: 3 }, 'requestId'],
    [{ requestId: `req_${'x'.repeat(200)}`, score: 3 }, 'requestId'],
  ])('rejects %j with 400', async (body, field) => {
    const res = await rate(body);
    expectTypedError(res, 400, 'invalid_request_error');
    expect(res.body.error.message).toContain(field);
  });
});

describe('quality reports', () => {
  it('by model, by cell and over time', async () => {
    const t = await c.env.createTenant();
    const a = await ask('openai/gpt-4o-mini', 'q1', t.token);
    const b = await ask('openai/gpt-4o-mini', 'q2', t.token);
    const g = await ask('', 'q3', t.token, { routing_hint: 'coding', complexity_hint: 'complex' });
    await rate({ requestId: a, score: 5 }, t.token);
    await rate({ requestId: b, score: 2 }, t.token);
    await rate({ requestId: g, score: 4 }, t.token);

    const byModel = await c.env.http('GET', '/v1/feedback/quality/by-model', { token: t.token });
    const mini = byModel.body.items.find((r: any) => r.model === 'gpt-4o-mini');
    expect(mini).toMatchObject({ provider: 'openai', avgScore: 3.5, feedbackCount: 2, userCount: 2, judgeCount: 0 });

    const byCell = await c.env.http('GET', '/v1/feedback/quality/by-cell', { token: t.token });
    // Only the routed request has a cell.
    expect(byCell.body.items).toHaveLength(1);
    expect(byCell.body.items[0]).toMatchObject({
      taskType: 'coding',
      complexity: 'complex',
      avgScore: 4,
      feedbackCount: 1,
    });
    expect(byCell.body.minSamples).toBe(10);

    const trend = await c.env.http('GET', '/v1/feedback/quality/trend?range=7d', { token: t.token });
    expect(trend.body.bucket).toBe('day');
    expect(trend.body.points.length).toBeGreaterThanOrEqual(7);
    const today = trend.body.points[trend.body.points.length - 1];
    expect(today).toMatchObject({ feedbackCount: 3 });
    expect(today.avgScore).toBeCloseTo(11 / 3, 10);
    expectTypedError(
      await c.env.http('GET', '/v1/feedback/quality/trend?range=1y', { token: t.token }),
      400,
      'invalid_request_error',
    );

    // One model's trend, named either way; another model's has nothing.
    const countFor = async (query: string) => {
      const res = await c.env.http('GET', `/v1/feedback/quality/trend?range=7d&${query}`, { token: t.token });
      expect(res.status).toBe(200);
      return res.body.points.reduce((n: number, p: { feedbackCount: number }) => n + p.feedbackCount, 0);
    };
    expect(await countFor('provider=openai&model=gpt-4o-mini')).toBe(2);
    expect(await countFor('model=openai/gpt-4o-mini')).toBe(2);
    expect(await countFor('model=openai/gpt-4o')).toBe(0);
  });

  it('trend: the window starts at now minus the range, its first partial bucket included', async () => {
    const t = await c.env.createTenant();
    const id = await ask('openai/gpt-4o-mini', 'rated a day ago', t.token);
    expect((await rate({ requestId: id, score: 4 }, t.token)).status).toBe(200);
    const counted = async () => {
      const trend = await c.env.http('GET', '/v1/feedback/quality/trend?range=24h', { token: t.token });
      return trend.body.points.reduce((n: number, p: { feedbackCount: number }) => n + p.feedbackCount, 0);
    };
    await c.query("update feedback set created_at = now() - interval '23 hours 50 minutes' where request_id = $1", [
      id,
    ]);
    expect(await counted()).toBe(1);
    await c.query("update feedback set created_at = now() - interval '24 hours 10 minutes' where request_id = $1", [
      id,
    ]);
    expect(await counted()).toBe(0);
  });

  it('pages through feedback with a cursor', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await c.env.http('GET', `/v1/feedback?limit=2${cursor ? `&cursor=${cursor}` : ''}`, {
        token: c.tenant.token,
      });
      seen.push(...page.body.items.map((f: any) => f.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    const all = await c.env.http('GET', '/v1/feedback?limit=500', { token: c.tenant.token });
    expect(seen).toEqual(all.body.items.map((f: any) => f.id));
  });
});

describe('paging', () => {
  it('walks feedback written within one millisecond exactly once each (the cursor keeps microseconds)', async () => {
    const t = await c.env.createTenant();
    const rows = [
      ['fb_m1', '2024-05-01T00:00:00.123100Z'],
      ['fb_m2', '2024-05-01T00:00:00.123200Z'],
      ['fb_m3', '2024-05-01T00:00:00.123300Z'],
      ['fb_m0', '2024-05-01T00:00:00.123300Z'],
    ];
    for (const [id, createdAt] of rows) {
      await c.query(
        `insert into feedback (id, tenant_id, request_id, score, source, created_at) values ($1, $2, $3, 4, 'user', $4)`,
        [id, t.tenantId, `req_${id}`, createdAt],
      );
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await c.env.http('GET', `/v1/feedback?limit=1${cursor ? `&cursor=${cursor}` : ''}`, {
        token: t.token,
      });
      seen.push(...page.body.items.map((f: any) => f.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(['fb_m3', 'fb_m0', 'fb_m2', 'fb_m1']);
  });

  it.each([
    ['a NUL in requestId', { requestId: 'req\u0000x', score: 3 }, 'requestId'],
    ['a NUL in comment', { requestId: 'req_x', score: 3, comment: 'a\u0000' }, 'comment'],
    ['an unknown field', { requestId: 'req_x', score: 3, rating: 5 }, 'rating'],
  ])('rejects %s with 400 naming the field', async (_what, body, field) => {
    const res = await rate(body);
    expectTypedError(res, 400, 'invalid_request_error');
    expect(res.body.error.message).toContain(`${field}:`);
  });

  it.each([
    ['/v1/feedback?requestId=a%00b', 'requestId'],
    ['/v1/feedback/quality/trend?provider=a%00b', 'provider'],
    [`/v1/feedback?cursor=${Buffer.from('0000-01-01T00:00:00Z|x').toString('base64url')}`, 'cursor'],
    [`/v1/feedback?cursor=${Buffer.from('+275760-09-13T00:00:00.000Z|x').toString('base64url')}`, 'cursor'],
  ])('GET %s answers 400', async (path, field) => {
    const res = await c.env.http('GET', path, { token: c.tenant.token });
    expectTypedError(res, 400, 'invalid_request_error');
    expect(res.body.error.message).toContain(field);
  });
});

describe('LLM judge', () => {
  it('has a configuration with a default grader, changed by admins and audited', async () => {
    const initial = await c.env.http('GET', '/v1/feedback/judge/config', { token: c.tenant.token });
    expect(initial.body).toMatchObject({ enabled: false, model: null, sampleRate: 0.05 });
    expect(initial.body.effectiveModel).toMatch(/\//);

    const put = await c.env.http('PUT', '/v1/feedback/judge/config', {
      token: c.tenant.token,
      body: { enabled: true, model: 'openai/gpt-4.1-nano', sampleRate: 1 },
    });
    expect(put.body).toMatchObject({
      enabled: true,
      model: 'openai/gpt-4.1-nano',
      sampleRate: 1,
      effectiveModel: 'openai/gpt-4.1-nano',
    });
    const audit = await c.env.http('GET', '/v1/audit-logs?action=judge_config.update', { token: c.tenant.token });
    expect(audit.body.items[0].after).toMatchObject({ enabled: true, sampleRate: 1 });

    expectTypedError(
      await c.env.http('PUT', '/v1/feedback/judge/config', { token: c.tenant.token, body: { sampleRate: 2 } }),
      400,
      'invalid_request_error',
    );
    const member = await c.env.http('POST', '/v1/admin/tokens', { token: c.tenant.token, body: { name: 'member' } });
    expect(
      (await c.env.http('PUT', '/v1/feedback/judge/config', { token: member.body.token, body: { enabled: false } }))
        .status,
    ).toBe(403);
  });

  it('keeps no sample (they hold whole prompts) once the judge is switched off', async () => {
    const t = await c.env.createTenant();
    await c.env.http('PUT', '/v1/feedback/judge/config', {
      token: t.token,
      body: { enabled: true, model: 'openai/gpt-4.1-nano', sampleRate: 1 },
    });
    await ask('openai/gpt-4o-mini', `sampled, then not judged ${Math.random()}`, t.token);
    await c.waitForCount('select count(*) n from judge_samples where tenant_id = $1', [t.tenantId], 1);
    await c.env.http('PUT', '/v1/feedback/judge/config', { token: t.token, body: { enabled: false } });
    const run = await c.env.http('POST', '/v1/admin/scheduler/jobs/judge/run', { token: t.token, body: {} });
    expect(run.body).toMatchObject({ outcome: 'succeeded', summary: 'judge disabled; 1 queued samples removed' });
    await c.waitForCount('select count(*) n from judge_samples where tenant_id = $1', [t.tenantId], 0);
  });

  it('reports a run whose every grading call failed as failed, with the reason, and keeps the samples', async () => {
    const t = await c.env.createTenant();
    await c.env.http('PUT', '/v1/feedback/judge/config', {
      token: t.token,
      body: { enabled: true, model: 'openai/gpt-4.1-nano', sampleRate: 1 },
    });
    await ask('openai/gpt-4o-mini', `judge me, if you can ${Math.random()}`, t.token);
    await c.waitForCount('select count(*) n from judge_samples where tenant_id = $1', [t.tenantId], 1);
    // The grader and every model it could fall back to refuse.
    c.sim.setFaults([{ status: 500 }]);
    try {
      const run = await c.env.http('POST', '/v1/admin/scheduler/jobs/judge/run', { token: t.token, body: {} });
      expect(run.body).toMatchObject({ name: 'judge', outcome: 'failed' });
      expect(run.body.error).toContain('every judge call failed');
    } finally {
      c.sim.clearFaults();
      for (const p of Object.keys(c.env.services.dataPlane.breakers.snapshot()))
        c.env.services.dataPlane.breakers.reset(p);
    }
    await c.waitForCount('select count(*) n from judge_samples where tenant_id = $1', [t.tenantId], 1);
  });

  it('grades sampled live traffic through the gateway and records judge feedback', async () => {
    const t = await c.env.createTenant();
    await c.env.http('PUT', '/v1/feedback/judge/config', {
      token: t.token,
      body: { enabled: true, model: 'openai/gpt-4.1-nano', sampleRate: 1 },
    });
    const good = await ask('openai/gpt-4o-mini', 'judge me well', t.token);
    const poor = await ask('gemini/gemini-2.0-flash', 'judge me poorly', t.token);
    await c.waitForCount('select count(*) n from judge_samples where tenant_id = $1', [t.tenantId], 2);

    const run = await c.env.http('POST', '/v1/admin/scheduler/jobs/judge/run', { token: t.token, body: {} });
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ name: 'judge', outcome: 'succeeded' });
    expect(run.body.summary).toContain('graded 2');

    const fb = await c.env.http('GET', '/v1/feedback?source=judge', { token: t.token });
    const scores = Object.fromEntries(fb.body.items.map((f: any) => [f.requestId, f.score]));
    expect(scores).toEqual({ [good]: 4, [poor]: 2 });
    // The judge's own calls cost money but are not traffic: cost rows only.
    await c.waitForCount(
      'select count(*) n from cost_logs where tenant_id = $1 and request_id like $2',
      [t.tenantId, 'judge-%'],
      2,
    );
    const reqs = await c.query('select count(*)::int n from requests where tenant_id = $1', [t.tenantId]);
    expect(reqs[0].n).toBe(2);
    await c.waitForCount('select count(*) n from judge_samples where tenant_id = $1', [t.tenantId], 0);
  });

  it('stores the sample of a prompt holding NUL or a lone surrogate (which jsonb refuses), with them replaced', async () => {
    const t = await c.env.createTenant();
    await c.env.http('PUT', '/v1/feedback/judge/config', {
      token: t.token,
      body: { enabled: true, model: 'openai/gpt-4.1-nano', sampleRate: 1 },
    });
    const id = await ask('openai/gpt-4o-mini', 'nul \u0000 and lone \ud800 here', t.token);
    await c.waitForCount('select count(*) n from judge_samples where tenant_id = $1', [t.tenantId], 1);
    const [sample] = await c.query('select request_id, prompt from judge_samples where tenant_id = $1', [t.tenantId]);
    expect(sample).toEqual({ request_id: id, prompt: [{ role: 'user', content: 'nul  and lone \ufffd here' }] });
  });

  it('gives a reasoning model as grader room to think instead of a 16-token limit', async () => {
    const t = await c.env.createTenant();
    await c.env.http('PUT', '/v1/feedback/judge/config', {
      token: t.token,
      body: { enabled: true, model: 'openai/o3-mini', sampleRate: 1 },
    });
    await ask('openai/gpt-4o-mini', 'judge me with a reasoning model', t.token);
    await c.waitForCount('select count(*) n from judge_samples where tenant_id = $1', [t.tenantId], 1);
    const run = await c.env.http('POST', '/v1/admin/scheduler/jobs/judge/run', { token: t.token, body: {} });
    expect(run.body.summary).toContain('graded 1');
    const graded = c.sim.requests
      .filter((r) => (r.body as { model?: string } | undefined)?.model === 'o3-mini')
      .at(-1)!.body;
    expect(graded).toMatchObject({ max_completion_tokens: 1024, reasoning_effort: 'low' });
    expect(graded).not.toHaveProperty('temperature');
  });
});

describe('user and judge scores in routing', () => {
  it("counts one score per request, the user's over the judge's, in memory and in the database alike", async () => {
    const t = await c.env.createTenant();
    const routed = async (content: string) => {
      const res = await c.env.http('POST', '/v1/chat/completions', {
        token: t.token,
        body: {
          model: '',
          messages: [{ role: 'user', content }],
          routing_hint: 'qa',
          complexity_hint: 'simple',
          cache: false,
        },
      });
      await c.waitForCount('select count(*) n from requests where id = $1', [res.body._gateway.requestId], 1);
      return res.body._gateway as { requestId: string; provider: string; model: string };
    };
    const first = await routed('graded and rated');
    const second = await routed('graded only');
    const judge = (requestId: string, score: number) =>
      c.env.services.feedback.record(t.tenantId, requestId, score, 'judge', null);
    const routing = c.env.services.dataPlane.routing;
    const counted = () => {
      const all = [...(routing.cellQuality(t.tenantId, 'qa', 'simple')?.values() ?? [])];
      // Rounded: a score weighs a hair under 1 once a moment old (the feedback half-life).
      const round = (x: number) => Math.round(x * 1000) / 1000;
      return { count: round(all.reduce((n, s) => n + s.count, 0)), sum: round(all.reduce((n, s) => n + s.sum, 0)) };
    };

    await judge(first.requestId, 1);
    expect(counted()).toEqual({ count: 1, sum: 1 });
    // The user's score takes the grade's place...
    await c.env.http('POST', '/v1/feedback', { token: t.token, body: { requestId: first.requestId, score: 5 } });
    expect(counted()).toEqual({ count: 1, sum: 5 });
    // ...and a later grade of the same answer changes nothing.
    await judge(first.requestId, 2);
    expect(counted()).toEqual({ count: 1, sum: 5 });
    // A request only the judge graded counts its grade.
    await judge(second.requestId, 3);
    expect(counted()).toEqual({ count: 2, sum: 8 });
    // What another node loads from the database agrees (both rows are kept, one counts).
    await routing.reloadTenant(t.tenantId);
    expect(counted()).toEqual({ count: 2, sum: 8 });
    const [rows] = await c.query('select count(*)::int n from feedback where tenant_id = $1', [t.tenantId]);
    expect(rows.n).toBe(3);
  });
});

describe('concurrent scores for one request', () => {
  it('count once in routing memory, as in the database', async () => {
    const t = await c.env.createTenant();
    const res = await c.env.http('POST', '/v1/chat/completions', {
      token: t.token,
      body: {
        model: '',
        messages: [{ role: 'user', content: 'rated six times at once' }],
        routing_hint: 'qa',
        complexity_hint: 'simple',
        cache: false,
      },
    });
    const id = res.body._gateway.requestId;
    await c.waitForCount('select count(*) n from requests where id = $1', [id], 1);
    const answers = await Promise.all(
      [5, 4, 5, 3, 5, 2].map((score) =>
        c.env.http('POST', '/v1/feedback', { token: t.token, body: { requestId: id, score } }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    // Read before the reload the scores announce (250 ms later) could repair anything.
    const stat = c.env.services.dataPlane.routing
      .cellQuality(t.tenantId, 'qa', 'simple')!
      .get(`${res.body._gateway.provider}/${res.body._gateway.model}`)!;
    const [row] = await c.query('select score from feedback where tenant_id = $1 and request_id = $2', [
      t.tenantId,
      id,
    ]);
    expect(stat.scores).toBe(1);
    // Close, not equal: on a loaded machine the announced reload may already have run, and it
    // weighs the score by its age (a half-life of days: a millionth off after a second).
    expect(stat.sum).toBeCloseTo(row.score, 4);
  });
});

describe('feedback half-life in routing', () => {
  it('weighs a score 0.5^(age / half-life): old scores fade, and with a half-life of 0 none does', async () => {
    const t = await c.env.createTenant();
    const insert = (score: number, ageDays: number) =>
      c.query(
        `insert into feedback (id, tenant_id, request_id, score, source, provider, model, task_type, complexity, created_at, updated_at)
         values ($1, $2, $3, $4, 'user', 'openai', 'gpt-4o-mini', 'qa', 'simple', now() - make_interval(days => $5), now() - make_interval(days => $5))`,
        [newId('fb'), t.tenantId, newId('req'), score, ageDays],
      );
    for (let i = 0; i < 4; i++) await insert(1, 60);
    await insert(5, 0);
    const routing = c.env.services.dataPlane.routing;
    await routing.reloadTenant(t.tenantId);
    // The default half-life is 30 days: the four 60-day-old scores weigh a quarter each.
    const stat = routing.cellQuality(t.tenantId, 'qa', 'simple')!.get('openai/gpt-4o-mini')!;
    expect(stat.count).toBeCloseTo(2, 3);
    expect(stat.sum).toBeCloseTo(6, 3);
    expect(stat.scores).toBe(5);
    expect(routing.feedbackCount(t.tenantId)).toBe(5);

    const pool = new pg.Pool({ connectionString: c.env.databaseUrl, max: 1 });
    try {
      const undecayed = new RoutingState(routingSource(drizzle(pool, { schema })), c.env.services.logger, undefined, 0);
      await undecayed.reloadTenant(t.tenantId);
      expect(undecayed.cellQuality(t.tenantId, 'qa', 'simple')!.get('openai/gpt-4o-mini')).toEqual({
        count: 5,
        sum: 9,
        scores: 5,
      });
    } finally {
      await pool.end();
    }
  });
});

describe('security', () => {
  const ctx = (): SecurityContext => ({ owner: c.tenant, other, ids });
  securityMatrix(() => c.env, ctx, [
    { method: 'POST', path: '/v1/feedback', body: { requestId: 'x', score: 3 } },
    { method: 'GET', path: '/v1/feedback' },
    { method: 'GET', path: '/v1/feedback/quality/by-model' },
    { method: 'GET', path: '/v1/feedback/quality/by-cell' },
    { method: 'GET', path: '/v1/feedback/quality/trend' },
    { method: 'GET', path: '/v1/feedback/judge/config' },
    { method: 'PUT', path: '/v1/feedback/judge/config', body: { enabled: false } },
  ]);
  it("another tenant sees none of this tenant's feedback", async () => {
    await rate({ requestId: ids.request, score: 5 });
    const theirs = await c.env.http('GET', '/v1/feedback', { token: other.token });
    expect(theirs.body.items).toEqual([]);
  });
});
