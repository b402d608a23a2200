import { z } from 'zod';
import { rest } from '../../trpc/meta.js';

export const Health = z.object({
  status: z
    .enum(['ok', 'degraded'])
    .describe(
      'degraded when the database is unreachable or the log writer cannot commit (requests are still served; log rows are held in memory), or the rate-limit Redis is unreachable (each node then limits on its own)',
    ),
  mode: z.enum(['single', 'multi']).describe('single: one self-hosted workspace; multi: many tenants'),
  version: z.string(),
  database: z.object({ reachable: z.boolean() }),
  logs: z
    .object({
      queuedRows: z.number().int().describe('request and cost rows waiting to be committed'),
      failingForSeconds: z
        .number()
        .int()
        .nullable()
        .describe("how long the log writer's commits have failed, none succeeding since; null while they succeed"),
    })
    .describe("this node's log writer"),
  rateLimits: z
    .object({
      shared: z.boolean().describe('true when REDIS_URL shares token rate limits between nodes'),
      reachable: z
        .boolean()
        .nullable()
        .describe("whether this node's last exchange with Redis succeeded; null when not shared"),
    })
    .describe('where token rate limits are counted'),
  uptimeSeconds: z.number(),
});

export const healthMeta = rest('GET', '/health', 'System', 'Health check for load balancers (no authentication)', {
  public: true,
});
