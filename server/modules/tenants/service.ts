import type { Tier } from '../../config.js';
import type { Database, Executor } from '../../db/client.js';
import type { ApiTokenRow } from '../../db/schema/index.js';
import { generateToken, hashToken, tokenDisplayPrefix } from '../../lib/crypto.js';
import { newId } from '../../lib/ids.js';
import { SYSTEM_ACTOR, type AuditService } from '../audit/service.js';
import { tokensRepository } from '../tokens/repository.js';
import { summary } from '../tokens/service.js';
import { tenantsRepository } from './repository.js';

export const DEFAULT_TENANT_ID = 'ten_default';
const BOOTSTRAP_ADMIN_TOKEN_ID = 'tok_admin';

export interface NewTenant {
  tenantId: string;
  adminTokenId: string;
  /** The admin token's secret, shown once. */
  adminToken: string;
}

export class TenantService {
  constructor(
    private readonly db: Database,
    private readonly audit: AuditService,
  ) {}

  /** A workspace with one admin token (multi-tenant sign-up, and test fixtures). */
  async create(name: string, tier: Tier): Promise<NewTenant> {
    const tenantId = newId('ten');
    const adminToken = generateToken();
    const adminTokenId = newId('tok');
    await this.db.transaction(async (tx) => {
      await tenantsRepository.insert(tx, tenantId, { name, tier });
      await tokensRepository.insert(tx, {
        id: adminTokenId,
        tenantId,
        name: 'admin',
        prefix: tokenDisplayPrefix(adminToken),
        hash: hashToken(adminToken),
        admin: true,
      });
    });
    return { tenantId, adminTokenId, adminToken };
  }

  /** A workspace with no token: its first member signs in (multi-tenant sign-up), in the caller's transaction. */
  async createWorkspace(tx: Executor, name: string, tier: Tier): Promise<string> {
    const tenantId = newId('ten');
    await tenantsRepository.insert(tx, tenantId, { name, tier });
    return tenantId;
  }

  async get(tenantId: string): Promise<{ id: string; name: string; tier: Tier } | undefined> {
    const row = await tenantsRepository.get(this.db, tenantId);
    return row && { id: row.id, name: row.name, tier: row.tier as Tier };
  }

  /** A workspace's tier, as stored (the billing module reads it before a change). */
  async tierOf(tx: Executor, tenantId: string): Promise<Tier | undefined> {
    return (await tenantsRepository.tierOf(tx, tenantId, true)) as Tier | undefined;
  }

  /**
   * Sets a workspace's tier (billing) in the caller's transaction, and tells every node: their
   * cached tokens carry the tier, and are read again once the change commits.
   */
  async setTier(tx: Executor, tenantId: string, tier: Tier): Promise<void> {
    await tenantsRepository.setTier(tx, tenantId, tier);
    await tokensRepository.announceChange(tx, `tier:${tenantId}`);
  }

  /**
   * Single-tenant start-up: make sure the one workspace and an admin token exist.
   * - With a configured token, the bootstrap admin token (`tok_admin`) has its hash. Only a changed
   *   value is written (enabled, audited, announced so other nodes stop taking the old secret at
   *   once); an unchanged one leaves the row alone, so a `tok_admin` disabled through the API stays
   *   disabled across restarts.
   * - Without one, a token is generated only when the workspace has no enabled admin token (first
   *   start, or every admin token deleted or disabled: restarting recovers access), and returned so
   *   the banner can print it once. A workspace whose admins replaced `tok_admin` keeps it gone.
   * Serialised across nodes starting at once, so only one of them generates (and prints) a token.
   */
  async bootstrapSingle(tier: Tier, configuredToken?: string): Promise<{ generatedToken?: string }> {
    return this.db.transaction(async (tx) => {
      await tenantsRepository.upsertTier(tx, DEFAULT_TENANT_ID, { name: 'default', tier });
      await tokensRepository.lockAdminChanges(tx, DEFAULT_TENANT_ID);
      const existing = await tokensRepository.get(tx, DEFAULT_TENANT_ID, BOOTSTRAP_ADMIN_TOKEN_ID);
      if (configuredToken) {
        if (existing?.hash !== hashToken(configuredToken))
          await this.writeBootstrapToken(tx, configuredToken, 'admin (GATEWAY_ADMIN_TOKEN)', existing);
        return {};
      }
      // '' excludes no token: every enabled admin token of the workspace counts.
      if ((await tokensRepository.countOtherEnabledAdmins(tx, DEFAULT_TENANT_ID, '')) > 0) return {};
      const generatedToken = generateToken();
      await this.writeBootstrapToken(tx, generatedToken, 'admin (generated)', existing);
      return { generatedToken };
    });
  }

  /** Writes `tok_admin` with `secret`'s hash, enabled, audited; a replaced one is announced to every node. */
  private async writeBootstrapToken(
    tx: Executor,
    secret: string,
    name: string,
    replaced: ApiTokenRow | undefined,
  ): Promise<void> {
    const written = await tokensRepository.upsert(tx, DEFAULT_TENANT_ID, BOOTSTRAP_ADMIN_TOKEN_ID, {
      name,
      prefix: tokenDisplayPrefix(secret),
      hash: hashToken(secret),
      enabled: true,
      admin: true,
    });
    const audit = {
      tenantId: DEFAULT_TENANT_ID,
      actor: SYSTEM_ACTOR,
      targetType: 'token',
      targetId: BOOTSTRAP_ADMIN_TOKEN_ID,
      after: summary(written),
    };
    if (replaced) {
      await this.audit.record(tx, { ...audit, action: 'token.rotate', before: summary(replaced) });
      await tokensRepository.announceChange(tx, BOOTSTRAP_ADMIN_TOKEN_ID);
    } else {
      await this.audit.record(tx, { ...audit, action: 'token.create' });
    }
  }
}
