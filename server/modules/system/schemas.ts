import { z } from 'zod';
import { rest } from '../../trpc/meta.js';

export const Health = z.object({
  status: z.enum(['ok', 'degraded']).describe('degraded when the database is unreachable (requests are still served; log rows are held in memory)'),
  mode: z.enum(['single', 'multi']).describe('single: one self-hosted workspace; multi: many tenants'),
  version: z.string(),
  database: z.object({ reachable: z.boolean() }),
  uptimeSeconds: z.number(),
});

export const healthMeta = rest('GET', '/health', 'System', 'Health check for load balancers (no authentication)', { public: true });
