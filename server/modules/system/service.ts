import type { z } from 'zod';
import type pg from 'pg';
import { isDatabaseReachable } from '../../db/client.js';
import type { Health } from './schemas.js';
import { VERSION } from '../../version.js';

export class SystemService {
  private readonly startedAt = Date.now();

  constructor(
    private readonly pool: pg.Pool,
    private readonly mode: 'single' | 'multi',
  ) {}

  async health(): Promise<z.infer<typeof Health>> {
    const reachable = await isDatabaseReachable(this.pool);
    return {
      status: reachable ? 'ok' : 'degraded',
      mode: this.mode,
      version: VERSION,
      database: { reachable },
      uptimeSeconds: Math.round((Date.now() - this.startedAt) / 1000),
    };
  }
}
