import type { Config } from './config.js';
import type { DbHandle } from './db/client.js';
import { PgListener } from './db/listener.js';
import { RateLimiter } from './gateway/limits/rate-limiter.js';
import { RedisRateStore } from './gateway/limits/redis-rate-store.js';
import { SharedRateLimiter } from './gateway/limits/shared-rate-limiter.js';
import type { RateLimit } from './gateway/limits/sliding-window.js';
import { Metrics } from './metrics/registry.js';
import { DataPlane } from './gateway/data-plane.js';
import { requestLogRepository } from './gateway/repository.js';
import type { WorkspaceProviderConfig } from './gateway/workspace-providers.js';
import { startSimulator } from './simulator/index.js';
import { LiveBus } from './gateway/live-bus.js';
import { JobRunner } from './jobs/boss.js';
import { logRetentionJob } from './jobs/handlers/log-retention.js';
import { JobRegistry } from './jobs/queues.js';
import type { Logger } from './lib/logger.js';
import { autoAbJob } from './modules/ab-tests/auto-ab.js';
import { judgeJob } from './modules/feedback/judge-job.js';
import { SchedulerService } from './modules/scheduler/service.js';
import { cheapestTarget } from './gateway/routing/targets.js';
import { AbTestService } from './modules/ab-tests/service.js';
import { AnalyticsService } from './modules/analytics/service.js';
import { AuditService } from './modules/audit/service.js';
import { CacheService } from './modules/cache/service.js';
import { routingSource } from './modules/routing-source.js';
import { FeedbackService } from './modules/feedback/service.js';
import { ProvidersService } from './modules/providers/service.js';
import { SpendRepository } from './modules/spend/repository.js';
import { SpendService } from './modules/spend/service.js';
import { PricingService } from './modules/pricing/service.js';
import { SystemService } from './modules/system/service.js';
import { TenantService } from './modules/tenants/service.js';
import { Authenticator } from './modules/tokens/authenticator.js';
import { TokenService } from './modules/tokens/service.js';
import { GuardrailEventWriter } from './gateway/guardrails/events.js';
import { GuardrailGate } from './gateway/guardrails/gate.js';
import { GuardrailService } from './modules/guardrails/service.js';
import { BudgetService } from './modules/budgets/service.js';
import { QuotaGate } from './gateway/limits/quota-gate.js';
import { evalRunsJob } from './modules/evals/job.js';
import { EvalService } from './modules/evals/service.js';
import { PromptService } from './modules/prompts/service.js';
import { promptRolloutEvalJob } from './modules/prompts/rollout-job.js';
import { RolloutService } from './modules/prompts/rollout-service.js';
import { captureRetentionJob } from './modules/captures/job.js';
import { CaptureService } from './modules/captures/service.js';
import { costMigrationsJob } from './modules/cost-migrations/job.js';
import { CostMigrationService } from './modules/cost-migrations/service.js';
import { regressionReplayJob } from './modules/regression/job.js';
import { RegressionService } from './modules/regression/service.js';
import { createSignInModule, type SignInModule } from './modules/auth/sign-in-module.js';
import { TeamService } from './modules/team/service.js';
import { ProviderKeyService } from './modules/provider-keys/service.js';
import { keyringFromConfig } from './modules/provider-keys/keyring-config.js';
import { CustomProviderService } from './modules/custom-providers/service.js';
import { BillingService } from './modules/billing/service.js';
import { stripeFromConfig } from './modules/billing/stripe-client.js';

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
  /** Negotiated prices (per workspace and per deployment) over the list prices. */
  pricing: PricingService;
  abTests: AbTestService;
  feedback: FeedbackService;
  analytics: AnalyticsService;
  cache: CacheService;
  spend: SpendService;
  liveBus: LiveBus;
  /** The process's LISTEN connection (routing state, token changes, provider reloads, the live tap). */
  listener: PgListener;
  dataPlane: DataPlane;
  /** Per-token requests-per-minute limits: in memory, or shared through Redis (REDIS_URL). */
  rateLimits: RateLimit;
  /** Prometheus metrics (GET /metrics); null when GATEWAY_METRICS is off. */
  metrics: Metrics | null;
  jobs: JobRunner<Services>;
  scheduler: SchedulerService;
  /** Guardrail rules (control plane), the gate that runs them on calls, and the violation writer. */
  guardrails: GuardrailService;
  /** Workspace monthly budgets and the gate that enforces them on calls. */
  budgets: BudgetService;
  /** The free tier's monthly request quota. */
  quota: QuotaGate;
  evals: EvalService;
  prompts: PromptService;
  rollouts: RolloutService;
  captures: CaptureService;
  costMigrations: CostMigrationService;
  regression: RegressionService;
  /** Sign-in (multi-tenant mode), sessions, and the one request authenticator (bearer or session). */
  signIn: SignInModule;
  /** Members, roles and invitations. */
  team: TeamService;
  /** A workspace's own keys for built-in providers (sealed at rest, held opened by the data plane). */
  providerKeys: ProviderKeyService;
  /** A workspace's own OpenAI-, Anthropic- or Gemini-format providers. */
  customProviders: CustomProviderService;
  /** Multi mode: checkout, billing portal, and the tier following the payment provider's webhooks. */
  billing: BillingService;
  start(): Promise<void>;
  /** Stops taking jobs and waits for running ones (bounded); shutdown starts it beside the HTTP drain. Idempotent. */
  stopJobs(): Promise<void>;
  close(): Promise<void>;
}

export function createServices(config: Config, database: DbHandle, logger: Logger): Services {
  const { db, pool } = database;
  // One LISTEN connection for the process: routing state, token changes, provider reloads, the live tap.
  const listener = new PgListener(database.url, logger);
  const auth = new Authenticator({ db, listener });
  const audit = new AuditService(db);
  const liveBus = new LiveBus({ pool, listener, logger });
  const metrics = config.GATEWAY_METRICS ? new Metrics() : null;
  const dataPlane = new DataPlane({
    config,
    pool,
    db,
    routingSource: routingSource(db),
    logger,
    listener,
    onRequestsCommitted: (rows) => liveBus.publish(rows),
    onRowsQueued: metrics ? (r, c) => metrics.requests.observe(r, c) : undefined,
    onUpstreamFailure: metrics ? (f) => metrics.requests.countUpstreamFailure(f) : undefined,
    startSimulator: () => startSimulator(),
    workspaceProviderSource: {
      load: async (tenantId) => ({
        keys: await services.providerKeys.openKeys(tenantId),
        custom: await services.customProviders.openProviders(tenantId),
      }),
      loadAll: async () => {
        const [keys, custom] = await Promise.all([
          services.providerKeys.openAllKeys(),
          services.customProviders.openAllProviders(),
        ]);
        const all = new Map<string, WorkspaceProviderConfig>();
        for (const id of new Set([...keys.keys(), ...custom.keys()]))
          all.set(id, { keys: keys.get(id) ?? [], custom: custom.get(id) ?? [] });
        return all;
      },
    },
  });
  const keyring = keyringFromConfig(config);
  const workspaceProviderDeps = {
    db,
    audit,
    logger,
    keyring,
    allowPrivateUrls: config.GATEWAY_ALLOW_PRIVATE_PROVIDER_URLS,
    guardedDispatcher: () => dataPlane.guardedDispatcher,
    applied: async (tenantId: string) => dataPlane.workspaceProviders?.reload(tenantId),
  };
  const sharedRateLimits = config.REDIS_URL
    ? new SharedRateLimiter(
        new RedisRateStore(config.REDIS_URL, logger, Math.max(2 * config.GATEWAY_RATE_SYNC_MS, 500)),
        { syncMs: config.GATEWAY_RATE_SYNC_MS, logger },
      )
    : undefined;
  const rateLimitStoreReachable = sharedRateLimits && (() => sharedRateLimits.storeReachable);
  metrics?.watch({
    logWriter: dataPlane.logWriter,
    breakers: dataPlane.breakers,
    providers: () => dataPlane.registry.list().map((p) => p.name),
    rateLimitStoreReachable,
  });
  const routingDeps = {
    db,
    pool,
    audit,
    registry: dataPlane.registry,
    registryFor: (tenantId: string) => dataPlane.providersFor(tenantId).registry,
    routing: dataPlane.routing,
  };
  // Every job is registered here, before start() creates the queues, workers and schedules.
  const jobRegistry = new JobRegistry<Services>()
    .register(logRetentionJob({ retentionDays: config.GATEWAY_RETENTION_DAYS }))
    .register(autoAbJob(config.GATEWAY_MIN_SAMPLES))
    .register(judgeJob)
    .register(evalRunsJob)
    .register(promptRolloutEvalJob)
    .register(captureRetentionJob)
    .register(costMigrationsJob)
    .register(regressionReplayJob);
  const jobs: JobRunner<Services> = new JobRunner<Services>({
    db,
    pool,
    logger,
    registry: jobRegistry,
    services: () => services,
    enabled: config.GATEWAY_JOBS,
    pollingIntervalSeconds: config.GATEWAY_JOBS_POLL_SECONDS,
  });
  let jobsStopped: Promise<void> | undefined;
  const guardrails: GuardrailService = new GuardrailService({
    db,
    pool,
    audit,
    gate: new GuardrailGate({ loadEnabled: (tenantId) => guardrails.loadEnabled(tenantId), listener, logger }),
    events: new GuardrailEventWriter(db, logger),
  });
  const signIn = createSignInModule({
    config,
    db,
    listener,
    logger,
    audit,
    tokens: auth,
    team: () => services.team,
    tenants: () => services.tenants,
  });
  const services: Services = {
    config,
    logger,
    auth,
    audit,
    tokens: new TokenService(db, audit, auth),
    tenants: new TenantService(db, audit),
    system: new SystemService(pool, config.GATEWAY_MODE, rateLimitStoreReachable, () => ({
      queuedRows: dataPlane.logWriter.stats.queuedRequests + dataPlane.logWriter.stats.queuedCosts,
      failingSince: dataPlane.logWriter.failingSince,
    })),
    providers: new ProvidersService(db, dataPlane, audit, config.GATEWAY_MODE),
    pricing: new PricingService(db, audit, listener, logger, config.GATEWAY_PRICE_OVERRIDES ?? []),
    abTests: new AbTestService(routingDeps),
    feedback: new FeedbackService({
      ...routingDeps,
      logWriter: dataPlane.logWriter,
      minSamples: config.GATEWAY_MIN_SAMPLES,
      cheapestModel: () => cheapestTarget(dataPlane.registry),
    }),
    analytics: new AnalyticsService(pool, {
      activeProviders: () => dataPlane.registry.activeCount(),
      explorationRate: () => config.GATEWAY_EXPLORATION_RATE,
    }),
    cache: new CacheService({
      db,
      audit,
      config,
      semantic: dataPlane.semanticCache,
      embeddingTarget: () => dataPlane.embeddingTarget(),
    }),
    spend: new SpendService({
      repository: new SpendRepository(pool),
      tokenNames: async (tenantId) => new Map((await services.tokens.list(tenantId)).map((t) => [t.id, t.name])),
      cellQuality: (tenantId) => services.analytics.cellQuality(tenantId),
      monthlyBudget: async (tenantId) => (await services.budgets.get(tenantId)).monthlyUsd,
      minSamples: config.GATEWAY_MIN_SAMPLES,
    }),
    liveBus,
    listener,
    dataPlane,
    rateLimits: sharedRateLimits ?? new RateLimiter(),
    metrics,
    jobs,
    scheduler: new SchedulerService(db, jobs, audit),
    guardrails,
    budgets: new BudgetService({ db, pool, audit, listener, logger }),
    quota: new QuotaGate({
      pool,
      listener,
      logger,
      limit: config.GATEWAY_FREE_MONTHLY_REQUESTS,
      loadCounts: (tenantIds, since) => requestLogRepository.countSince(db, tenantIds, since),
    }),
    prompts: new PromptService({ db, audit }),
    rollouts: new RolloutService({ db, audit }),
    captures: new CaptureService({ db, pool, audit, capture: dataPlane.exchangeCapture }),
    providerKeys: new ProviderKeyService({
      ...workspaceProviderDeps,
      deploymentBaseUrl: (provider) => dataPlane.deploymentBaseUrl(provider),
    }),
    customProviders: new CustomProviderService({
      ...workspaceProviderDeps,
      registryFor: (tenantId) => dataPlane.providersFor(tenantId).registry,
    }),
    billing: new BillingService({
      db,
      audit,
      logger,
      config,
      stripe: stripeFromConfig(config),
      tiers: {
        tierOf: (tx, id) => services.tenants.tierOf(tx, id),
        setTier: (tx, id, tier) => services.tenants.setTier(tx, id, tier),
      },
    }),
    evals: new EvalService({
      db,
      registry: dataPlane.registry,
      registryFor: (tenantId) => dataPlane.providersFor(tenantId).registry,
      jobs: () => jobs as JobRunner<unknown>,
      logger,
      capturedExchanges: (tenantId, requestIds) => services.captures.exchanges(tenantId, requestIds),
    }),
    costMigrations: new CostMigrationService({
      db,
      pool,
      audit,
      routing: dataPlane.routing,
      spend: { recommendations: (tenantId, input) => services.spend.recommendations(tenantId, input) },
      feedback: { qualitySince: (tenantId, q) => services.feedback.qualitySince(tenantId, q) },
      tolerance: config.GATEWAY_COST_MIGRATION_TOLERANCE,
      graceDays: config.GATEWAY_COST_MIGRATION_GRACE_DAYS,
      minSavingsUsd: config.GATEWAY_MIGRATION_MIN_SAVINGS_USD,
      minSamples: config.GATEWAY_MIN_SAMPLES,
      explorationRate: config.GATEWAY_EXPLORATION_RATE,
    }),
    regression: new RegressionService({
      db,
      audit,
      pipeline: dataPlane.pipeline,
      judgeModel: async (tenantId) => (await services.feedback.judgeConfig(tenantId)).effectiveModel ?? null,
      captureEnabled: async (tenantId) => (await services.captures.settings(tenantId)).enabled,
      bankPerCell: config.GATEWAY_REPLAY_BANK_PER_CELL,
      samplePerCell: config.GATEWAY_REPLAY_SAMPLE_PER_CELL,
      threshold: config.GATEWAY_REGRESSION_THRESHOLD,
      minSamples: config.GATEWAY_REGRESSION_MIN_SAMPLES,
    }),
    signIn,
    team: new TeamService({
      db,
      audit,
      async memberChanged(tx, tenantId, userId, removed) {
        await signIn.memberChanged(tx, tenantId, userId, removed);
        await services.tokens.memberChanged(tx, userId);
      },
      afterMemberChange() {
        auth.invalidate();
        signIn.sessions?.invalidate();
      },
    }),
    async start() {
      await listener.start();
      await auth.start();
      await signIn.start();
      await services.pricing.start();
      await guardrails.gate.start();
      await services.budgets.gate.start();
      await services.quota.start();
      await dataPlane.start();
      sharedRateLimits?.start();
      await jobs.start();
    },
    stopJobs() {
      jobsStopped ??= jobs.stop({ graceful: true, timeoutMs: config.GATEWAY_SHUTDOWN_TIMEOUT_MS });
      return jobsStopped;
    },
    async close() {
      // Jobs first: a running one may still need the data plane and the pool.
      await services.stopJobs();
      // Draining the log writer still publishes its last batches to the live tap.
      await dataPlane.close();
      await guardrails.events.close();
      await services.budgets.gate.close();
      await services.quota.close();
      await liveBus.close();
      await sharedRateLimits?.close();
      await auth.close();
      signIn.close();
      await listener.close();
    },
  };
  return services;
}
