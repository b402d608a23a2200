import { z } from 'zod';
import { rest } from '../../trpc/meta.js';

export const Health = z.object({
  status: z
    .enum(['ok', 'degraded'])
    .describe('degraded when the database is unreachable (requests are still served; log rows are held in memory) or the rate-limit Redis is (each node then limits on its own)'),
  mode: z.enum(['single', 'multi']).describe('single: one self-hosted workspace; multi: many tenants'),
  version: z.string(),
  database: z.object({ reachable: z.boolean() }),
  rateLimits: z
    .object({
      shared: z.boolean().describe('true when REDIS_URL shares token rate limits between nodes'),
      reachable: z.boolean().nullable().describe("whether this node's last exchange with Redis succeeded; null when not shared"),
    })
    .describe('where token rate limits are counted'),
  uptimeSeconds: z.number(),
});

export const healthMeta = rest('GET', '/health', 'System', 'Health check for load balancers (no authentication)', { public: true });
