import { providerDefinition } from './catalog.js';
import { createAdapter } from './factory.js';
import { getJson } from './http.js';
import type { ModelCapabilities } from './capabilities.js';
import type { CallOptions, ProviderAdapter, ProviderFamily, ProviderSettings } from './types.js';
import { isChatModel, type ListsModelKinds, type ModelListing } from './model-kind.js';
import { modelListingOf } from './openai-compatible/models.js';

// The providers this process routes to and the models each serves, from the discovery pass.
// Reads on the request path are plain map lookups; discovery replaces the whole view at once.

/**
 * env: a key from the deployment's environment; local: a local model server; simulator: the
 * built-in simulator; workspace: a built-in provider with the workspace's own key; custom: a
 * workspace's own provider.
 */
export type ProviderSource = 'env' | 'local' | 'simulator' | 'workspace' | 'custom';

export interface RegisteredProvider {
  name: string;
  family: ProviderFamily;
  baseUrl: string;
  source: ProviderSource;
  adapter: ProviderAdapter;
  models: string[];
  /** Models the provider's own listing marks as not for chat (Together's `type`): kept out of routing. */
  notChat?: ReadonlySet<string>;
  /** At least one model after discovery; a local server that is down has none. */
  active: boolean;
  /** Capabilities declared per model (a custom provider's), which the built-in table does not know. */
  capabilities?: ReadonlyMap<string, ModelCapabilities>;
  discoveredAt: Date;
  discoveryError: string | null;
}

export interface RegistrySettings extends ProviderSettings {
  source: ProviderSource;
  /** Serve `builtinModels` as they are, without asking the provider (a custom provider's listed models). */
  declaredModels?: boolean;
  /** Capabilities declared per model id (a custom provider's listed models). */
  capabilities?: ReadonlyMap<string, ModelCapabilities>;
}

/** A routable (provider, model); `capabilities` when declared rather than known from the built-in table. */
export interface RoutableTarget {
  provider: string;
  model: string;
  capabilities?: ModelCapabilities;
}

interface View {
  providers: Map<string, RegisteredProvider>;
  /** model id -> providers serving it, in registration order. */
  byModel: Map<string, RegisteredProvider[]>;
  /** Every routable (provider, model), built once per discovery: the router reads it per request. */
  targets: RoutableTarget[];
}

const DISCOVERY_TIMEOUT_MS = 5_000;

export class ProviderRegistry {
  private view: View = { providers: new Map(), byModel: new Map(), targets: [] };
  /** Bumped whenever the view changes, so callers can cache what they derive from it. */
  version = 0;
  private settings: RegistrySettings[] = [];
  private probeTimer: NodeJS.Timeout | undefined;

  /** Build adapters for `settings` and discover their models (in parallel); replaces the current set. */
  /**
   * Discovers every provider of `settings` and serves them from then on. Returns the names of the
   * providers whose credentials or address changed (or that are new), whose past failures say
   * nothing about them any more.
   */
  async load(settings: RegistrySettings[], reuse?: ProviderRegistry): Promise<string[]> {
    const before = new Map(this.settings.map((s) => [s.name, s]));
    this.settings = settings;
    // A workspace's view shares the deployment's providers it did not change: what the
    // deployment's registry discovered for the very same settings is taken as it is.
    const discovered = await Promise.all(settings.map((s) => reuse?.discoveredWith(s) ?? discover(s)));
    this.view = buildView(discovered);
    this.version++;
    return settings
      .filter((s) => {
        const old = before.get(s.name);
        return !old || old.apiKey !== s.apiKey || old.baseUrl !== s.baseUrl;
      })
      .map((s) => s.name);
  }

  /** Re-run discovery with the current settings (local servers coming and going). */
  async rediscover(): Promise<void> {
    await this.load(this.settings);
  }

  /** Re-probe local servers every `intervalMs` so one that comes up or goes down is noticed. */
  startLocalProbe(intervalMs = 30_000): void {
    this.stopLocalProbe();
    this.probeTimer = setInterval(() => void this.refreshLocal(), intervalMs);
    this.probeTimer.unref();
  }

  stopLocalProbe(): void {
    if (this.probeTimer) clearInterval(this.probeTimer);
    this.probeTimer = undefined;
  }

  /** The provider as discovered, when it was discovered with exactly these settings. */
  discoveredWith(s: RegistrySettings): RegisteredProvider | undefined {
    const mine = this.settings.find((x) => x.name === s.name);
    if (!mine || mine.apiKey !== s.apiKey || mine.baseUrl !== s.baseUrl || mine.family !== s.family) return undefined;
    if (mine.source !== s.source || mine.dispatcher !== s.dispatcher) return undefined;
    return this.view.providers.get(s.name);
  }

  /** The settings the current view was discovered with. */
  currentSettings(): readonly RegistrySettings[] {
    return this.settings;
  }

  list(): RegisteredProvider[] {
    return [...this.view.providers.values()];
  }

  get(name: string): RegisteredProvider | undefined {
    return this.view.providers.get(name);
  }

  /** Active providers serving exactly this model id. */
  providersFor(model: string): RegisteredProvider[] {
    return this.view.byModel.get(model) ?? [];
  }

  activeCount(): number {
    let n = 0;
    for (const p of this.view.providers.values()) if (p.active) n++;
    return n;
  }

  /** Every chat (provider, model) pair that can be routed to now. */
  targets(): ReadonlyArray<RoutableTarget> {
    return this.view.targets;
  }

  /** Every (provider, model) pair active providers serve, chat or not (what can be pinned). */
  servable(): Array<{ provider: string; model: string }> {
    const out: Array<{ provider: string; model: string }> = [];
    for (const p of this.view.providers.values())
      if (p.active) for (const model of p.models) out.push({ provider: p.name, model });
    return out;
  }

  private async refreshLocal(): Promise<void> {
    const settings = this.settings;
    const local = settings.filter((s) => s.source === 'local');
    if (local.length === 0) return;
    const refreshed = await Promise.all(local.map((s) => discover(s)));
    // A reload while the probe ran has discovered with newer settings: this result is stale.
    if (this.settings !== settings) return;
    const providers = new Map(this.view.providers);
    for (const p of refreshed) providers.set(p.name, p);
    this.view = buildView([...providers.values()]);
    this.version++;
  }
}

async function discover(s: RegistrySettings): Promise<RegisteredProvider> {
  const adapter = createAdapter(s);
  const base = {
    name: s.name,
    family: s.family,
    baseUrl: s.baseUrl,
    source: s.source,
    adapter,
    discoveredAt: new Date(),
    ...(s.capabilities ? { capabilities: s.capabilities } : {}),
  };
  const opts = { signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS), timeoutMs: DISCOVERY_TIMEOUT_MS };
  if (s.declaredModels) {
    const models = [...new Set(s.builtinModels)];
    return { ...base, models, active: models.length > 0, discoveryError: null };
  }
  try {
    // A local server has no built-in list to fall back on: if its models endpoint does not answer
    // it is down, and drops out of the active count.
    const listing = s.source === 'local' ? await listLocalModels(s, opts.timeoutMs) : await listingOf(adapter, opts);
    const unique = [...new Set(listing.ids)];
    return { ...base, models: unique, notChat: listing.notChat, active: unique.length > 0, discoveryError: null };
  } catch (err) {
    const fallback = s.source === 'local' ? [] : s.builtinModels;
    return { ...base, models: fallback, active: fallback.length > 0, discoveryError: (err as Error).message };
  }
}

/** What the adapter's models endpoint lists, with the kinds it gives where the adapter reads them. */
async function listingOf(adapter: ProviderAdapter, opts: CallOptions): Promise<ModelListing> {
  if (listsModelKinds(adapter)) return adapter.listModelKinds(opts);
  return { ids: await adapter.listModels(opts), notChat: new Set() };
}

function listsModelKinds(adapter: ProviderAdapter): adapter is ProviderAdapter & ListsModelKinds {
  return typeof (adapter as Partial<ListsModelKinds>).listModelKinds === 'function';
}

/**
 * A local server's models, from its OpenAI-compatible models endpoint in either shape
 * (openai-compatible/models.ts). An empty list is not an error here: the server is up with no
 * model to serve, and is inactive until it has one.
 */
async function listLocalModels(s: RegistrySettings, timeoutMs: number): Promise<ModelListing> {
  const headers: Record<string, string> = s.apiKey ? { authorization: `Bearer ${s.apiKey}` } : {};
  const res = await getJson<unknown>(`${s.baseUrl}/models`, headers, {
    provider: s.name,
    signal: AbortSignal.timeout(timeoutMs),
    timeoutMs,
  });
  return modelListingOf(res);
}

function buildView(providers: RegisteredProvider[]): View {
  const map = new Map<string, RegisteredProvider>();
  const byModel = new Map<string, RegisteredProvider[]>();
  const targets: View['targets'] = [];
  for (const p of providers) {
    map.set(p.name, p);
    if (!p.active) continue;
    for (const m of p.models) {
      // Every model can be pinned; only chat models are routing targets (see model-kind.ts), and
      // not those the provider's own listing says are something else.
      if (isChatModel(m) && !p.notChat?.has(m)) {
        const capabilities = p.capabilities?.get(m);
        targets.push(capabilities ? { provider: p.name, model: m, capabilities } : { provider: p.name, model: m });
      }
      const list = byModel.get(m);
      if (list) list.push(p);
      else byModel.set(m, [p]);
    }
  }
  return { providers: map, byModel, targets };
}

/** Registry settings for an environment: catalog providers with keys, local servers always. */
export function settingsFromCatalog(all: ProviderSettings[]): RegistrySettings[] {
  return all.map((s) => ({ ...s, source: providerDefinition(s.name)?.local ? 'local' : 'env' }));
}
