import { priceFor, type ModelPrice, type Rates } from '../providers/pricing.js';

// The prices a call is costed at: a workspace's negotiated price for the model when it set one
// (PUT /v1/models/pricing/overrides), else the deployment's (GATEWAY_PRICE_OVERRIDES), else the
// list price (pricing.ts). Held in memory: the request path never asks the database. The
// overrides module loads the workspaces' prices at start and reloads a workspace's on change
// (LISTEN/NOTIFY), so a price applies to the next call from the moment it is set; rows already
// logged keep the cost they were logged with.

/** A negotiated price: input and output rates, and the cache rates where the contract names them. */
export interface PriceOverride {
  /** The serving provider it applies to; null for the model on any provider. */
  provider: string | null;
  model: string;
  input: number;
  output: number;
  cachedInput?: number | null;
  cacheWrite5m?: number | null;
  cacheWrite1h?: number | null;
  /** When it was set (the price's date). */
  updatedAt: Date;
}

export type PriceSource = 'list' | 'deployment' | 'workspace';

/**
 * The price an override makes: flat (no long-context or service-tier variants: a negotiated rate
 * is the rate). A cache rate the override leaves out keeps the list price's ratio to the input
 * rate (Anthropic's 0.1x reads, 1.25x and 2x writes...), the input rate itself for an unlisted model.
 */
export function overridePrice(o: PriceOverride): ModelPrice {
  const list = priceFor(o.model, o.provider ?? undefined);
  const ratio = (k: keyof Rates): number => (list && list.input > 0 ? list[k] / list.input : 1);
  // Rounded to a billionth of a dollar per million: no float noise from the ratio.
  const derived = (k: keyof Rates): number => Math.round(o.input * ratio(k) * 1e9) / 1e9;
  return {
    input: o.input,
    output: o.output,
    cachedInput: o.cachedInput ?? derived('cachedInput'),
    cacheWrite5m: o.cacheWrite5m ?? derived('cacheWrite5m'),
    cacheWrite1h: o.cacheWrite1h ?? derived('cacheWrite1h'),
    asOf: o.updatedAt.toISOString().slice(0, 10),
  };
}

const keyOf = (provider: string | null, model: string): string =>
  `${provider?.toLowerCase() ?? ''}\0${model.toLowerCase()}`;

interface Book {
  overrides: PriceOverride[];
  prices: Map<string, ModelPrice>;
}

function bookOf(overrides: readonly PriceOverride[]): Book {
  const prices = new Map<string, ModelPrice>();
  for (const o of overrides) prices.set(keyOf(o.provider, o.model), overridePrice(o));
  return { overrides: [...overrides], prices };
}

function lookup(book: Book | undefined, model: string, provider: string): ModelPrice | undefined {
  if (!book || book.prices.size === 0) return undefined;
  return book.prices.get(keyOf(provider, model)) ?? book.prices.get(keyOf(null, model));
}

export class PriceBook {
  private deployment: Book = bookOf([]);
  private readonly workspaces = new Map<string, Book>();
  /** The prices a workspace gave the models of its custom providers, by provider and model. */
  private readonly custom = new Map<string, Map<string, ModelPrice>>();

  /** A workspace's custom-provider prices, replacing its earlier ones. */
  setCustomProviderPrices(
    tenantId: string,
    prices: ReadonlyArray<{ provider: string; model: string; input: number; output: number }>,
  ): void {
    if (prices.length === 0) {
      this.custom.delete(tenantId);
      return;
    }
    const asOf = new Date().toISOString().slice(0, 10);
    const map = new Map<string, ModelPrice>();
    for (const p of prices)
      map.set(keyOf(p.provider, p.model), {
        input: p.input,
        output: p.output,
        cachedInput: p.input,
        cacheWrite5m: p.input,
        cacheWrite1h: p.input,
        asOf,
      });
    this.custom.set(tenantId, map);
  }

  private customPrice(tenantId: string, model: string, provider: string): ModelPrice | undefined {
    return this.custom.size === 0 ? undefined : this.custom.get(tenantId)?.get(keyOf(provider, model));
  }

  /** The deployment's overrides (configuration), replacing any earlier ones. */
  setDeployment(overrides: readonly PriceOverride[]): void {
    this.deployment = bookOf(overrides);
  }

  /** A workspace's overrides, replacing its earlier ones (an empty list clears them). */
  setWorkspace(tenantId: string, overrides: readonly PriceOverride[]): void {
    if (overrides.length === 0) this.workspaces.delete(tenantId);
    else this.workspaces.set(tenantId, bookOf(overrides));
  }

  /** The workspaces that have overrides. */
  workspaceIds(): string[] {
    return [...this.workspaces.keys()];
  }

  workspaceOverrides(tenantId: string): readonly PriceOverride[] {
    return this.workspaces.get(tenantId)?.overrides ?? [];
  }

  deploymentOverrides(): readonly PriceOverride[] {
    return this.deployment.overrides;
  }

  /** The price a workspace's call to `model` on `provider` is costed at, and where it comes from. */
  resolve(tenantId: string, model: string, provider: string): { price: ModelPrice; source: PriceSource } | undefined {
    const own = lookup(this.workspaces.get(tenantId), model, provider);
    if (own) return { price: own, source: 'workspace' };
    const custom = this.customPrice(tenantId, model, provider);
    if (custom) return { price: custom, source: 'workspace' };
    const deployed = lookup(this.deployment, model, provider);
    if (deployed) return { price: deployed, source: 'deployment' };
    const list = priceFor(model, provider);
    return list ? { price: list, source: 'list' } : undefined;
  }

  /** The price alone (the request path). */
  priceFor(tenantId: string, model: string, provider: string): ModelPrice | undefined {
    return (
      lookup(this.workspaces.get(tenantId), model, provider) ??
      this.customPrice(tenantId, model, provider) ??
      lookup(this.deployment, model, provider) ??
      priceFor(model, provider)
    );
  }
}

/**
 * The process's price book. One per process, like the list prices it stands in front of: the
 * cost of a call is computed where its cost row is made (accounting.ts), which has the call and
 * not the services. Workspaces are keyed by tenant id, so apps sharing a process (tests) do not
 * see each other's prices; the deployment's overrides are the last configuration started.
 */
export const priceBook = new PriceBook();
