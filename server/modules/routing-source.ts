import type { Executor } from '../db/client.js';
import type { RoutingSource } from '../gateway/routing/state.js';
import { abTestsRepository } from './ab-tests/repository.js';
import { costMigrationsRepository } from './cost-migrations/repository.js';
import { feedbackRepository } from './feedback/repository.js';

/**
 * The routing state's reads (active A/B tests, feedback aggregates, judge settings), each from the
 * repository of the module that owns the table. The gateway core declares what it needs
 * (RoutingSource) and never imports a module; services.ts hands it this.
 */
export function routingSource(db: Executor): RoutingSource {
  return {
    activeAbTests: (tenantId) => abTestsRepository.routingActive(db, tenantId),
    quality: (tenantId, halfLifeDays) => feedbackRepository.routingQuality(db, tenantId, halfLifeDays),
    judges: (tenantId) => feedbackRepository.routingJudges(db, tenantId),
    costMigrations: (tenantId) => costMigrationsRepository.routingActive(db, tenantId),
  };
}
