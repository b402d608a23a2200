import { eq } from 'drizzle-orm';
import type { Tier } from '../../config.js';
import type { Database, Executor } from '../../db/client.js';
import { apiTokens, tenants } from '../../db/schema/index.js';
import { generateToken, hashToken, tokenDisplayPrefix } from '../../lib/crypto.js';
import { newId } from '../../lib/ids.js';
import { tokensRepository } from '../tokens/repository.js';

export const DEFAULT_TENANT_ID = 'ten_default';
const BOOTSTRAP_ADMIN_TOKEN_ID = 'tok_admin';

export interface NewTenant {
  tenantId: string;
  adminTokenId: string;
  /** The admin token's secret, shown once. */
  adminToken: string;
}

export class TenantService {
  constructor(private readonly db: Database) {}

  /** A workspace with one admin token (multi-tenant sign-up, and test fixtures). */
  async create(name: string, tier: Tier): Promise<NewTenant> {
    const tenantId = newId('ten');
    const adminToken = generateToken();
    const adminTokenId = newId('tok');
    await this.db.transaction(async (tx) => {
      await tx.insert(tenants).values({ id: tenantId, name, tier });
      await tx.insert(apiTokens).values({ id: adminTokenId, tenantId, name: 'admin', prefix: tokenDisplayPrefix(adminToken), hash: hashToken(adminToken), admin: true });
    });
    return { tenantId, adminTokenId, adminToken };
  }

  /**
   * Single-tenant start-up: make sure the one workspace and an admin token exist.
   * - With a configured token, the bootstrap admin token (`tok_admin`) has its hash: written when
   *   it changed, and then announced, so other nodes stop taking the old secret at once.
   * - Without one, a token is generated only when the workspace has no enabled admin token (first
   *   start, or every admin token deleted or disabled: restarting recovers access), and returned so
   *   the banner can print it once. A workspace whose admins replaced `tok_admin` keeps it gone.
   * Serialised across nodes starting at once, so only one of them generates (and prints) a token.
   */
  async bootstrapSingle(tier: Tier, configuredToken?: string): Promise<{ generatedToken?: string }> {
    return this.db.transaction(async (tx) => {
      await tx.insert(tenants).values({ id: DEFAULT_TENANT_ID, name: 'default', tier }).onConflictDoUpdate({ target: tenants.id, set: { tier } });
      await tokensRepository.lockAdminChanges(tx, DEFAULT_TENANT_ID);
      const [existing] = await tx.select().from(apiTokens).where(eq(apiTokens.id, BOOTSTRAP_ADMIN_TOKEN_ID)).limit(1);
      if (configuredToken) {
        const hash = hashToken(configuredToken);
        if (existing && existing.hash === hash && existing.enabled && existing.admin && existing.tenantId === DEFAULT_TENANT_ID) return {};
        await this.writeBootstrapToken(tx, configuredToken, 'admin (GATEWAY_ADMIN_TOKEN)', existing !== undefined);
        return {};
      }
      if ((await tokensRepository.countOtherEnabledAdmins(tx, DEFAULT_TENANT_ID, '')) > 0) return {};
      const generatedToken = generateToken();
      await this.writeBootstrapToken(tx, generatedToken, 'admin (generated)', existing !== undefined);
      return { generatedToken };
    });
  }

  /** Writes `tok_admin` with `secret`'s hash, enabled; a replaced one is announced to every node. */
  private async writeBootstrapToken(tx: Executor, secret: string, name: string, replaces: boolean): Promise<void> {
    const values = { tenantId: DEFAULT_TENANT_ID, name, prefix: tokenDisplayPrefix(secret), hash: hashToken(secret), enabled: true, admin: true };
    await tx
      .insert(apiTokens)
      .values({ id: BOOTSTRAP_ADMIN_TOKEN_ID, ...values })
      .onConflictDoUpdate({ target: apiTokens.id, set: values });
    if (replaces) await tokensRepository.announceChange(tx, BOOTSTRAP_ADMIN_TOKEN_ID);
  }
}
