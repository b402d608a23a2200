import type { SQL } from 'drizzle-orm';
import type pg from 'pg';
import type { Database } from '../db/client.js';
import { notifyIn, type PgListener } from '../db/listener.js';
import { currentProviderEnv, type Config } from '../config.js';
import type { Logger } from '../lib/logger.js';
import {
  resolveProviderSettings,
  SIMULATOR_MODELS,
  simulatorProviderSettings,
  type SimulatorBaseUrls,
} from '../providers/catalog.js';
import { closeHttp, configureHttp } from '../providers/http.js';
import { ProviderRegistry, settingsFromCatalog, type RegistrySettings } from '../providers/registry.js';
import { CircuitBreakers } from './breaker.js';
import { ExactCache } from './cache/exact-cache.js';
import { chooseEmbeddingModel, type EmbeddingTarget } from './cache/semantic/embedding-model.js';
import { semanticEmbedder } from './cache/semantic/embedder.js';
import { SemanticCache } from './cache/semantic/semantic-cache.js';
import { SEMANTIC_CACHE_CHANNEL, SemanticCacheStore } from './cache/semantic/store.js';
import { LogWriter, type CommittedRequest, type LogWriterOptions } from './log-writer.js';
import { JudgeSampler } from './judge-sampler.js';
import { ExchangeCapture } from './exchange-capture.js';
import { ChatPipeline, type PipelineOptions } from './pipeline.js';
import { classify, LOW_CONFIDENCE } from './classifier/index.js';
import { RoutingEngine } from './routing/engine.js';
import { classifierModelWarning, llmClassifier } from './routing/llm-classifier.js';
import { randomId } from '../lib/ids.js';
import { seededRandom } from '../lib/random.js';
import { policyWith } from './routing/scoring.js';
import { RoutingState, type RoutingSource } from './routing/state.js';
import type { Agent } from 'undici';
import { guardedAgent } from '../providers/url-guard.js';
import { providerDefinition } from '../providers/catalog.js';
import { WorkspaceProviders, type ProviderScope, type WorkspaceProviderSource } from './workspace-providers.js';

// Everything the chat path needs, built once per process: providers, breakers, cache, log writer
// and the pipeline. start() runs discovery (and starts the simulator when no credential is set).

export const SIMULATOR_PROVIDER = 'simulator';

/**
 * The built-in upstream simulator as the data plane sees it: one server speaking the OpenAI,
 * Anthropic and Gemini wire formats. The composition root (services.ts) starts it, so the data
 * plane does not import the simulator.
 */
export interface BuiltInSimulator {
  url: string;
  baseUrls: SimulatorBaseUrls;
  /** Which models it lists and serves per wire format. */
  configure(patch: { models: { openai?: string[]; anthropic?: string[]; gemini?: string[] } }): void;
  close(): Promise<void>;
}

/**
 * What the built-in simulator does in this process: `stand-in` (no real key at all) it answers for
 * the openai, anthropic and gemini providers under their names, `provider` (GATEWAY_SIMULATOR=on
 * beside real keys) it is the provider `simulator` only, never named as a real provider.
 */
export type SimulatorRole = 'stand-in' | 'provider';

export interface DataPlaneOptions {
  config: Config;
  pool: pg.Pool;
  db: Database;
  /** Reads the routing state (A/B tests, feedback, judge settings) from the modules that own them. */
  routingSource: RoutingSource;
  /** The process's LISTEN connection, which keeps routing state in step across processes. */
  listener?: PgListener;
  logger: Logger;
  onRequestsCommitted?: (rows: CommittedRequest[]) => void;
  /** Every log row as it is queued (metrics). */
  onRowsQueued?: LogWriterOptions['onQueued'];
  /** Every failed upstream attempt (metrics). */
  onUpstreamFailure?: PipelineOptions['onUpstreamFailure'];
  /** Starts the built-in simulator (GATEWAY_SIMULATOR); without it the gateway runs without one. */
  startSimulator?: () => Promise<BuiltInSimulator>;
  /** Workspaces' own provider keys and custom providers; without it every workspace uses the deployment's. */
  workspaceProviderSource?: WorkspaceProviderSource;
}

/** Reloads asked of one gateway process, announced to the others (payload: the node that reloaded). */
export const PROVIDERS_CHANNEL = 'gateway_providers';

export class DataPlane {
  /** This process, in the reload announcements it sends (it does not reload again for its own). */
  private readonly nodeId = randomId(12);
  private reloading: Promise<void> = Promise.resolve();
  readonly registry = new ProviderRegistry();
  readonly breakers = new CircuitBreakers();
  readonly cache: ExactCache | null;
  /** The semantic layer, when GATEWAY_SEMANTIC_CACHE_ENABLED (off while no provider can embed). */
  readonly semanticCache: SemanticCache | null;
  readonly logWriter: LogWriter;
  readonly pipeline: ChatPipeline;
  readonly routing: RoutingState;
  readonly engine: RoutingEngine;
  readonly judgeSampler: JudgeSampler;
  /** Opt-in capture of exchanges for eval cases (per workspace, sampled). */
  readonly exchangeCapture: ExchangeCapture;
  simulator: BuiltInSimulator | undefined;
  /** What the simulator does now (undefined: not running); see SimulatorRole. */
  simulatorRole: SimulatorRole | undefined;
  /** Workspaces whose providers differ from the deployment's (own keys, custom providers). */
  readonly workspaceProviders: WorkspaceProviders | null;
  /** The pool for addresses workspaces give: refuses private ones at connect time (undefined when allowed). */
  readonly guardedDispatcher: Agent | undefined;
  /** Simulators a credential replaced, stopping once their calls have had time to finish. */
  private readonly retiring: Array<{ simulator: BuiltInSimulator; timer: NodeJS.Timeout }> = [];

  constructor(private readonly opts: DataPlaneOptions) {
    const { config } = opts;
    this.cache = config.GATEWAY_CACHE_ENABLED ? new ExactCache() : null;
    this.logWriter = new LogWriter({
      pool: opts.pool,
      logger: opts.logger,
      flushIntervalMs: config.GATEWAY_LOG_FLUSH_MS,
      maxBuffered: config.GATEWAY_LOG_BUFFER_MAX,
      onCommitted: opts.onRequestsCommitted,
      onQueued: opts.onRowsQueued,
    });
    configureHttp({ connectTimeoutMs: config.GATEWAY_UPSTREAM_CONNECT_TIMEOUT_MS });
    const classifierWarning = config.GATEWAY_CLASSIFIER_MODEL
      ? classifierModelWarning(config.GATEWAY_CLASSIFIER_MODEL)
      : undefined;
    if (classifierWarning) opts.logger.warn(classifierWarning);
    this.routing = new RoutingState(
      opts.routingSource,
      opts.logger,
      opts.listener,
      config.GATEWAY_FEEDBACK_HALF_LIFE_DAYS,
    );
    this.judgeSampler = new JudgeSampler(opts.db, this.routing, Math.random, opts.logger);
    this.exchangeCapture = new ExchangeCapture(opts.db, opts.logger, opts.listener);
    this.engine = new RoutingEngine({
      state: this.routing,
      classify,
      lowConfidence: LOW_CONFIDENCE,
      llmClassify: config.GATEWAY_CLASSIFIER_MODEL
        ? llmClassifier(this.registry, config.GATEWAY_CLASSIFIER_MODEL)
        : undefined,
      explorationRate: config.GATEWAY_EXPLORATION_RATE,
      abTestPreempts: config.GATEWAY_AB_TEST_PREEMPTS,
      policy: policyWith(config.GATEWAY_MIN_SAMPLES, config.GATEWAY_ROUTING_TOLERANCE),
      random: config.GATEWAY_ROUTING_SEED === undefined ? Math.random : seededRandom(config.GATEWAY_ROUTING_SEED),
    });
    this.semanticCache = config.GATEWAY_SEMANTIC_CACHE_ENABLED ? this.createSemanticCache() : null;
    this.guardedDispatcher = config.GATEWAY_ALLOW_PRIVATE_PROVIDER_URLS
      ? undefined
      : guardedAgent(config.GATEWAY_UPSTREAM_CONNECT_TIMEOUT_MS);
    this.workspaceProviders = opts.workspaceProviderSource
      ? new WorkspaceProviders({
          deployment: { registry: this.registry, breakers: this.breakers },
          source: opts.workspaceProviderSource,
          listener: opts.listener,
          logger: opts.logger,
          shareDeploymentKeys: config.GATEWAY_SHARE_DEPLOYMENT_KEYS,
          guardedDispatcher: this.guardedDispatcher,
          deploymentBaseUrl: (name) => this.deploymentBaseUrl(name),
        })
      : null;
    const workspaces = this.workspaceProviders;
    this.pipeline = new ChatPipeline({
      registry: this.registry,
      breakers: this.breakers,
      cache: this.cache,
      semanticCache: this.semanticCache,
      logWriter: this.logWriter,
      strategy: this.engine,
      onAnswer: (call, answer) => {
        this.judgeSampler.offer(call, answer);
        this.exchangeCapture.offer(call, answer);
      },
      onUpstreamFailure: opts.onUpstreamFailure,
      upstreamTimeoutMs: config.GATEWAY_UPSTREAM_TIMEOUT_MS,
      maxAttempts: config.GATEWAY_MAX_ATTEMPTS,
      scopeFor: workspaces ? (tenantId) => workspaces.scopeFor(tenantId) : undefined,
    });
  }

  /**
   * Where the deployment calls a built-in provider: the address its environment gives
   * (`<NAME>_BASE_URL`, an operator's setting, trusted), else the catalog's.
   */
  deploymentBaseUrl(name: string): string | undefined {
    const def = providerDefinition(name);
    return def && (currentProviderEnv(this.opts.config)[def.baseUrlEnv]?.trim() || def.defaultBaseUrl);
  }

  /** The providers and circuits a workspace's calls use (its own where they differ). */
  providersFor(tenantId: string): ProviderScope {
    return this.workspaceProviders?.scopeFor(tenantId) ?? { registry: this.registry, breakers: this.breakers };
  }

  async start(): Promise<void> {
    await this.loadProviders();
    await this.workspaceProviders?.start();
    this.registry.startLocalProbe();
    await this.routing.start();
    if (this.semanticCache) {
      const cache = this.semanticCache;
      await this.opts.listener?.listen(
        SEMANTIC_CACHE_CHANNEL,
        (payload) => cache.onNotification(payload),
        () => cache.reset(),
      );
      const target = this.embeddingTarget();
      if (target)
        this.opts.logger.info(
          { model: `${target.provider}/${target.model}`, threshold: this.opts.config.GATEWAY_SEMANTIC_CACHE_THRESHOLD },
          'semantic cache on',
        );
      else
        this.opts.logger.warn(
          'GATEWAY_SEMANTIC_CACHE_ENABLED is set but no provider serves an embedding model: the semantic cache stays off',
        );
    }
    await this.exchangeCapture.start();
    // A reload asked of another node is done here too (see announceReload).
    await this.opts.listener?.listen(PROVIDERS_CHANNEL, (from) => {
      if (from !== this.nodeId)
        void this.reload().catch((err: unknown) =>
          this.opts.logger.error({ err }, 'provider reload announced by another node failed'),
        );
    });
  }

  /** The semantic cache's embedding model now: chosen again whenever the providers change. */
  embeddingTarget(): EmbeddingTarget | null {
    if (this.embeddingFor !== this.registry.version) {
      const { config } = this.opts;
      this.embedding = chooseEmbeddingModel(
        this.registry,
        config.GATEWAY_SEMANTIC_CACHE_MODEL,
        config.GATEWAY_SEMANTIC_CACHE_DIMENSIONS,
      );
      this.embeddingFor = this.registry.version;
    }
    return this.embedding;
  }

  private embedding: EmbeddingTarget | null = null;
  private embeddingFor = -1;

  private createSemanticCache(): SemanticCache {
    const { config, logger } = this.opts;
    return new SemanticCache({
      store: new SemanticCacheStore(this.opts.pool),
      embed: semanticEmbedder(() => this.pipeline),
      embeddingTarget: () => this.embeddingTarget(),
      threshold: config.GATEWAY_SEMANTIC_CACHE_THRESHOLD,
      ttlMs: config.GATEWAY_SEMANTIC_CACHE_TTL_SECONDS * 1000,
      maxEntries: config.GATEWAY_SEMANTIC_CACHE_MAX_ENTRIES,
      logger,
    });
  }

  /**
   * POST /v1/providers/reload: re-read credentials and run discovery again, no restart. Reloads
   * run one after the other: one asked while another runs starts when it is done.
   */
  reload(): Promise<void> {
    const next = this.reloading.catch(() => undefined).then(() => this.loadProviders());
    this.reloading = next;
    return next;
  }

  /**
   * Tells every other gateway process to reload too, when `db`'s transaction commits: each re-reads
   * its own environment (and GATEWAY_ENV_FILE) and rediscovers, so the nodes agree on the providers
   * (an A/B test or a pinned model valid on one is valid on all).
   */
  async announceReload(db: { execute: (query: SQL) => Promise<unknown> }): Promise<void> {
    await notifyIn(db, PROVIDERS_CHANNEL, this.nodeId);
  }

  /**
   * True when `provider` is played by the built-in simulator (`_gateway.simulated`, GET
   * /v1/providers): a plain map lookup, cheap enough for every answer.
   */
  isSimulated(provider: string, tenantId?: string): boolean {
    const registry = tenantId
      ? (this.workspaceProviders?.scopeFor(tenantId)?.registry ?? this.registry)
      : this.registry;
    return registry.get(provider)?.source === 'simulator';
  }

  private async loadProviders(): Promise<void> {
    const previous = this.simulator;
    const previousRole = this.simulatorRole;
    const settings = await this.resolveSettings();
    const changed = await this.registry.load(settings);
    // A simulated answer cached under `openai/gpt-4o-mini` must not be replayed once the real
    // provider of that name is in place (or the other way round).
    if (previousRole !== this.simulatorRole) this.cache?.clear();
    // A provider with a new key or address starts with a closed circuit: a fixed key is used at once.
    for (const name of changed) this.breakers.reset(name);
    // A removed provider's open circuit would be reported (metrics, /v1/providers) for good.
    this.breakers.retainOnly(new Set(this.registry.list().map((p) => p.name)));
    await this.workspaceProviders?.rebuild();
    // The simulator a credential replaced is stopped only now that nothing is routed to it, and
    // once the calls still on it have had their upstream timeout to finish.
    if (previous && previous !== this.simulator) {
      const retire = setTimeout(() => void previous.close(), this.opts.config.GATEWAY_UPSTREAM_TIMEOUT_MS);
      retire.unref();
      this.retiring.push({ simulator: previous, timer: retire });
    }
  }

  /** Stop taking work from the pool, write every queued log row, release sockets. */
  async close(): Promise<void> {
    this.registry.stopLocalProbe();
    await this.logWriter.drain(this.opts.config.GATEWAY_LOG_DRAIN_TIMEOUT_MS);
    await this.routing.close();
    await this.simulator?.close();
    for (const { simulator, timer } of this.retiring.splice(0)) {
      clearTimeout(timer);
      await simulator.close();
    }
    await closeHttp();
    await this.guardedDispatcher?.close();
  }

  private async resolveSettings(): Promise<RegistrySettings[]> {
    const env = currentProviderEnv(this.opts.config);
    const settings = settingsFromCatalog(resolveProviderSettings(env));
    const mode = this.opts.config.GATEWAY_SIMULATOR;
    const hasCredential = settings.some((s) => s.source === 'env');
    const role: SimulatorRole | undefined =
      mode === 'off' || (mode === 'auto' && hasCredential) ? undefined : hasCredential ? 'provider' : 'stand-in';
    const simulator = role && (await this.runningSimulator());
    if (!role || !simulator) {
      // Stopped by loadProviders once the new providers are in place.
      this.simulator = undefined;
      this.simulatorRole = undefined;
      return settings;
    }
    this.simulatorRole = role;
    if (role === 'provider') {
      // Beside real providers it answers under its own name only, every model in one format.
      const models = [...SIMULATOR_MODELS.openai, ...SIMULATOR_MODELS.anthropic, ...SIMULATOR_MODELS.gemini];
      simulator.configure({ models: { openai: models } });
      settings.unshift({
        name: SIMULATOR_PROVIDER,
        family: 'openai-compatible',
        baseUrl: simulator.baseUrls.openai,
        apiKey: SIMULATOR_API_KEY,
        builtinModels: models,
        source: 'simulator',
      });
      return settings;
    }
    // No real key at all: it stands in for each family under that family's name, speaking its
    // wire format, so `openai/...`, `anthropic/...` and `gemini/...` work on a first start. A
    // catalog provider of the same name cannot be among `settings` (it would have a key).
    simulator.configure({
      models: {
        openai: [...SIMULATOR_MODELS.openai],
        anthropic: [...SIMULATOR_MODELS.anthropic],
        gemini: [...SIMULATOR_MODELS.gemini],
      },
    });
    const standIns = simulatorProviderSettings(simulator.baseUrls, SIMULATOR_API_KEY).map(
      (s): RegistrySettings => ({ ...s, source: 'simulator' }),
    );
    return [...standIns, ...settings];
  }

  /** The simulator of this process, started on first need; undefined when none can be started. */
  private async runningSimulator(): Promise<BuiltInSimulator | undefined> {
    if (this.simulator) return this.simulator;
    if (!this.opts.startSimulator) return undefined;
    this.simulator = await this.opts.startSimulator();
    this.opts.logger.info({ url: this.simulator.url }, 'no provider credential set: the built-in simulator answers');
    return this.simulator;
  }
}

/**
 * The built-in simulator takes any key; error messages have the key blanked out, so it must not be a
 * word those messages contain (such as the provider's name, "simulator").
 */
const SIMULATOR_API_KEY = 'sk-local-simulator-0000';
