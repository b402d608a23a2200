import type { JobDefinition } from '../../jobs/queues.js';
import { evalsRepository } from './repository.js';
import { type EvalRunDeps, executeRun } from './run-executor.js';

/** What the eval executor needs of the gateway (services.ts provides it). */
export interface EvalRunsDeps extends EvalRunDeps {
  /** EvalService.kickIfPending: enqueues the executor again when a run is still queued. */
  evals: { kickIfPending(tenantId: string): Promise<unknown> };
}

export const EVAL_RUNS_JOB = 'eval-runs';
/** After a job run ends, how soon a run queued during its last moments is picked up. */
const FOLLOW_UP_MS = 1_000;

/**
 * The eval executor: runs the workspace's queued runs one after another, and resumes runs left
 * running by a node that stopped. POST /v1/evals/runs enqueues it at once; the schedule (every
 * minute) picks up anything else, such as a run interrupted by a restart.
 */
export const evalRunsJob: JobDefinition<EvalRunsDeps> = {
  name: EVAL_RUNS_JOB,
  description: 'Executes queued eval runs, and resumes runs a restart interrupted',
  schedule: '* * * * *',
  timeoutSeconds: 10 * 60,
  async handler(ctx, { tenantId }) {
    const ends: Record<string, number> = {};
    const seen = new Set<string>();
    for (;;) {
      if (ctx.signal.aborted) break;
      const next = (await evalsRepository.pendingRuns(ctx.db, tenantId)).find((r) => !seen.has(r.id));
      if (!next) break;
      seen.add(next.id);
      const end = await executeRun(ctx, tenantId, next.id);
      ends[end] = (ends[end] ?? 0) + 1;
    }
    // A run queued while this one was finishing found it still marked running, and was not
    // started: look again once the mark is gone.
    if (!ctx.signal.aborted) {
      setTimeout(() => void ctx.services.evals.kickIfPending(tenantId).catch(() => undefined), FOLLOW_UP_MS).unref();
    }
    const parts = Object.entries(ends).map(([end, n]) => `${n} ${end}`);
    return { summary: parts.length ? `eval runs: ${parts.join(', ')}` : 'no eval run waiting' };
  },
};
