import { z } from 'zod';
import type { Database } from '../db/client.js';
import type { Logger } from '../lib/logger.js';

// The job registry: every background job is one pg-boss queue of the same name, with a cron
// schedule, a description for the admin API, and a handler that runs for one workspace.

/** Jobs known across the gateway; handlers are registered by the modules that own them. */
export const JOB_NAMES = {
  logRetention: 'log-retention',
  autoAb: 'auto-ab',
  promptRolloutEval: 'prompt-rollout-eval',
  judge: 'judge',
  costMigrations: 'cost-migrations',
  regressionReplay: 'regression-replay',
} as const;

/** Default schedules (cron, UTC). */
export const DEFAULT_SCHEDULES = {
  'log-retention': '30 3 * * *',
  'auto-ab': '*/15 * * * *',
  'prompt-rollout-eval': '0 * * * *',
  'cost-migrations': '30 4 * * *',
  'regression-replay': '15 5 * * *',
} as const;

/** What goes on a queue: a scheduled run carries no tenant and fans out to every workspace. */
export const JobPayload = z.strictObject({ tenantId: z.string().min(1).optional() });
export type JobPayload = z.infer<typeof JobPayload>;

/** What a handler is called with: always exactly one workspace. */
export interface TenantJobPayload {
  tenantId: string;
}

export interface JobContext<S = unknown> {
  db: Database;
  /** Bound to the job name and workspace. */
  logger: Logger;
  /** The service container, for handlers that need more than the database. */
  services: S;
  /**
   * Fires when the run must stop: its time is up (a little before the job's timeout, after which
   * another node may take the run over) or the process is shutting down. A handler doing a series
   * of things checks it between them, and passes it to what it waits on.
   */
  signal: AbortSignal;
}

export interface JobResult {
  /** One line for the admin API, e.g. "created 1 test". */
  summary: string;
}

export interface JobDefinition<S = unknown> {
  name: string;
  description: string;
  /** Five-field cron in UTC; null runs the job only on demand or when enqueued. */
  schedule: string | null;
  /**
   * Longest one run may take (default 15 minutes). pg-boss gives up on the queued job after it,
   * and a "running" mark older than it counts as abandoned (a node that died mid-run).
   */
  timeoutSeconds?: number;
  handler: (ctx: JobContext<S>, payload: TenantJobPayload) => Promise<JobResult>;
}

export const DEFAULT_TIMEOUT_SECONDS = 15 * 60;

// pg-boss accepts letters, digits, '-', '_', '.' and '/'; we keep to a URL-safe subset because the
// name is a path segment of POST /v1/admin/scheduler/jobs/{name}/run.
const NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const CRON_FIELD = /^[0-9A-Za-z*/,?-]+$/;

export function isValidCron(expr: string): boolean {
  const fields = expr.trim().split(/\s+/);
  return fields.length === 5 && fields.every((f) => CRON_FIELD.test(f));
}

export class JobRegistry<S = unknown> {
  private readonly jobs = new Map<string, JobDefinition<S>>();
  private sealed = false;

  /** Add a job. Only before the runner starts: queues, workers and schedules are made at start. */
  register(job: JobDefinition<S>): this {
    if (this.sealed) throw new Error(`Job '${job.name}' registered after the job runner started`);
    if (!NAME.test(job.name))
      throw new Error(`Invalid job name '${job.name}' (lowercase letters, digits, '.', '_', '-')`);
    if (this.jobs.has(job.name)) throw new Error(`Job '${job.name}' is already registered`);
    if (job.schedule !== null && !isValidCron(job.schedule))
      throw new Error(`Job '${job.name}' has an invalid cron schedule '${job.schedule}'`);
    const timeout = job.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
    // pg-boss refuses expirations of a day or more.
    if (!Number.isInteger(timeout) || timeout < 1 || timeout >= 24 * 3600)
      throw new Error(`Job '${job.name}' timeoutSeconds must be 1..86399`);
    this.jobs.set(job.name, job);
    return this;
  }

  get(name: string): JobDefinition<S> | undefined {
    return this.jobs.get(name);
  }

  /** In registration order. */
  list(): JobDefinition<S>[] {
    return [...this.jobs.values()];
  }

  seal(): void {
    this.sealed = true;
  }
}
