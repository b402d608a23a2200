import type { Dispatcher } from 'undici';
import type { PgListener } from '../db/listener.js';
import type { Logger } from '../lib/logger.js';
import { providerDefinition } from '../providers/catalog.js';
import { ProviderRegistry, type RegistrySettings } from '../providers/registry.js';
import type { ProviderFamily } from '../providers/types.js';
import { CircuitBreakers } from './breaker.js';
import { priceBook } from './price-book.js';

// The providers each workspace routes to, where they differ from the deployment's: its own keys for
// built-in providers (POST /v1/api-keys) and its own providers (POST /v1/admin/providers). Each such
// workspace has a registry and breakers of its own, built off the request path and held in memory:
// the chat path looks its scope up in a map. A workspace with neither uses the deployment's.
// Changes are announced on WORKSPACE_PROVIDERS_CHANNEL (payload: the tenant id) by the modules
// that own the rows, and every process rebuilds that workspace's scope.

export const WORKSPACE_PROVIDERS_CHANNEL = 'gateway_workspace_providers';

export interface WorkspaceKey {
  provider: string;
  apiKey: string;
  /** The workspace's own address for the provider; null: the deployment's (or the catalog's). */
  baseUrl: string | null;
}

export interface WorkspaceCustomModel {
  id: string;
  inputPerMillionUsd: number | null;
  outputPerMillionUsd: number | null;
  /** What the workspace declared the model can take: routing narrows on these. */
  vision: boolean;
  tools: boolean;
  json: boolean;
}

export interface WorkspaceCustomProvider {
  name: string;
  family: ProviderFamily;
  baseUrl: string;
  apiKey: string | null;
  models: WorkspaceCustomModel[];
  discover: boolean;
}

export interface WorkspaceProviderConfig {
  keys: WorkspaceKey[];
  custom: WorkspaceCustomProvider[];
}

/** Where the opened keys and custom providers come from (the modules owning them, through services.ts). */
export interface WorkspaceProviderSource {
  load(tenantId: string): Promise<WorkspaceProviderConfig>;
  loadAll(): Promise<Map<string, WorkspaceProviderConfig>>;
}

/** The providers one call may use, and their circuits. */
export interface ProviderScope {
  registry: ProviderRegistry;
  breakers: CircuitBreakers;
}

export interface WorkspaceProvidersOptions {
  deployment: ProviderScope;
  source: WorkspaceProviderSource;
  listener?: PgListener;
  logger: Logger;
  /** A workspace without its own key for a provider may use the deployment's (GATEWAY_SHARE_DEPLOYMENT_KEYS). */
  shareDeploymentKeys: boolean;
  /** The pool for addresses workspaces give (refusing private ones), or undefined when they are allowed. */
  guardedDispatcher: Dispatcher | undefined;
  /** The deployment's base URL for a catalog provider (its `<NAME>_BASE_URL` or the default). */
  deploymentBaseUrl: (provider: string) => string | undefined;
}

export class WorkspaceProviders {
  private readonly scopes = new Map<string, ProviderScope>();
  private configs = new Map<string, WorkspaceProviderConfig>();
  /** Without shared deployment keys, the scope of every workspace that has no provider of its own. */
  private keyless: ProviderScope | undefined;
  /** Each workspace's rebuilds run one after the other: the last one asked is the one in place. */
  private readonly chains = new Map<string, Promise<void>>();

  constructor(private readonly opts: WorkspaceProvidersOptions) {}

  /** The call's providers: the workspace's scope, or undefined for the deployment's. A map lookup. */
  scopeFor(tenantId: string): ProviderScope | undefined {
    return this.scopes.get(tenantId) ?? this.keyless;
  }

  async start(): Promise<void> {
    await this.opts.listener?.listen(
      WORKSPACE_PROVIDERS_CHANNEL,
      (tenantId) => void this.reload(tenantId),
      () => void this.reloadAll(),
    );
    await this.reloadAll();
  }

  /**
   * Re-reads one workspace's keys and providers and rebuilds its scope; resolves once the read
   * made after every earlier call is in place (a change's own reload waits for it).
   */
  reload(tenantId: string): Promise<void> {
    return this.enqueue(tenantId, async () => this.apply(tenantId, await this.opts.source.load(tenantId)));
  }

  async reloadAll(): Promise<void> {
    try {
      const all = await this.opts.source.loadAll();
      for (const id of this.configs.keys()) if (!all.has(id)) all.set(id, { keys: [], custom: [] });
      await this.rebuildKeyless();
      await Promise.all(
        [...all].map(([tenantId, config]) => this.enqueue(tenantId, () => this.apply(tenantId, config))),
      );
    } catch (err) {
      this.opts.logger.error({ err: (err as Error).message }, 'workspace providers load failed');
    }
  }

  /** The deployment's providers changed (a reload): every workspace's view is built on them again. */
  async rebuild(): Promise<void> {
    await this.rebuildKeyless();
    await Promise.all(
      [...this.configs.keys()].map((tenantId) =>
        this.enqueue(tenantId, async () => {
          const config = this.configs.get(tenantId);
          if (config) await this.apply(tenantId, config);
        }),
      ),
    );
  }

  private enqueue(tenantId: string, task: () => Promise<void>): Promise<void> {
    const next = (this.chains.get(tenantId) ?? Promise.resolve()).then(task).catch((err: unknown) => {
      this.opts.logger.error({ tenantId, err: (err as Error).message }, 'workspace providers reload failed');
    });
    this.chains.set(tenantId, next);
    void next.then(() => {
      if (this.chains.get(tenantId) === next) this.chains.delete(tenantId);
    });
    return next;
  }

  private async rebuildKeyless(): Promise<void> {
    if (this.opts.shareDeploymentKeys) {
      this.keyless = undefined;
      return;
    }
    const registry = new ProviderRegistry();
    await registry.load(this.baseSettings(), this.opts.deployment.registry);
    this.keyless = { registry, breakers: this.keyless?.breakers ?? new CircuitBreakers() };
  }

  private async apply(tenantId: string, config: WorkspaceProviderConfig): Promise<void> {
    if (config.keys.length === 0 && config.custom.length === 0) {
      this.configs.delete(tenantId);
      this.scopes.delete(tenantId);
      priceBook.setCustomProviderPrices(tenantId, []);
      return;
    }
    this.configs.set(tenantId, config);
    const registry = new ProviderRegistry();
    const changed = await registry.load(this.settingsFor(config), this.opts.deployment.registry);
    const breakers = this.scopes.get(tenantId)?.breakers ?? new CircuitBreakers();
    // A provider with a new key or address starts with a closed circuit.
    for (const name of changed) breakers.reset(name);
    breakers.retainOnly(new Set(registry.list().map((p) => p.name)));
    this.scopes.set(tenantId, { registry, breakers });
    priceBook.setCustomProviderPrices(
      tenantId,
      config.custom.flatMap((c) =>
        c.models
          .filter((m) => m.inputPerMillionUsd !== null || m.outputPerMillionUsd !== null)
          .map((m) => ({
            provider: c.name,
            model: m.id,
            input: m.inputPerMillionUsd ?? 0,
            output: m.outputPerMillionUsd ?? 0,
          })),
      ),
    );
  }

  /** The deployment's providers a workspace may use without a key of its own. */
  private baseSettings(): RegistrySettings[] {
    const all = this.opts.deployment.registry.currentSettings();
    return this.opts.shareDeploymentKeys ? [...all] : all.filter((s) => s.source !== 'env');
  }

  private settingsFor(config: WorkspaceProviderConfig): RegistrySettings[] {
    const guarded = this.opts.guardedDispatcher;
    const keys = new Map(config.keys.map((k) => [k.provider, k]));
    const out: RegistrySettings[] = [];
    for (const s of this.baseSettings()) {
      const key = keys.get(s.name);
      if (!key) {
        out.push(s);
        continue;
      }
      keys.delete(s.name);
      // A simulator standing in for the provider is replaced by the real one at its real address.
      const baseUrl = key.baseUrl ?? (s.source === 'env' ? s.baseUrl : this.opts.deploymentBaseUrl(s.name));
      if (!baseUrl) continue;
      out.push(
        withDispatcher({ ...s, apiKey: key.apiKey, baseUrl, source: 'workspace' }, key.baseUrl ? guarded : undefined),
      );
    }
    for (const key of keys.values()) {
      const def = providerDefinition(key.provider);
      const baseUrl = key.baseUrl ?? this.opts.deploymentBaseUrl(key.provider);
      if (!def || !baseUrl) continue;
      out.push(
        withDispatcher(
          {
            name: def.name,
            family: def.family,
            baseUrl: baseUrl.replace(/\/+$/, ''),
            apiKey: key.apiKey,
            builtinModels: [...def.builtinModels],
            source: 'workspace',
          },
          key.baseUrl ? guarded : undefined,
        ),
      );
    }
    for (const c of config.custom) {
      const settings: RegistrySettings = {
        name: c.name,
        family: c.family,
        baseUrl: c.baseUrl.replace(/\/+$/, ''),
        builtinModels: c.models.map((m) => m.id),
        source: 'custom',
        declaredModels: !c.discover,
        capabilities: new Map(c.models.map((m) => [m.id, { vision: m.vision, tools: m.tools, json: m.json }])),
      };
      if (c.apiKey) settings.apiKey = c.apiKey;
      out.push(withDispatcher(settings, guarded));
    }
    return out;
  }
}

function withDispatcher(s: RegistrySettings, dispatcher: Dispatcher | undefined): RegistrySettings {
  if (dispatcher) s.dispatcher = dispatcher;
  else delete s.dispatcher;
  return s;
}
