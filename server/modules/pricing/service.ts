import type { z } from 'zod';
import type { Database } from '../../db/client.js';
import type { PgListener } from '../../db/listener.js';
import { overridePrice, priceBook, type PriceOverride as Override } from '../../gateway/price-book.js';
import { GatewayError } from '../../lib/errors.js';
import type { Logger } from '../../lib/logger.js';
import type { ActorRef, AuditService } from '../audit/service.js';
import { PRICE_OVERRIDES_CHANNEL, priceOverridesRepository, type PriceOverrideRow } from './repository.js';
import type {
  DeletedPriceOverride,
  DeletePriceOverrideInput,
  PriceOverride,
  PriceOverrideList,
  SetPriceOverrideInput,
} from './schemas.js';

// Negotiated prices: a workspace's (stored, audited, set through the API) and the deployment's
// (GATEWAY_PRICE_OVERRIDES). Both live in the process's price book, which the request path reads;
// a change reaches every gateway process through LISTEN/NOTIFY and applies to its next call.

/** The price book's form of a stored row ('' is "any provider" in the table's key). */
function toOverride(r: PriceOverrideRow): Override {
  return {
    provider: r.provider === '' ? null : r.provider,
    model: r.model,
    input: r.input,
    output: r.output,
    cachedInput: r.cachedInput,
    cacheWrite5m: r.cacheWrite5m,
    cacheWrite1h: r.cacheWrite1h,
    updatedAt: r.updatedAt,
  };
}

function toDto(o: Override, source: 'workspace' | 'deployment'): z.infer<typeof PriceOverride> {
  const price = overridePrice(o);
  return {
    provider: o.provider,
    model: o.model,
    source,
    input: price.input,
    output: price.output,
    cachedInput: price.cachedInput,
    cacheWrite5m: price.cacheWrite5m,
    cacheWrite1h: price.cacheWrite1h,
    asOf: price.asOf,
    updatedAt: o.updatedAt.toISOString(),
  };
}

export class PricingService {
  /** Per workspace, the number of the reload whose read is in the price book (see reload). */
  private readonly applied = new Map<string, number>();
  private reloadSeq = 0;

  constructor(
    private readonly db: Database,
    private readonly audit: AuditService,
    private readonly listener: PgListener,
    private readonly logger: Logger,
    deployment: ReadonlyArray<Omit<Override, 'updatedAt'>> = [],
  ) {
    const now = new Date();
    priceBook.setDeployment(deployment.map((o) => ({ ...o, updatedAt: now })));
  }

  /** Loads every workspace's prices and listens for changes. */
  async start(): Promise<void> {
    await this.listener.listen(
      PRICE_OVERRIDES_CHANNEL,
      (tenantId) => void this.reload(tenantId),
      () => void this.reloadAll(),
    );
    await this.reloadAll();
  }

  list(tenantId: string): z.infer<typeof PriceOverrideList> {
    return {
      items: [
        ...priceBook.workspaceOverrides(tenantId).map((o) => toDto(o, 'workspace')),
        ...priceBook.deploymentOverrides().map((o) => toDto(o, 'deployment')),
      ],
    };
  }

  async set(
    tenantId: string,
    actor: ActorRef,
    input: z.infer<typeof SetPriceOverrideInput>,
  ): Promise<z.infer<typeof PriceOverride>> {
    const provider = input.provider ?? '';
    const saved = await this.db.transaction(async (tx) => {
      const before = await priceOverridesRepository.find(tx, tenantId, provider, input.model);
      const row = await priceOverridesRepository.upsert(tx, tenantId, {
        provider,
        model: input.model,
        input: input.input,
        output: input.output,
        cachedInput: input.cachedInput ?? null,
        cacheWrite5m: input.cacheWrite5m ?? null,
        cacheWrite1h: input.cacheWrite1h ?? null,
      });
      await this.audit.record(tx, {
        tenantId,
        actor,
        action: 'pricing.override.set',
        targetType: 'price_override',
        targetId: `${provider}/${input.model}`,
        before: before ? toOverride(before) : null,
        after: toOverride(row),
      });
      await priceOverridesRepository.announceChange(tx, tenantId);
      return row;
    });
    // Applied here at once; the notification brings it to the other processes.
    await this.reload(tenantId);
    return toDto(toOverride(saved), 'workspace');
  }

  async remove(
    tenantId: string,
    actor: ActorRef,
    input: z.infer<typeof DeletePriceOverrideInput>,
  ): Promise<z.infer<typeof DeletedPriceOverride>> {
    const provider = input.provider ?? '';
    await this.db.transaction(async (tx) => {
      const gone = await priceOverridesRepository.remove(tx, tenantId, provider, input.model);
      if (!gone)
        throw new GatewayError(
          'not_found_error',
          `No price override for ${input.provider ? `${input.provider}/` : ''}${input.model} in this workspace`,
        );
      await this.audit.record(tx, {
        tenantId,
        actor,
        action: 'pricing.override.delete',
        targetType: 'price_override',
        targetId: `${provider}/${input.model}`,
        before: toOverride(gone),
        after: null,
      });
      await priceOverridesRepository.announceChange(tx, tenantId);
    });
    await this.reload(tenantId);
    return { deleted: true, provider: input.provider ?? null, model: input.model };
  }

  /**
   * Re-reads a workspace's prices into the price book. Reloads overlap (this process's change and
   * the notifications of others): the one started last among those that finished wins, so a
   * stale read finishing late never undoes a newer one, and a change's own reload (awaited before
   * its answer) is applied unless a newer read already was.
   */
  private async reload(tenantId: string): Promise<void> {
    const seq = ++this.reloadSeq;
    try {
      const rows = await priceOverridesRepository.list(this.db, tenantId);
      this.apply(tenantId, seq, rows.map(toOverride));
    } catch (err) {
      this.logger.error({ tenantId, err: (err as Error).message }, 'price overrides reload failed');
    }
  }

  private async reloadAll(): Promise<void> {
    const seq = ++this.reloadSeq;
    try {
      const rows = await priceOverridesRepository.listAllTenants(this.db);
      const byTenant = new Map<string, Override[]>();
      for (const id of priceBook.workspaceIds()) byTenant.set(id, []);
      for (const r of rows) {
        const list = byTenant.get(r.tenantId) ?? [];
        list.push(toOverride(r));
        byTenant.set(r.tenantId, list);
      }
      for (const [tenantId, list] of byTenant) this.apply(tenantId, seq, list);
    } catch (err) {
      this.logger.error({ err: (err as Error).message }, 'price overrides load failed');
    }
  }

  private apply(tenantId: string, seq: number, overrides: Override[]): void {
    if (seq <= (this.applied.get(tenantId) ?? 0)) return;
    this.applied.set(tenantId, seq);
    priceBook.setWorkspace(tenantId, overrides);
  }
}
