import { DEFAULT_SCHEDULES, JOB_NAMES, type JobDefinition } from '../../jobs/queues.js';
import type { CostMigrationService } from './service.js';

/** What the cost-migrations job needs of the gateway (services.ts provides it). */
export interface CostMigrationJobDeps {
  costMigrations: Pick<CostMigrationService, 'cycle'>;
}

/** Daily: a migration cycle for every workspace that opted in (the others are skipped at once). */
export const costMigrationsJob: JobDefinition<CostMigrationJobDeps> = {
  name: JOB_NAMES.costMigrations,
  description: 'Migrates cells to cheaper models of the same judged quality; rolls back those that fall in grace',
  schedule: DEFAULT_SCHEDULES['cost-migrations'],
  async handler(ctx, { tenantId }) {
    const r = await ctx.services.costMigrations.cycle(tenantId);
    return {
      summary: `migrated ${r.migrated.length}, rolled back ${r.rolledBack.length}, grace ended ${r.graceEnded.length}`,
    };
  },
};
