import type { JobDefinition } from '../../jobs/queues.js';
import type { Services } from '../../services.js';

/** Daily: deletes captured exchanges older than the workspace's capture retention. */
export const captureRetentionJob: JobDefinition<Services> = {
  name: 'capture-retention',
  description: "Deletes captured exchanges older than the workspace's capture retention",
  schedule: '45 3 * * *',
  async handler(ctx, { tenantId }) {
    const deleted = await ctx.services.captures.expire(tenantId);
    return { summary: `${deleted} captured exchanges expired` };
  },
};
