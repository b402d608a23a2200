import { GatewayError } from '../../lib/errors.js';
import type { z } from 'zod';
import type { Database } from '../../db/client.js';
import type { DataPlane } from '../../gateway/data-plane.js';
import { priceBook } from '../../gateway/price-book.js';
import { resolvePinned } from '../../gateway/routing/targets.js';
import { capabilitiesFor, isStructuredOutputReliable, modelTier } from '../../providers/capabilities.js';
import { PRICING_AS_OF, priceFor, pricedModels, type Rates } from '../../providers/pricing.js';
import type { ActorRef, AuditService } from '../audit/service.js';
import { modelStatsRepository } from './repository.js';
import type { ModelStatsList, OpenAiModel, OpenAiModelList, PricingTable, ProviderList } from './schemas.js';

/** A price's rates as the pricing table shows them. */
function rateSet(r: Rates) {
  return {
    inputPerMillionUsd: r.input,
    outputPerMillionUsd: r.output,
    cachedInputPerMillionUsd: r.cachedInput,
    cacheWrite5mPerMillionUsd: r.cacheWrite5m,
    cacheWrite1hPerMillionUsd: r.cacheWrite1h,
  };
}

/**
 * What prompt caching did for a model's calls: tokens read from and written to the cache, and
 * what that saved against reading every input token afresh, at the workspace's current rates.
 */
function cacheFigures(
  tenantId: string,
  provider: string,
  model: string,
  c: { cachedInputTokens: number; cacheWrite5mTokens: number; cacheWrite1hTokens: number } | undefined,
) {
  const read = c?.cachedInputTokens ?? 0;
  const written5m = c?.cacheWrite5mTokens ?? 0;
  const written1h = c?.cacheWrite1hTokens ?? 0;
  const price = read + written5m + written1h > 0 ? priceBook.priceFor(tenantId, model, provider) : undefined;
  const saved = price
    ? (read * (price.input - price.cachedInput) -
        written5m * (price.cacheWrite5m - price.input) -
        written1h * (price.cacheWrite1h - price.input)) /
      1_000_000
    : 0;
  return {
    cachedInputTokens: read,
    cacheWriteTokens: written5m + written1h,
    promptCacheSavingsUsd: Math.round(saved * 1e12) / 1e12,
  };
}

export class ProvidersService {
  constructor(
    private readonly db: Database,
    private readonly dataPlane: DataPlane,
    private readonly audit: AuditService,
    /** In multi-tenant mode the deployment's providers are the operator's, not a workspace admin's. */
    private readonly mode: 'single' | 'multi',
  ) {}

  /** The providers a workspace's calls use: the deployment's, with its own keys and providers in. */
  list(tenantId: string): z.infer<typeof ProviderList> {
    const { registry, breakers } = this.dataPlane.providersFor(tenantId);
    const circuits = breakers.snapshot();
    return {
      items: registry.list().map((p) => ({
        name: p.name,
        family: p.family,
        source: p.source,
        simulated: p.source === 'simulator',
        baseUrl: p.baseUrl,
        active: p.active,
        modelCount: p.models.length,
        models: p.models,
        discoveredAt: p.discoveredAt.toISOString(),
        discoveryError: p.discoveryError,
        circuit: circuits[p.name] ?? { state: 'closed', consecutiveFailures: 0, openUntil: null },
      })),
      activeCount: registry.activeCount(),
    };
  }

  async reload(tenantId: string, actor: ActorRef): Promise<z.infer<typeof ProviderList>> {
    if (this.mode === 'multi')
      throw new GatewayError(
        'permission_error',
        "Reloading providers re-reads the deployment's credentials for every workspace: in multi-tenant mode the operator does it (send the gateway process SIGHUP). A workspace's own keys and providers apply as they are saved (/v1/api-keys, /v1/admin/providers).",
      );
    const before = this.summary();
    await this.dataPlane.reload();
    const after = this.summary();
    await this.db.transaction(async (tx) => {
      await this.audit.record(tx, {
        tenantId,
        actor,
        action: 'providers.reload',
        targetType: 'providers',
        targetId: null,
        before,
        after,
      });
      await this.dataPlane.announceReload(tx);
    });
    return this.list(tenantId);
  }

  /**
   * The operator's reload (SIGHUP), in either mode: this process re-reads its credentials and
   * rediscovers models, and every other process sharing the database is told to. No workspace's
   * audit log holds it (it is no workspace's act); the process log does.
   */
  async reloadDeployment(): Promise<{ before: unknown; after: unknown }> {
    const before = this.summary();
    await this.dataPlane.reload();
    await this.db.transaction((tx) => this.dataPlane.announceReload(tx));
    return { before, after: this.summary() };
  }

  pricing(overrides: z.infer<typeof PricingTable>['overrides']): z.infer<typeof PricingTable> {
    return {
      asOf: PRICING_AS_OF,
      items: pricedModels().map((model) => {
        const price = priceFor(model)!;
        const caps = capabilitiesFor(model);
        const tiers: Record<string, ReturnType<typeof rateSet>> = {};
        for (const [tier, rates] of Object.entries(price.serviceTiers ?? {})) tiers[tier] = rateSet(rates);
        return {
          model,
          ...rateSet(price),
          longContext: price.longContext
            ? { ...rateSet(price.longContext), aboveTokens: price.longContext.aboveTokens }
            : null,
          serviceTiers: tiers,
          asOf: price.asOf,
          tier: modelTier(model) ?? null,
          vision: caps.vision,
          tools: caps.tools,
          json: caps.json,
          structuredOutputReliable: isStructuredOutputReliable(model),
        };
      }),
      overrides,
    };
  }

  async stats(tenantId: string): Promise<z.infer<typeof ModelStatsList>> {
    const [reqs, costs] = await Promise.all([
      modelStatsRepository.requestStats(this.db, tenantId),
      modelStatsRepository.costStats(this.db, tenantId),
    ]);
    const key = (p: string | null, m: string | null) => `${p ?? ''}\0${m ?? ''}`;
    const costBy = new Map(costs.map((c) => [key(c.provider, c.model), c]));
    const items = reqs.map((r) => {
      const c = costBy.get(key(r.provider, r.model));
      costBy.delete(key(r.provider, r.model));
      return {
        provider: r.provider ?? '',
        model: r.model ?? '',
        requests: r.requests,
        errors: r.errors,
        cacheHits: r.cacheHits,
        avgLatencyMs: r.avgLatencyMs === null ? null : Math.round(r.avgLatencyMs * 10) / 10,
        inputTokens: Number(r.inputTokens),
        outputTokens: Number(r.outputTokens),
        upstreamCalls: c?.calls ?? 0,
        totalCostUsd: c?.cost ?? 0,
        ...cacheFigures(tenantId, r.provider ?? '', r.model ?? '', c),
        lastUsedAt: r.lastUsedAt ? new Date(r.lastUsedAt).toISOString() : null,
      };
    });
    // Models tried only as failed fallback attempts have cost rows but no request rows.
    for (const c of costBy.values()) {
      items.push({
        provider: c.provider,
        model: c.model,
        requests: 0,
        errors: 0,
        cacheHits: 0,
        avgLatencyMs: null,
        inputTokens: 0,
        outputTokens: 0,
        upstreamCalls: c.calls,
        totalCostUsd: c.cost,
        ...cacheFigures(tenantId, c.provider, c.model, c),
        lastUsedAt: null,
      });
    }
    return { items: items.sort((a, b) => b.requests - a.requests || a.model.localeCompare(b.model)) };
  }

  /** One servable model, as `provider/model` or a bare id (the first provider serving it); 404 otherwise. */
  openAiModel(tenantId: string, id: string): z.infer<typeof OpenAiModel> {
    const target = resolvePinned(this.dataPlane.providersFor(tenantId).registry, id);
    return { id, object: 'model', created: Math.floor(Date.now() / 1000), owned_by: target.provider };
  }

  openAiModels(tenantId: string): z.infer<typeof OpenAiModelList> {
    const created = Math.floor(Date.now() / 1000);
    return {
      object: 'list',
      data: this.dataPlane
        .providersFor(tenantId)
        .registry.servable()
        .map((t) => ({ id: `${t.provider}/${t.model}`, object: 'model' as const, created, owned_by: t.provider })),
    };
  }

  private summary() {
    return this.dataPlane.registry.list().map((p) => ({ name: p.name, active: p.active, models: p.models.length }));
  }
}
