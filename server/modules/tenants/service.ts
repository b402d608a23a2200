import { eq } from 'drizzle-orm';
import type { Tier } from '../../config.js';
import type { Database } from '../../db/client.js';
import { apiTokens, tenants } from '../../db/schema/index.js';
import { generateToken, hashToken, tokenDisplayPrefix } from '../../lib/crypto.js';
import { newId } from '../../lib/ids.js';

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
   * Single-tenant start-up: make sure the one workspace and its admin token exist. With a
   * configured token its hash is (re)written; otherwise a token is generated on first start only
   * and returned so the banner can print it once.
   */
  async bootstrapSingle(tier: Tier, configuredToken?: string): Promise<{ generatedToken?: string }> {
    await this.db.insert(tenants).values({ id: DEFAULT_TENANT_ID, name: 'default', tier }).onConflictDoUpdate({ target: tenants.id, set: { tier } });
    const existing = await this.db.select({ id: apiTokens.id }).from(apiTokens).where(eq(apiTokens.id, BOOTSTRAP_ADMIN_TOKEN_ID)).limit(1);
    if (configuredToken) {
      const values = { name: 'admin (GATEWAY_ADMIN_TOKEN)', prefix: tokenDisplayPrefix(configuredToken), hash: hashToken(configuredToken), enabled: true, admin: true };
      await this.db
        .insert(apiTokens)
        .values({ id: BOOTSTRAP_ADMIN_TOKEN_ID, tenantId: DEFAULT_TENANT_ID, ...values })
        .onConflictDoUpdate({ target: apiTokens.id, set: values });
      return {};
    }
    if (existing.length > 0) return {};
    const generatedToken = generateToken();
    await this.db.insert(apiTokens).values({
      id: BOOTSTRAP_ADMIN_TOKEN_ID,
      tenantId: DEFAULT_TENANT_ID,
      name: 'admin (generated)',
      prefix: tokenDisplayPrefix(generatedToken),
      hash: hashToken(generatedToken),
      admin: true,
    });
    return { generatedToken };
  }
}
