import PgBoss from 'pg-boss';
import type pg from 'pg';
import type { Database } from '../db/client.js';
import type { JobRunRow } from '../db/schema/index.js';
import { GatewayError, notFound } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import { installCronCheck } from './cron-check.js';
import { JobExecutor } from './executor.js';
import { DEFAULT_TIMEOUT_SECONDS, JobPayload, type JobDefinition, type JobRegistry } from './queues.js';
import { jobRunsRepository } from './repository.js';

// Background jobs on pg-boss, in the gateway's own database (schema "pgboss"). Each registered job
// is a queue with a worker and, when it has one, a cron schedule. pg-boss makes a schedule fire
// once per slot and a queued job run on one node only, however many nodes are up.
//
// A scheduled run carries no tenant: its worker fans out one queued job per workspace, so
// workspaces are spread over nodes and each has its own timeout and its own job_runs row.

export interface JobRunnerOptions<S> {
  db: Database;
  /** pg-boss shares the gateway's pool instead of opening connections of its own. */
  pool: pg.Pool;
  logger: Logger;
  registry: JobRegistry<S>;
  /** The service container handed to handlers (read at run time). */
  services: () => S;
  /**
   * false (GATEWAY_JOBS=off): no pg-boss at all. Nothing fires on a schedule, enqueue() runs the
   * job in-process in the background, and manual runs work as usual.
   */
  enabled?: boolean;
  /** pg-boss's schema (default "pgboss"). */
  schema?: string;
  /** How often each worker polls its queue (pg-boss default 2). */
  pollingIntervalSeconds?: number;
  /** How often schedules are checked and fired (pg-boss defaults 30 and 5); tests tighten them. */
  cronMonitorIntervalSeconds?: number;
  cronWorkerIntervalSeconds?: number;
}

export interface JobInfo {
  name: string;
  description: string;
  schedule: string | null;
}

export interface StopOptions {
  /** Let running jobs finish (up to timeoutMs) rather than failing them at once. */
  graceful?: boolean;
  timeoutMs?: number;
}

type State = 'new' | 'started' | 'stopping' | 'stopped';

export class JobRunner<S = unknown> {
  readonly registry: JobRegistry<S>;
  private readonly executor: JobExecutor<S>;
  private boss: PgBoss | undefined;
  private state: State = 'new';

  constructor(private readonly opts: JobRunnerOptions<S>) {
    this.registry = opts.registry;
    this.executor = new JobExecutor({ db: opts.db, logger: opts.logger, services: opts.services });
  }

  /** Creates the queues, workers and schedules of every registered job. Call once the database is up. */
  async start(): Promise<void> {
    if (this.state !== 'new') return;
    this.state = 'started';
    this.registry.seal();
    if (this.opts.enabled === false) {
      this.opts.logger.info('background jobs are off (GATEWAY_JOBS=off): schedules will not fire on this node');
      return;
    }
    const { pool } = this.opts;
    installCronCheck();
    const boss = new PgBoss({
      db: { executeSql: (text, values) => pool.query(text, values) },
      schema: this.opts.schema ?? 'pgboss',
      ...defined({
        cronMonitorIntervalSeconds: this.opts.cronMonitorIntervalSeconds,
        cronWorkerIntervalSeconds: this.opts.cronWorkerIntervalSeconds,
      }),
    });
    // Without a listener an 'error' event (a failed poll while the database restarts) would crash the process.
    boss.on('error', (err) => this.opts.logger.warn({ err }, 'job queue error'));
    await boss.start();
    this.boss = boss;
    for (const job of this.registry.list()) await this.install(boss, job);
  }

  /** Stops schedules and workers, then waits for running jobs (queued and manual) to finish. */
  async stop({ graceful = true, timeoutMs = 30_000 }: StopOptions = {}): Promise<void> {
    if (this.state === 'stopping' || this.state === 'stopped') return;
    this.state = 'stopping';
    const deadline = Date.now() + timeoutMs;
    // Running handlers stop between their steps (and abort what they wait on) rather than be cut
    // when the pool closes under them.
    this.executor.abortAll();
    try {
      await this.boss?.stop({ graceful, wait: true, timeout: Math.max(1_000, timeoutMs) });
      if (graceful && !(await this.executor.drain(Math.max(0, deadline - Date.now())))) {
        this.opts.logger.warn('jobs still running at shutdown; they are left to the next run');
      }
    } finally {
      this.state = 'stopped';
    }
  }

  definitions(): JobInfo[] {
    return this.registry.list().map(({ name, description, schedule }) => ({ name, description, schedule }));
  }

  /**
   * Queues a run: for one workspace, or for all of them when the payload has no tenantId.
   * Resolves with the pg-boss job id (null when jobs are off and the run started in-process).
   */
  async enqueue(name: string, payload: JobPayload = {}): Promise<string | null> {
    const job = this.definition(name);
    const data = JobPayload.parse(payload);
    if (this.boss) return this.boss.send(name, data);
    this.assertOpen();
    const run = data.tenantId ? this.executor.runForTenant(job, data.tenantId) : this.executor.runForAllTenants(job);
    run.catch((err: unknown) => this.opts.logger.error({ err, job: name }, 'job run could not be recorded'));
    return null;
  }

  /**
   * Runs a job for one workspace now and resolves with the finished run's state.
   *
   * It runs in this process rather than through the queue, so the caller gets the outcome as soon
   * as the handler returns, whatever the polling intervals and even on a node with jobs off. The
   * running mark in job_runs keeps it from overlapping a queued run of the same job: 409 then.
   */
  async runNow(tenantId: string, name: string): Promise<JobRunRow> {
    const job = this.definition(name);
    this.assertOpen();
    const row = await this.executor.runForTenant(job, tenantId);
    if (!row) throw new GatewayError('conflict_error', `Job '${name}' is already running for this workspace`);
    return row;
  }

  private definition(name: string): JobDefinition<S> {
    const job = this.registry.get(name);
    if (!job) throw notFound('Job', name);
    return job;
  }

  private assertOpen(): void {
    if (this.state === 'stopping' || this.state === 'stopped')
      throw new GatewayError('service_unavailable', 'The gateway is shutting down');
  }

  private async install(boss: PgBoss, job: JobDefinition<S>): Promise<void> {
    // Failures inside a handler are recorded, not thrown, so pg-boss retries only infrastructure
    // errors (the database going away mid-run).
    const queue: PgBoss.Queue = {
      name: job.name,
      expireInSeconds: job.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
      retryLimit: 2,
      retryDelay: 30,
    };
    await boss.createQueue(job.name, queue);
    // createQueue leaves an existing queue alone: apply a changed timeout too.
    await boss.updateQueue(job.name, queue);
    await boss.work<unknown>(job.name, defined({ pollingIntervalSeconds: this.opts.pollingIntervalSeconds }), (batch) =>
      this.work(boss, job, batch),
    );
    // One schedule per queue name; a job whose schedule was removed must stop firing.
    if (job.schedule) await boss.schedule(job.name, job.schedule, {}, { tz: 'UTC' });
    else await boss.unschedule(job.name);
  }

  private async work(boss: PgBoss, job: JobDefinition<S>, batch: PgBoss.Job<unknown>[]): Promise<object | undefined> {
    let output: object | undefined;
    for (const queued of batch) {
      const { tenantId } = JobPayload.parse(queued.data ?? {});
      if (tenantId) {
        const row = await this.executor.runForTenant(job, tenantId);
        output = { tenantId, outcome: row?.outcome ?? 'skipped' };
      } else {
        const tenantIds = await jobRunsRepository.tenantIds(this.opts.db);
        if (tenantIds.length) await boss.insert(tenantIds.map((id) => ({ name: job.name, data: { tenantId: id } })));
        output = { fannedOut: tenantIds.length };
      }
    }
    return output;
  }
}

/** pg-boss asserts on keys that are present but undefined. */
function defined<T extends Record<string, unknown>>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Partial<T>;
}
