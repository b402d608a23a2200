import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';
import { DAY_MS, SimClock } from '../../support/migration-month.js';

// Regression detection end to end: captured exchanges replayed to what the router picks today and
// judged against the original answers (the simulator's hidden per-cell qualities, with noise).
// gpt-4.1-nano serves qa/simple and degrades midway; gpt-4o serves qa/complex and stays as it was.

const clock = new SimClock();
const DEGRADES_AT = clock.start + 15 * DAY_MS;
const SIMPLE = '[cell one]';
const COMPLEX = '[cell two]';

let c: ChatEnv;
let admin: string;
const runReplay = () =>
  c.env.http('POST', '/v1/admin/scheduler/jobs/regression-replay/run', { token: admin, body: {} });

beforeAll(async () => {
  c = await startChatEnv({
    openaiOnly: true,
    sim: {
      models: { openai: ['gpt-4o', 'gpt-4.1-nano'] },
      cellQualities: [
        { model: 'gpt-4.1-nano', whenContains: SIMPLE, quality: 4.4 },
        { model: 'gpt-4.1-nano', whenContains: SIMPLE, quality: 2.4, from: DEGRADES_AT },
        { model: 'gpt-4o', whenContains: COMPLEX, quality: 4.3 },
      ],
      gradeNoise: 0.6,
      now: clock.now,
    },
    // No exploration: the router's pick per cell is its prior's (the cheap model on simple asks,
    // the large one on complex asks).
    env: { GATEWAY_EXPLORATION_RATE: '0', GATEWAY_REPLAY_SAMPLE_PER_CELL: '20', GATEWAY_REGRESSION_MIN_SAMPLES: '10' },
  });
  admin = c.tenant.token;
  await c.env.http('PUT', '/v1/captures/settings', { token: admin, body: { enabled: true, sampleRate: 1 } });
  await c.env.http('PUT', '/v1/feedback/judge/config', { token: admin, body: { model: 'openai/gpt-4o' } });
  const client = c.openai();
  for (let i = 0; i < 25; i++)
    for (const [marker, complexity] of [
      [SIMPLE, 'simple'],
      [COMPLEX, 'complex'],
    ] as const)
      await client.chat.completions.create({
        model: '',
        messages: [{ role: 'user', content: `Question ${i} ${marker}` }],
        routing_hint: 'qa',
        complexity_hint: complexity,
      } as never);
  await c.waitForCount('select count(*)::int n from captured_exchanges where tenant_id = $1', [c.tenant.tenantId], 50);
  // The bank joins captures to their request rows, which the log writer commits a moment later.
  await c.waitForCount('select count(*)::int n from requests where tenant_id = $1', [c.tenant.tenantId], 50);
}, 60_000);
afterAll(() => c.close());

describe('regression detection', () => {
  it('is off until the workspace opts in; the status shows the replay bank', async () => {
    const status = (await c.env.http('GET', '/v1/regression/status', { token: admin })).body;
    expect(status).toMatchObject({ enabled: false, captureEnabled: true, replayBankSize: 50, weeklyReplaySpendUsd: 0 });
    expect((await runReplay()).body.summary).toBe('not opted in');
    // A toggle without a body flips it.
    expect((await c.env.http('POST', '/v1/regression/opt-in', { token: admin })).body).toEqual({ enabled: true });
    expect((await c.env.http('POST', '/v1/regression/opt-in', { token: admin })).body).toEqual({ enabled: false });
    expect((await c.env.http('POST', '/v1/regression/opt-in', { token: admin, body: { enabled: true } })).body).toEqual(
      { enabled: true },
    );
  });

  it('opens no event while the models answer as they did', async () => {
    const run = await runReplay();
    expect(run.body).toMatchObject({ outcome: 'succeeded', summary: 'replayed 40, opened 0 events' });
    expect((await c.env.http('GET', '/v1/regression/events', { token: admin })).body.items).toEqual([]);
  });

  it('opens one event for the model that degraded, none for the stable one, and never touches routing scores', async () => {
    clock.advance(20 * DAY_MS);
    const run = await runReplay();
    expect(run.body).toMatchObject({ outcome: 'succeeded', summary: 'replayed 40, opened 1 events' });
    const events = (await c.env.http('GET', '/v1/regression/events?unresolvedOnly=true', { token: admin })).body.items;
    expect(events).toHaveLength(1);
    const [e] = events;
    expect(e).toMatchObject({
      taskType: 'qa',
      complexity: 'simple',
      provider: 'openai',
      model: 'gpt-4.1-nano',
      sampleCount: 20,
      severity: 'critical',
      resolved: false,
    });
    expect(e.scoreDelta).toBeLessThan(-1);
    expect(e.exampleRequestIds.length).toBeGreaterThan(0);
    // The examples are captured requests of the workspace.
    const known = await c.query(
      'select request_id from captured_exchanges where tenant_id = $1 and request_id = any($2)',
      [c.tenant.tenantId, e.exampleRequestIds],
    );
    expect(known).toHaveLength(e.exampleRequestIds.length);

    // Replays are the gateway's own calls: cost rows under replay-, no request rows, no feedback.
    // Two runs of 40 replays, each with its two grades (the log writer commits them in the background).
    await c.waitForCount(
      `select count(*)::int n from cost_logs where tenant_id = $1 and request_id like 'replay-%'`,
      [c.tenant.tenantId],
      2 * 40 * 3,
    );
    const [rows] = await c.query(
      `select (select count(*) from requests where tenant_id = $1)::int requests,
              (select count(*) from feedback where tenant_id = $1)::int feedback,
              (select count(*) from cost_logs where tenant_id = $1 and request_id like 'replay-%')::int replays,
              (select coalesce(sum(cost), 0) from cost_logs where tenant_id = $1 and request_id like 'replay-%')::float8 usd,
              (select count(*) from cost_logs where tenant_id = $1 and request_id like 'replay-%' and task_type is not null)::int celled`,
      [c.tenant.tenantId],
    );
    // Routed like the cell's traffic, but not counted as it (spend per cell leaves them out).
    expect(rows).toMatchObject({ requests: 50, feedback: 0, replays: 2 * 40 * 3, celled: 0 });
    expect(c.env.services.dataPlane.routing.feedbackCount(c.tenant.tenantId)).toBe(0);
    const status = (await c.env.http('GET', '/v1/regression/status', { token: admin })).body;
    expect(status.weeklyReplayCalls).toBe(240);
    expect(status.weeklyReplaySpendUsd).toBeCloseTo(rows.usd, 9);

    // Still unresolved: a second run does not raise it again.
    expect((await runReplay()).body.summary).toBe('replayed 40, opened 0 events');
  });

  it('resolves an event with a note, once', async () => {
    const [e] = (await c.env.http('GET', '/v1/regression/events', { token: admin })).body.items;
    // Another workspace's admin: the event does not exist there.
    const other = await c.env.createTenant();
    const foreign = await c.env.http('POST', `/v1/regression/events/${e.id}/resolve`, {
      token: other.token,
      body: { note: 'not mine' },
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.type).toBe('not_found_error');
    expect((await c.env.http('GET', '/v1/regression/events', { token: other.token })).body.items).toEqual([]);
    const noNote = await c.env.http('POST', `/v1/regression/events/${e.id}/resolve`, { token: admin, body: {} });
    expect(noNote.status).toBe(400);
    expect(noNote.body.error.type).toBe('invalid_request_error');
    const blank = await c.env.http('POST', `/v1/regression/events/${e.id}/resolve`, {
      token: admin,
      body: { note: '   ' },
    });
    expect(blank.status).toBe(400);
    const done = await c.env.http('POST', `/v1/regression/events/${e.id}/resolve`, {
      token: admin,
      body: { note: 'provider confirmed a bad deploy; pinned the previous snapshot' },
    });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({
      resolved: true,
      resolutionNote: 'provider confirmed a bad deploy; pinned the previous snapshot',
    });
    const again = await c.env.http('POST', `/v1/regression/events/${e.id}/resolve`, {
      token: admin,
      body: { note: 'x' },
    });
    expect(again.status).toBe(409);
    expect((await c.env.http('GET', '/v1/regression/events?unresolvedOnly=true', { token: admin })).body.items).toEqual(
      [],
    );
    expect((await c.env.http('GET', '/v1/regression/events', { token: admin })).body.items).toHaveLength(1);
    const unknown = await c.env.http('POST', '/v1/regression/events/reg_nope/resolve', {
      token: admin,
      body: { note: 'x' },
    });
    expect(unknown.status).toBe(404);
    const bad = await c.env.http('GET', '/v1/regression/events?unresolvedOnly=maybe', { token: admin });
    expect(bad.status).toBe(400);
    const audit = await c.query(
      `select action from audit_logs where tenant_id = $1 and target_type = 'regression_event'`,
      [c.tenant.tenantId],
    );
    expect(audit).toEqual([{ action: 'regression_event.resolve' }]);
  });
});
