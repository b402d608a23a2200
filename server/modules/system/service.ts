import type { z } from 'zod';
import type pg from 'pg';
import { isDatabaseReachable } from '../../db/client.js';
import type { Health } from './schemas.js';
import { VERSION } from '../../../contracts/version.js';

export class SystemService {
  private readonly startedAt = Date.now();

  constructor(
    private readonly pool: pg.Pool,
    private readonly mode: 'single' | 'multi',
    /** Whether the shared rate-limit store answered last time; undefined when limits are per process. */
    private readonly rateLimitStoreReachable?: () => boolean,
    /** The log writer's queue and since when its commits fail (undefined while they succeed). */
    private readonly logs?: () => { queuedRows: number; failingSince: number | undefined },
  ) {}

  async health(): Promise<z.infer<typeof Health>> {
    const reachable = await isDatabaseReachable(this.pool);
    const redis = this.rateLimitStoreReachable?.() ?? null;
    const logs = this.logs?.();
    const failingFor = logs?.failingSince === undefined ? null : Math.round((Date.now() - logs.failingSince) / 1000);
    return {
      status: reachable && redis !== false && failingFor === null ? 'ok' : 'degraded',
      mode: this.mode,
      version: VERSION,
      database: { reachable },
      logs: { queuedRows: logs?.queuedRows ?? 0, failingForSeconds: failingFor },
      rateLimits: { shared: redis !== null, reachable: redis },
      uptimeSeconds: Math.round((Date.now() - this.startedAt) / 1000),
    };
  }
}
