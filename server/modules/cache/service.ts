import type { z } from 'zod';
import type { Config } from '../../config.js';
import type { Database } from '../../db/client.js';
import type { EmbeddingTarget } from '../../gateway/cache/semantic/embedding-model.js';
import type { AuditService, ActorRef } from '../audit/service.js';
import type { CacheStats, ClearCacheInput, ClearCacheResult } from './schemas.js';

/** What the cache module needs of the data plane. */
export interface CacheDeps {
  db: Database;
  audit: AuditService;
  config: Pick<
    Config,
    | 'GATEWAY_CACHE_ENABLED'
    | 'GATEWAY_SEMANTIC_CACHE_ENABLED'
    | 'GATEWAY_SEMANTIC_CACHE_THRESHOLD'
    | 'GATEWAY_SEMANTIC_CACHE_TTL_SECONDS'
    | 'GATEWAY_SEMANTIC_CACHE_MAX_ENTRIES'
  >;
  semantic: {
    clear(tenantId: string, scope: { provider: string; model: string } | null): Promise<number>;
    counts(tenantId: string): Promise<Array<{ provider: string; model: string; entries: number }>>;
  } | null;
  embeddingTarget(): EmbeddingTarget | null;
}

export class CacheService {
  constructor(private readonly d: CacheDeps) {}

  async stats(tenantId: string): Promise<z.infer<typeof CacheStats>> {
    const { config } = this.d;
    const target = this.d.semantic ? this.d.embeddingTarget() : null;
    const byModel = this.d.semantic ? await this.d.semantic.counts(tenantId) : [];
    return {
      exact: { enabled: config.GATEWAY_CACHE_ENABLED, ttlSeconds: 300, maxEntriesPerProcess: 1000 },
      semantic: {
        enabled: config.GATEWAY_SEMANTIC_CACHE_ENABLED,
        active: target !== null,
        embeddingModel: target ? `${target.provider}/${target.model}` : null,
        dimensions: target?.dimensions ?? null,
        threshold: config.GATEWAY_SEMANTIC_CACHE_THRESHOLD,
        ttlSeconds: config.GATEWAY_SEMANTIC_CACHE_TTL_SECONDS,
        maxEntriesPerWorkspace: config.GATEWAY_SEMANTIC_CACHE_MAX_ENTRIES,
        entries: byModel.reduce((s, m) => s + m.entries, 0),
        byModel,
      },
    };
  }

  async clear(
    tenantId: string,
    actor: ActorRef,
    input: z.infer<typeof ClearCacheInput>,
  ): Promise<z.infer<typeof ClearCacheResult>> {
    const scope = input.model
      ? {
          provider: input.model.slice(0, input.model.indexOf('/')),
          model: input.model.slice(input.model.indexOf('/') + 1),
        }
      : null;
    const deleted = this.d.semantic ? await this.d.semantic.clear(tenantId, scope) : 0;
    await this.d.audit.record(this.d.db, {
      tenantId,
      actor,
      action: 'cache.clear',
      targetType: 'cache',
      targetId: input.model ?? null,
      after: { deleted },
    });
    return { deleted, model: input.model ?? null };
  }
}
