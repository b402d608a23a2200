import type { Database } from '../db/client.js';
import type { JobRunRow } from '../db/schema/index.js';
import type { Logger } from '../lib/logger.js';
import { DEFAULT_TIMEOUT_SECONDS, type JobDefinition } from './queues.js';
import { jobRunsRepository, type RunEnd } from './repository.js';

// Runs one job for one workspace and records it in job_runs, whichever way it was triggered
// (a pg-boss worker, a manual run, an in-process enqueue). Handler failures are recorded, not
// thrown: job_runs is where an operator looks, and the next scheduled run is the retry.

const MAX_TEXT = 2_000;

/** What job_runs keeps of a failure: the message only, never a stack, bounded in size. */
export function errorMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : typeof err === 'string' ? err : 'unknown error';
  return clip(message || (err instanceof Error ? err.name : 'unknown error'));
}

function clip(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text;
}

export interface JobExecutorOptions<S> {
  db: Database;
  logger: Logger;
  /** Read at run time: the container holding the runner is still being built when it is made. */
  services: () => S;
}

export interface FanOutResult {
  succeeded: number;
  failed: number;
  /** Workspaces where a run was already in progress. */
  skipped: number;
}

/** How much of a job's timeout a run may use: it stops before another node may take the run over. */
const RUN_SHARE_OF_TIMEOUT = 0.8;

export class JobExecutor<S = unknown> {
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Stops every run in progress (shutdown). */
  private readonly stopping = new AbortController();

  constructor(private readonly opts: JobExecutorOptions<S>) {}

  /** The finished run's state, or null when a run of this job is already in progress for the workspace. */
  runForTenant(job: JobDefinition<S>, tenantId: string): Promise<JobRunRow | null> {
    return this.track(this.execute(job, tenantId));
  }

  /** Every workspace in turn; one workspace failing does not stop the others. */
  runForAllTenants(job: JobDefinition<S>): Promise<FanOutResult> {
    return this.track(this.runEach(job));
  }

  /** Tells every run in progress to stop (their handlers see their signal fire). */
  abortAll(): void {
    this.stopping.abort(new Error('the gateway is shutting down'));
  }

  /** Waits for runs in progress, up to timeoutMs. True when none is left. */
  async drain(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.inFlight.size > 0) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise((resolve) => (timer = setTimeout(resolve, left)));
      await Promise.race([Promise.allSettled([...this.inFlight]), timeout]);
      clearTimeout(timer);
    }
    return true;
  }

  private track<T>(run: Promise<T>): Promise<T> {
    this.inFlight.add(run);
    void run.finally(() => this.inFlight.delete(run)).catch(() => undefined);
    return run;
  }

  private async runEach(job: JobDefinition<S>): Promise<FanOutResult> {
    const result: FanOutResult = { succeeded: 0, failed: 0, skipped: 0 };
    for (const tenantId of await jobRunsRepository.tenantIds(this.opts.db)) {
      const row = await this.execute(job, tenantId);
      if (!row) result.skipped++;
      else if (row.outcome === 'succeeded') result.succeeded++;
      else result.failed++;
    }
    return result;
  }

  private async execute(job: JobDefinition<S>, tenantId: string): Promise<JobRunRow | null> {
    const { db } = this.opts;
    const logger = this.opts.logger.child({ job: job.name, tenantId });
    const timeoutSeconds = job.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
    const startedAt = await jobRunsRepository.start(db, tenantId, job.name, timeoutSeconds);
    if (!startedAt) {
      logger.info('job already running for this workspace; skipped');
      return null;
    }
    const signal = AbortSignal.any([
      this.stopping.signal,
      AbortSignal.timeout(timeoutSeconds * 1000 * RUN_SHARE_OF_TIMEOUT),
    ]);
    let end: RunEnd;
    try {
      const { summary } = await job.handler({ db, logger, services: this.opts.services(), signal }, { tenantId });
      logger.info({ summary }, 'job succeeded');
      end = { outcome: 'succeeded', summary: clip(summary), error: null };
    } catch (err) {
      logger.warn({ err }, 'job failed');
      end = { outcome: 'failed', summary: null, error: errorMessage(err) };
    }
    return jobRunsRepository.finish(db, tenantId, job.name, startedAt, end);
  }
}
