import { DEFAULT_SCHEDULES, JOB_NAMES, type JobDefinition } from '../queues.js';
import { judgeSamplesRepository, requestLogRepository } from '../../gateway/repository.js';

export interface LogRetentionOptions {
  /** GATEWAY_RETENTION_DAYS: rows older than this many days are deleted; 0 keeps everything. */
  retentionDays: number;
  /** Cron (UTC); null runs it only on demand. */
  schedule?: string | null;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Deletes a workspace's request log and cost log rows older than the retention period. */
export function logRetentionJob(opts: LogRetentionOptions): JobDefinition {
  const days = opts.retentionDays;
  if (!Number.isInteger(days) || days < 0)
    throw new Error(`retentionDays must be a whole number of days >= 0 (got ${days})`);
  return {
    name: JOB_NAMES.logRetention,
    description:
      days > 0
        ? `Deletes request and cost log rows older than ${days} days`
        : 'Deletes old request and cost log rows (off: GATEWAY_RETENTION_DAYS=0 keeps everything)',
    schedule: opts.schedule === undefined ? DEFAULT_SCHEDULES['log-retention'] : opts.schedule,
    async handler({ db, signal }, { tenantId }) {
      if (days === 0) return { summary: 'retention is off (GATEWAY_RETENTION_DAYS=0): nothing deleted' };
      const cutoff = new Date(Date.now() - days * DAY_MS);
      const deletedRequests = await requestLogRepository.deleteRequestsBefore(db, tenantId, cutoff, signal);
      const deletedCosts = await requestLogRepository.deleteCostLogsBefore(db, tenantId, cutoff, signal);
      // Judge samples hold prompts: none outlives the retention period either.
      await judgeSamplesRepository.deleteBefore(db, tenantId, cutoff);
      // Told to stop (out of time, or shutting down) between batches: the next run goes on.
      const stopped = signal.aborted ? '; stopped before the end, the next run goes on' : '';
      return {
        summary: `deleted ${deletedRequests} requests and ${deletedCosts} cost log rows older than ${days} days${stopped}`,
      };
    },
  };
}
