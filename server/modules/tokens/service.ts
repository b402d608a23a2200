import type { z } from 'zod';
import type { Database, Executor } from '../../db/client.js';
import type { ApiTokenRow } from '../../db/schema/index.js';
import { generateToken, hashToken, tokenDisplayPrefix } from '../../lib/crypto.js';
import { GatewayError, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { ActorRef, AuditService } from '../audit/service.js';
import type { Authenticator } from './authenticator.js';
import { tokensRepository } from './repository.js';
import type { ApiToken, CreateTokenInput, CreatedApiToken, UpdateTokenInput } from './schemas.js';

type Dto = z.infer<typeof ApiToken>;

export class TokenService {
  constructor(
    private readonly db: Database,
    private readonly audit: AuditService,
    private readonly auth: Authenticator,
  ) {}

  async list(tenantId: string, userId?: string): Promise<Dto[]> {
    return (await tokensRepository.list(this.db, tenantId, userId)).map((r) => toDto(r.token, r.spentUsd));
  }

  async create(
    tenantId: string,
    actor: ActorRef,
    input: z.infer<typeof CreateTokenInput>,
    /** The signed-in member making it: the token is theirs (listed under them, removed with them). */
    userId?: string,
  ): Promise<z.infer<typeof CreatedApiToken>> {
    const secret = generateToken();
    const row = await this.db.transaction(async (tx) => {
      const created = await tokensRepository.insert(tx, {
        id: newId('tok'),
        tenantId,
        name: input.name,
        prefix: tokenDisplayPrefix(secret),
        hash: hashToken(secret),
        admin: input.admin,
        userId: userId ?? null,
        spendLimitUsd: input.spendLimitUsd ?? null,
        spendLimitPeriod: input.spendLimitPeriod ?? 'all_time',
        rateLimitPerMinute: input.rateLimitPerMinute ?? null,
      });
      await this.audit.record(tx, {
        tenantId,
        actor,
        action: 'token.create',
        targetType: 'token',
        targetId: created.id,
        after: summary(created),
      });
      return created;
    });
    return { ...toDto(row, 0), token: secret };
  }

  async update(tenantId: string, actor: ActorRef, input: z.infer<typeof UpdateTokenInput>): Promise<Dto> {
    const { id, ...patch } = input;
    const row = await this.db.transaction(async (tx) => {
      // Locked before the read, so the check below sees every committed disable and delete.
      if (patch.enabled === false) await tokensRepository.lockAdminChanges(tx, tenantId);
      const before = await tokensRepository.get(tx, tenantId, id);
      if (!before) throw notFound('Token', id);
      if (patch.enabled === false && before.enabled)
        await this.assertAnotherAdminRemains(tx, tenantId, before, 'disable');
      // An empty patch changes nothing: no audit entry, no announcement, every cache kept.
      if (Object.keys(patch).length === 0) return { row: before, changed: false };
      const after = await tokensRepository.update(tx, tenantId, id, patch);
      // Deleted meanwhile, by a delete that committed between the read and this write.
      if (!after) throw notFound('Token', id);
      await this.audit.record(tx, {
        tenantId,
        actor,
        action: 'token.update',
        targetType: 'token',
        targetId: id,
        before: summary(before),
        after: summary(after),
      });
      await tokensRepository.announceChange(tx, id);
      return { row: after, changed: true };
    });
    if (row.changed) this.auth.invalidate();
    return toDto(row.row, await tokensRepository.spent(this.db, tenantId, id));
  }

  async remove(tenantId: string, actor: ActorRef, id: string): Promise<{ id: string; deleted: true }> {
    await this.db.transaction(async (tx) => {
      await tokensRepository.lockAdminChanges(tx, tenantId);
      const existing = await tokensRepository.get(tx, tenantId, id);
      if (!existing) throw notFound('Token', id);
      if (existing.enabled) await this.assertAnotherAdminRemains(tx, tenantId, existing, 'delete');
      const removed = await tokensRepository.remove(tx, tenantId, id);
      if (!removed) throw notFound('Token', id);
      await this.audit.record(tx, {
        tenantId,
        actor,
        action: 'token.delete',
        targetType: 'token',
        targetId: id,
        before: summary(removed),
      });
      await tokensRepository.announceChange(tx, id);
    });
    this.auth.invalidate();
    return { id, deleted: true };
  }

  /** A member's role changed or they left: their tokens' cached principals are dropped everywhere when `tx` commits. */
  async memberChanged(tx: Executor, userId: string): Promise<void> {
    await tokensRepository.announceChange(tx, userId);
  }

  /**
   * A workspace keeps at least one enabled admin token: without one nobody could manage tokens
   * again, re-enable this one included (409). The caller holds lockAdminChanges.
   */
  private async assertAnotherAdminRemains(
    tx: Executor,
    tenantId: string,
    token: ApiTokenRow,
    change: 'disable' | 'delete',
  ): Promise<void> {
    if (!token.admin) return;
    if ((await tokensRepository.countOtherEnabledAdmins(tx, tenantId, token.id)) > 0) return;
    throw new GatewayError(
      'conflict_error',
      `Token '${token.id}' is the workspace's last enabled admin token; create or enable another admin token before you ${change} it`,
    );
  }
}

function toDto(r: ApiTokenRow, spentUsd: number): Dto {
  return {
    id: r.id,
    name: r.name,
    prefix: r.prefix,
    enabled: r.enabled,
    admin: r.admin,
    userId: r.userId,
    spendLimitUsd: r.spendLimitUsd,
    spendLimitPeriod: r.spendLimitPeriod,
    spentUsd,
    rateLimitPerMinute: r.rateLimitPerMinute,
    createdAt: r.createdAt.toISOString(),
    lastUsedAt: r.lastUsedAt ? r.lastUsedAt.toISOString() : null,
  };
}

/** What the audit log keeps of a token: never the hash or the secret. */
/** What the audit log keeps of a token (never its hash). */
export function summary(r: ApiTokenRow) {
  return {
    name: r.name,
    enabled: r.enabled,
    admin: r.admin,
    spendLimitUsd: r.spendLimitUsd,
    spendLimitPeriod: r.spendLimitPeriod,
    rateLimitPerMinute: r.rateLimitPerMinute,
  };
}
