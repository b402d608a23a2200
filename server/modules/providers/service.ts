import type { z } from 'zod';
import type { Database } from '../../db/client.js';
import type { DataPlane } from '../../gateway/data-plane.js';
import { resolvePinned } from '../../gateway/routing/targets.js';
import { capabilitiesFor, isStructuredOutputReliable, modelTier } from '../../providers/capabilities.js';
import { PRICING_AS_OF, priceFor, pricedModels } from '../../providers/pricing.js';
import type { ActorRef, AuditService } from '../audit/service.js';
import { modelStatsRepository } from './repository.js';
import type { ModelStatsList, OpenAiModel, OpenAiModelList, PricingTable, ProviderList } from './schemas.js';

export class ProvidersService {
  constructor(
    private readonly db: Database,
    private readonly dataPlane: DataPlane,
    private readonly audit: AuditService,
  ) {}

  list(): z.infer<typeof ProviderList> {
    const { registry, breakers } = this.dataPlane;
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
    return this.list();
  }

  pricing(): z.infer<typeof PricingTable> {
    return {
      asOf: PRICING_AS_OF,
      items: pricedModels().map((model) => {
        const price = priceFor(model)!;
        const caps = capabilitiesFor(model);
        return {
          model,
          inputPerMillionUsd: price.input,
          outputPerMillionUsd: price.output,
          tier: modelTier(model) ?? null,
          vision: caps.vision,
          tools: caps.tools,
          json: caps.json,
          structuredOutputReliable: isStructuredOutputReliable(model),
        };
      }),
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
        lastUsedAt: null,
      });
    }
    return { items: items.sort((a, b) => b.requests - a.requests || a.model.localeCompare(b.model)) };
  }

  /** One servable model, as `provider/model` or a bare id (the first provider serving it); 404 otherwise. */
  openAiModel(id: string): z.infer<typeof OpenAiModel> {
    const target = resolvePinned(this.dataPlane.registry, id);
    return { id, object: 'model', created: Math.floor(Date.now() / 1000), owned_by: target.provider };
  }

  openAiModels(): z.infer<typeof OpenAiModelList> {
    const created = Math.floor(Date.now() / 1000);
    return {
      object: 'list',
      data: this.dataPlane.registry
        .servable()
        .map((t) => ({ id: `${t.provider}/${t.model}`, object: 'model' as const, created, owned_by: t.provider })),
    };
  }

  private summary() {
    return this.dataPlane.registry.list().map((p) => ({ name: p.name, active: p.active, models: p.models.length }));
  }
}
