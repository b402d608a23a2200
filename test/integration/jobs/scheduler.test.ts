import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import { count, eq } from 'drizzle-orm';
import { createOpenApiNodeHttpHandler } from 'trpc-to-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../server/app.js';
import { costLogs, requests } from '../../../server/db/schema/index.js';
import { JobRunner } from '../../../server/jobs/boss.js';
import { logRetentionJob } from '../../../server/jobs/handlers/log-retention.js';
import { JobRegistry } from '../../../server/jobs/queues.js';
import { jobRunsRepository } from '../../../server/jobs/repository.js';
import { errorBody } from '../../../server/lib/errors.js';
import { newId } from '../../../server/lib/ids.js';
import { createLogger } from '../../../server/lib/logger.js';
import { schedulerRouter } from '../../../server/modules/scheduler/router.js';
import { SchedulerService } from '../../../server/modules/scheduler/service.js';
import type { Services } from '../../../server/services.js';
import { makeContextFactory } from '../../../server/trpc/context.js';
import { toGatewayError } from '../../../server/trpc/errors.js';
import { router } from '../../../server/trpc/init.js';
import { httpClient, startTestEnv, type TestEnv, type TestTenant } from '../../support/harness.js';
import { expectTypedError, securityMatrix, type SecurityContext } from '../../support/security.js';

// Jobs on a real pg-boss in the test database, and the scheduler API over real HTTP. The app under
// test is the real one with the scheduler's REST routes in front, on a container that has the
// job runner and scheduler service in it.

const DAY_MS = 24 * 60 * 60 * 1000;
const silent = createLogger('silent');

let env: TestEnv;
let api: TestEnv;
let server: Server;
let owner: TestTenant;
let other: TestTenant;
let runner: JobRunner<Services>;

/** The 'slow' job waits on this gate; tests re-arm it. */
let gate = deferred();
const seenServices: unknown[] = [];

function deferred(): { promise: Promise<void>; release(): void } {
  let release!: () => void;
  const promise = new Promise<void>((r) => (release = r));
  return { promise, release };
}

async function waitFor<T>(probe: () => Promise<T | undefined | null | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

const runOf = (tenantId: string, name: string) => jobRunsRepository.get(env.database.db, tenantId, name);

/** A job handler that runs until its signal fires, then reports `summary`. */
async function untilToldToStop(signal: AbortSignal, summary: string): Promise<{ summary: string }> {
  if (!signal.aborted) await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
  return { summary };
}

function testRegistry(): JobRegistry<Services> {
  return new JobRegistry<Services>()
    .register(logRetentionJob({ retentionDays: 30, schedule: null }))
    .register({
      name: 'echo',
      description: 'Says hello to the workspace',
      schedule: null,
      async handler(ctx, { tenantId }) {
        seenServices.push(ctx.services);
        return { summary: `hello ${tenantId}` };
      },
    })
    .register({
      name: 'explode',
      description: 'Always fails',
      // Never due during a test run, so only manual runs touch it.
      schedule: '0 0 1 1 *',
      async handler() {
        throw new Error('upstream said no');
      },
    })
    .register({
      name: 'bounded',
      description: 'Runs until its signal says its time is up',
      schedule: null,
      timeoutSeconds: 1,
      handler: (ctx) => untilToldToStop(ctx.signal, 'stopped at its deadline'),
    })
    .register({
      name: 'cancellable',
      description: 'Waits until it is told to stop',
      schedule: null,
      handler: (ctx) => untilToldToStop(ctx.signal, 'told to stop'),
    })
    .register({
      name: 'slow',
      description: 'Waits for the test to let it finish',
      schedule: null,
      async handler() {
        await gate.promise;
        return { summary: 'slow done' };
      },
    });
}

/** The scheduler's REST routes, with the error body rewriting of server/http/rest.ts. */
function schedulerRest(services: Services) {
  const failures = new WeakMap<object, unknown>();
  const handler = createOpenApiNodeHttpHandler({
    router: router({ scheduler: schedulerRouter }),
    createContext: makeContextFactory(services),
    onError: ({ error, req }) => void failures.set(req, error),
    responseMeta: ({ errors }) => (errors[0] ? { status: toGatewayError(errors[0]).status } : {}),
  });
  return (req: Request, res: Response, next: NextFunction) => {
    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    (res as { end: unknown }).end = (...args: unknown[]) =>
      failures.has(req) ? end(JSON.stringify(errorBody(toGatewayError(failures.get(req))))) : end(...args);
    return handler(req, res, next);
  };
}

beforeAll(async () => {
  env = await startTestEnv();
  owner = await env.createTenant('team');
  other = await env.createTenant('team');

  runner = new JobRunner<Services>({
    db: env.database.db,
    pool: env.database.pool,
    logger: silent,
    registry: testRegistry(),
    services: () => services,
    pollingIntervalSeconds: 0.5,
  });
  const scheduler = new SchedulerService(env.database.db, runner, env.services.audit);
  const services = { ...env.services, jobs: runner, scheduler };
  await runner.start();

  const app = express();
  app.use(express.json());
  app.use(schedulerRest(services));
  app.use(createApp(services));
  server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  api = { ...env, baseUrl, http: httpClient(baseUrl) };
});

afterAll(async () => {
  gate.release();
  await runner?.stop({ graceful: true, timeoutMs: 5_000 });
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  await env?.close();
});

const ctx = (): SecurityContext => ({ owner, other, ids: {} });

describe('scheduler API', () => {
  it('lists every registered job, with nulls when it never ran in this workspace', async () => {
    const res = await api.http('GET', '/v1/admin/scheduler/jobs', { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.items.map((j: { name: string }) => j.name)).toEqual([
      'log-retention',
      'echo',
      'explode',
      'bounded',
      'cancellable',
      'slow',
    ]);
    expect(res.body.items[2]).toEqual({
      name: 'explode',
      description: 'Always fails',
      schedule: '0 0 1 1 *',
      lastStartedAt: null,
      lastFinishedAt: null,
      outcome: null,
      error: null,
      summary: null,
      runCount: 0,
    });
    expect(res.body.items[0].schedule).toBeNull();
    expect(res.body.items[0].description).toContain('30 days');
  });

  it('runs a job now: succeeded, its summary, an audit row, and the count going up', async () => {
    const res = await api.http('POST', '/v1/admin/scheduler/jobs/echo/run', { token: owner.token, body: {} });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      name: 'echo',
      outcome: 'succeeded',
      summary: `hello ${owner.tenantId}`,
      error: null,
      runCount: 1,
    });
    expect(Date.parse(res.body.lastFinishedAt)).toBeGreaterThanOrEqual(Date.parse(res.body.lastStartedAt));
    expect(seenServices.at(-1)).toHaveProperty('scheduler');

    const again = await api.http('POST', '/v1/admin/scheduler/jobs/echo/run', { token: owner.token, body: {} });
    expect(again.body.runCount).toBe(2);
    const list = await api.http('GET', '/v1/admin/scheduler/jobs', { token: owner.token });
    expect(list.body.items.find((j: { name: string }) => j.name === 'echo')).toEqual(again.body);

    const audit = await api.http('GET', '/v1/audit-logs?action=scheduler.run&limit=500', { token: owner.token });
    const rows = audit.body.items.filter((e: { targetId: string }) => e.targetId === 'echo');
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({
      action: 'scheduler.run',
      targetType: 'job',
      actor: { type: 'token', id: owner.tokenId },
      after: { outcome: 'succeeded', summary: `hello ${owner.tenantId}` },
    });
  });

  it('records a failing job as failed with its message (no stack), and audits it', async () => {
    const res = await api.http('POST', '/v1/admin/scheduler/jobs/explode/run', { token: owner.token, body: {} });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'explode',
      outcome: 'failed',
      error: 'upstream said no',
      summary: null,
      runCount: 1,
    });
    expect(res.body.lastFinishedAt).not.toBeNull();

    const audit = await api.http('GET', '/v1/audit-logs?action=scheduler.run&limit=500', { token: owner.token });
    expect(audit.body.items.find((e: { targetId: string }) => e.targetId === 'explode').after).toEqual({
      outcome: 'failed',
      summary: null,
      error: 'upstream said no',
    });
  });

  it('tells a run its time is up before another node may take it over', async () => {
    expect(await runner.runNow(owner.tenantId, 'bounded')).toMatchObject({
      outcome: 'succeeded',
      summary: 'stopped at its deadline',
    });
  });

  it('never lets a run that outlived its stale window overwrite the run that took it over', async () => {
    const db = env.database.db;
    const first = await jobRunsRepository.start(db, other.tenantId, 'takeover', 600);
    expect(first).not.toBeNull();
    expect(await jobRunsRepository.start(db, other.tenantId, 'takeover', 600)).toBeNull();
    // The first run outlives the stale window: another node takes the run over.
    await env.database.pool.query(
      `update job_runs set last_started_at = now() - interval '1 hour' where tenant_id = $1 and name = 'takeover'`,
      [other.tenantId],
    );
    const second = await jobRunsRepository.start(db, other.tenantId, 'takeover', 600);
    expect(second).not.toBeNull();
    // The first run ends: the row still says the second is running.
    expect(
      await jobRunsRepository.finish(db, other.tenantId, 'takeover', first!, {
        outcome: 'succeeded',
        summary: 'first',
        error: null,
      }),
    ).toMatchObject({ outcome: 'running' });
    expect(
      await jobRunsRepository.finish(db, other.tenantId, 'takeover', second!, {
        outcome: 'succeeded',
        summary: 'second',
        error: null,
      }),
    ).toMatchObject({ outcome: 'succeeded', summary: 'second' });
  });

  it('answers 404 not_found_error for an unknown job', async () => {
    const res = await api.http('POST', '/v1/admin/scheduler/jobs/no-such-job/run', { token: owner.token, body: {} });
    expectTypedError(res, 404, 'not_found_error');
    expect(res.body.error.message).toContain('no-such-job');
  });

  it('refuses a non-admin token with 403 permission_error', async () => {
    const member = await api.http('POST', '/v1/admin/tokens', { token: owner.token, body: { name: 'member' } });
    expectTypedError(
      await api.http('GET', '/v1/admin/scheduler/jobs', { token: member.body.token }),
      403,
      'permission_error',
    );
    expectTypedError(
      await api.http('POST', '/v1/admin/scheduler/jobs/echo/run', { token: member.body.token, body: {} }),
      403,
      'permission_error',
    );
  });

  it('shows each workspace only its own runs', async () => {
    await api.http('POST', '/v1/admin/scheduler/jobs/echo/run', { token: owner.token, body: {} });
    const theirs = await api.http('GET', '/v1/admin/scheduler/jobs', { token: other.token });
    const echo = theirs.body.items.find((j: { name: string }) => j.name === 'echo');
    expect(echo).toMatchObject({ outcome: null, runCount: 0, summary: null, lastStartedAt: null });

    const run = await api.http('POST', '/v1/admin/scheduler/jobs/echo/run', { token: other.token, body: {} });
    expect(run.body).toMatchObject({ summary: `hello ${other.tenantId}`, runCount: 1 });
    const mine = await api.http('GET', '/v1/admin/scheduler/jobs', { token: owner.token });
    expect(mine.body.items.find((j: { name: string }) => j.name === 'echo').summary).toBe(`hello ${owner.tenantId}`);

    const otherAudit = await api.http('GET', '/v1/audit-logs?action=scheduler.run&limit=500', { token: other.token });
    expect(otherAudit.body.items.map((e: { targetId: string }) => e.targetId)).toEqual(['echo']);
  });

  it('answers 409 conflict_error while the same job is already running for the workspace', async () => {
    gate = deferred();
    const first = runner.runNow(owner.tenantId, 'slow');
    await waitFor(async () => (await runOf(owner.tenantId, 'slow'))?.outcome === 'running');
    const listed = await api.http('GET', '/v1/admin/scheduler/jobs', { token: owner.token });
    expect(listed.body.items.find((j: { name: string }) => j.name === 'slow')).toMatchObject({
      outcome: 'running',
      lastFinishedAt: null,
    });

    expectTypedError(
      await api.http('POST', '/v1/admin/scheduler/jobs/slow/run', { token: owner.token, body: {} }),
      409,
      'conflict_error',
    );
    // Another workspace is not blocked.
    const elsewhere = api.http('POST', '/v1/admin/scheduler/jobs/slow/run', { token: other.token, body: {} });
    gate.release();
    expect((await first).outcome).toBe('succeeded');
    expect((await elsewhere).body).toMatchObject({ outcome: 'succeeded', summary: 'slow done' });
  });

  securityMatrix(() => api, ctx, [
    { method: 'GET', path: '/v1/admin/scheduler/jobs' },
    { method: 'POST', path: '/v1/admin/scheduler/jobs/echo/run', body: {} },
  ]);
});

describe('log-retention job', () => {
  async function seed(tenantId: string, ageDays: number, n: number): Promise<void> {
    const createdAt = new Date(Date.now() - ageDays * DAY_MS);
    for (let i = 0; i < n; i++) {
      const id = newId('req');
      await env.database.db
        .insert(requests)
        .values({ id, tenantId, createdAt, latencyMs: 5, routedBy: 'default', status: 'ok' });
      await env.database.db.insert(costLogs).values({
        tenantId,
        requestId: id,
        provider: 'openai',
        model: 'gpt-4o-mini',
        inputTokens: 1,
        outputTokens: 1,
        cost: 0.001,
        createdAt,
      });
    }
  }

  async function counts(tenantId: string) {
    const db = env.database.db;
    const [r] = await db.select({ n: count() }).from(requests).where(eq(requests.tenantId, tenantId));
    const [c] = await db.select({ n: count() }).from(costLogs).where(eq(costLogs.tenantId, tenantId));
    return { requests: r!.n, costLogs: c!.n };
  }

  it('deletes only rows older than the retention period, of only the workspace it runs for', async () => {
    await seed(owner.tenantId, 45, 3);
    await seed(owner.tenantId, 29, 2);
    await seed(other.tenantId, 45, 2);
    // Judge samples hold prompts: an old one goes too, a recent one and another workspace's stay.
    const sample = (tenantId: string, requestId: string, ageDays: number) =>
      env.database.pool.query(
        `insert into judge_samples (request_id, tenant_id, prompt, answer, created_at) values ($1, $2, '[]', 'a', now() - make_interval(days => $3))`,
        [requestId, tenantId, ageDays],
      );
    await sample(owner.tenantId, 'req_old_sample', 45);
    await sample(owner.tenantId, 'req_new_sample', 1);
    await sample(other.tenantId, 'req_other_sample', 45);

    const res = await api.http('POST', '/v1/admin/scheduler/jobs/log-retention/run', { token: owner.token, body: {} });
    expect(res.body).toMatchObject({
      outcome: 'succeeded',
      summary: 'deleted 3 requests and 3 cost log rows older than 30 days',
    });
    expect(await counts(owner.tenantId)).toEqual({ requests: 2, costLogs: 2 });
    expect(await counts(other.tenantId)).toEqual({ requests: 2, costLogs: 2 });
    const { rows } = await env.database.pool.query(
      `select request_id from judge_samples where request_id like 'req_%_sample' order by request_id`,
    );
    expect(rows.map((r: { request_id: string }) => r.request_id)).toEqual(['req_new_sample', 'req_other_sample']);
  });

  it('stops between batches when told to (out of time, or shutting down): the next run goes on', async () => {
    const job = logRetentionJob({ retentionDays: 30 });
    await seed(owner.tenantId, 40, 2);
    const told = new AbortController();
    told.abort();
    const result = await job.handler(
      { db: env.database.db, logger: silent, services: undefined, signal: told.signal },
      { tenantId: owner.tenantId },
    );
    expect(result.summary).toBe(
      'deleted 0 requests and 0 cost log rows older than 30 days; stopped before the end, the next run goes on',
    );
    expect(
      (
        await job.handler(
          { db: env.database.db, logger: silent, services: undefined, signal: new AbortController().signal },
          { tenantId: owner.tenantId },
        )
      ).summary,
    ).toMatch(/^deleted 2 requests and 2 cost log rows/);
  });

  it('keeps everything when the retention period is 0', async () => {
    const job = logRetentionJob({ retentionDays: 0 });
    expect(job.schedule).toBe('30 3 * * *');
    const result = await job.handler(
      { db: env.database.db, logger: silent, services: undefined, signal: new AbortController().signal },
      { tenantId: other.tenantId },
    );
    expect(result.summary).toMatch(/nothing deleted/);
    expect(await counts(other.tenantId)).toEqual({ requests: 2, costLogs: 2 });
  });
});

describe('queued runs', () => {
  it('runs a job queued for one workspace on the pg-boss worker', async () => {
    const before = (await runOf(other.tenantId, 'explode'))?.runCount ?? 0;
    const id = await runner.enqueue('explode', { tenantId: other.tenantId });
    expect(id).toEqual(expect.any(String));
    const row = await waitFor(async () => {
      const r = await runOf(other.tenantId, 'explode');
      return r && r.runCount > before && r.outcome !== 'running' ? r : undefined;
    });
    expect(row).toMatchObject({ outcome: 'failed', error: 'upstream said no' });
  });

  it('fans a run without a tenant out to every workspace, one job_runs row each', async () => {
    const third = await env.createTenant('free');
    const tenants = [owner, other, third];
    const before = await Promise.all(tenants.map(async (t) => (await runOf(t.tenantId, 'echo'))?.runCount ?? 0));
    await runner.enqueue('echo');
    for (const [i, t] of tenants.entries()) {
      const row = await waitFor(async () => {
        const r = await runOf(t.tenantId, 'echo');
        return r && r.runCount > before[i]! ? r : undefined;
      });
      expect(row).toMatchObject({ outcome: 'succeeded', summary: `hello ${t.tenantId}`, runCount: before[i]! + 1 });
    }
  });

  it('refuses unknown jobs and malformed payloads', async () => {
    await expect(runner.enqueue('no-such-job')).rejects.toMatchObject({ type: 'not_found_error' });
    await expect(runner.enqueue('echo', { tenantId: 42 } as never)).rejects.toThrow();
    await expect(runner.enqueue('echo', { tenant: 'x' } as never)).rejects.toThrow();
  });
});

describe('cron schedules', () => {
  it('fires a due schedule on its own and runs it for every workspace', async () => {
    // Its own pg-boss schema, so the every-minute schedule never touches the runner above.
    const cron = new JobRunner({
      db: env.database.db,
      pool: env.database.pool,
      logger: silent,
      schema: 'pgboss_cron_test',
      registry: new JobRegistry().register({
        name: 'tick',
        description: 'Every minute',
        schedule: '* * * * *',
        handler: async (_c, { tenantId }) => ({ summary: `tick ${tenantId}` }),
      }),
      services: () => undefined,
      pollingIntervalSeconds: 0.5,
      cronMonitorIntervalSeconds: 1,
      cronWorkerIntervalSeconds: 1,
    });
    await cron.start();
    try {
      for (const t of [owner, other]) {
        const row = await waitFor(async () => {
          const r = await runOf(t.tenantId, 'tick');
          return r?.outcome === 'succeeded' ? r : undefined;
        }, 25_000);
        // A run straddling a minute boundary may fire twice: at least once is what matters.
        expect(row.summary).toBe(`tick ${t.tenantId}`);
        expect(row.runCount).toBeGreaterThanOrEqual(1);
      }
    } finally {
      await cron.stop();
    }
  }, 40_000);
});

describe('shutdown', () => {
  it('lets a running queued job finish before stopping, then refuses new runs with 503', async () => {
    gate = deferred();
    const before = (await runOf(owner.tenantId, 'slow'))?.runCount ?? 0;
    await runner.enqueue('slow', { tenantId: owner.tenantId });
    await waitFor(async () => (await runOf(owner.tenantId, 'slow'))?.outcome === 'running');

    // A job that listens to its signal is told to stop as the shutdown begins.
    const cancellable = runner.runNow(owner.tenantId, 'cancellable');
    await waitFor(async () => (await runOf(owner.tenantId, 'cancellable'))?.outcome === 'running');

    const stopped = runner.stop({ graceful: true, timeoutMs: 10_000 });
    expect(await cancellable).toMatchObject({ outcome: 'succeeded', summary: 'told to stop' });
    gate.release();
    await stopped;
    expect(await runOf(owner.tenantId, 'slow')).toMatchObject({ outcome: 'succeeded', runCount: before + 1 });

    expectTypedError(
      await api.http('POST', '/v1/admin/scheduler/jobs/echo/run', { token: owner.token, body: {} }),
      503,
      'service_unavailable',
    );
  });
});
