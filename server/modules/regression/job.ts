import { DEFAULT_SCHEDULES, JOB_NAMES, type JobDefinition } from '../../jobs/queues.js';
import type { RegressionService } from './service.js';

/** What the regression-replay job needs of the gateway (services.ts provides it). */
export interface RegressionJobDeps {
  regression: Pick<RegressionService, 'replay'>;
}

/** Daily: replays a sample of each opted-in workspace's captured exchanges and opens regression events. */
export const regressionReplayJob: JobDefinition<RegressionJobDeps> = {
  name: JOB_NAMES.regressionReplay,
  description: 'Replays captured exchanges to the models routed today and opens an event where judged quality dropped',
  schedule: DEFAULT_SCHEDULES['regression-replay'],
  timeoutSeconds: 30 * 60,
  async handler(ctx, { tenantId }) {
    const r = await ctx.services.regression.replay(tenantId, ctx.signal);
    if (r.skipped) return { summary: r.skipped };
    return {
      summary: `replayed ${r.replayed}${r.failed ? ` (${r.failed} failed)` : ''}, opened ${r.opened.length} events`,
    };
  },
};
