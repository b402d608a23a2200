import type { Config } from './config.js';
import type { DbHandle } from './db/client.js';
import { DataPlane } from './gateway/data-plane.js';
import type { Logger } from './lib/logger.js';
import { cheapestTarget } from './gateway/routing/targets.js';
import { AbTestService } from './modules/ab-tests/service.js';
import { AuditService } from './modules/audit/service.js';
import { FeedbackService } from './modules/feedback/service.js';
import { ProvidersService } from './modules/providers/service.js';
import { SystemService } from './modules/system/service.js';
import { TenantService } from './modules/tenants/service.js';
import { Authenticator } from './modules/tokens/authenticator.js';
import { TokenService } from './modules/tokens/service.js';

// The service container: built once at start-up (and once per test app), handed to tRPC context
// and the hand-written HTTP routes. start() does the slow parts (provider discovery).
export interface Services {
  config: Config;
  logger: Logger;
  auth: Authenticator;
  audit: AuditService;
  tokens: TokenService;
  tenants: TenantService;
  system: SystemService;
  providers: ProvidersService;
  abTests: AbTestService;
  feedback: FeedbackService;
  dataPlane: DataPlane;
  start(): Promise<void>;
  close(): Promise<void>;
}

export function createServices(config: Config, database: DbHandle, logger: Logger): Services {
  const { db, pool } = database;
  const auth = new Authenticator({ db });
  const audit = new AuditService(db);
  const dataPlane = new DataPlane({ config, pool, logger, databaseUrl: database.url });
  const routingDeps = { db, pool, audit, registry: dataPlane.registry, routing: dataPlane.routing };
  return {
    config,
    logger,
    auth,
    audit,
    tokens: new TokenService(db, audit, auth),
    tenants: new TenantService(db),
    system: new SystemService(pool, config.GATEWAY_MODE),
    providers: new ProvidersService(db, dataPlane, audit),
    abTests: new AbTestService(routingDeps),
    feedback: new FeedbackService({
      ...routingDeps,
      logWriter: dataPlane.logWriter,
      minSamples: config.GATEWAY_MIN_SAMPLES,
      cheapestModel: () => cheapestTarget(dataPlane.registry),
    }),
    dataPlane,
    start: () => dataPlane.start(),
    async close() {
      await dataPlane.close();
      await auth.close();
    },
  };
}
