import { DEFAULT_SCHEDULES, JOB_NAMES, type JobDefinition } from '../../jobs/queues.js';
import type { RolloutService } from './rollout-service.js';

/** What the prompt-rollout-eval job needs of the gateway (services.ts provides it). */
export interface RolloutEvalDeps {
  rollouts: Pick<RolloutService, 'evaluate'>;
}

/**
 * Hourly: promotes each active prompt rollout whose arms both reached min_samples in the window
 * and whose canary scores no worse than stable by more than max_avg_score_delta, and reverts those
 * whose canary does. Also runnable at once: POST /v1/admin/scheduler/jobs/prompt-rollout-eval/run.
 */
export const promptRolloutEvalJob: JobDefinition<RolloutEvalDeps> = {
  name: JOB_NAMES.promptRolloutEval,
  description: 'Promotes or reverts prompt canary rollouts from the feedback on each arm',
  schedule: DEFAULT_SCHEDULES['prompt-rollout-eval'],
  async handler(ctx, { tenantId }) {
    const { promoted, reverted, waiting } = await ctx.services.rollouts.evaluate(tenantId, ctx.signal);
    return { summary: `${promoted} promoted, ${reverted} reverted, ${waiting} still collecting samples` };
  },
};
