import type { JobDefinition } from '../../jobs/queues.js';
import type { CaptureService } from './service.js';

/** What the capture-retention job needs of the gateway (services.ts provides it). */
export interface CaptureRetentionDeps {
  captures: Pick<CaptureService, 'expire'>;
}

/** Daily: deletes captured exchanges older than the workspace's capture retention. */
export const captureRetentionJob: JobDefinition<CaptureRetentionDeps> = {
  name: 'capture-retention',
  description: "Deletes captured exchanges older than the workspace's capture retention",
  schedule: '45 3 * * *',
  async handler(ctx, { tenantId }) {
    const deleted = await ctx.services.captures.expire(tenantId);
    return { summary: `${deleted} captured exchanges expired` };
  },
};
