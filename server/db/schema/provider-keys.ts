import { boolean, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, tenantId, updatedAt } from './columns.js';

// A workspace's own credential for a built-in provider (POST /v1/api-keys), one per provider. The
// key is sealed with AES-256-GCM (lib/encryption.ts) under the key named by `key_id`; only its last
// 4 characters are kept in the clear, for listings. The data plane holds the opened keys in memory.
export const providerKeys = pgTable(
  'provider_keys',
  {
    id: text('id').primaryKey(),
    tenantId: tenantId(),
    provider: text('provider').notNull(),
    /** Another address for the provider (a proxy, a regional endpoint); null: the catalog's. */
    baseUrl: text('base_url'),
    ciphertext: text('ciphertext').notNull(),
    keyId: text('key_id').notNull(),
    last4: text('last4').notNull(),
    /** The provider's models endpoint accepted the key when it was stored (false: it could not be asked). */
    verified: boolean('verified').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('provider_keys_tenant_provider').on(t.tenantId, t.provider)],
);

export type ProviderKeyRow = typeof providerKeys.$inferSelect;
