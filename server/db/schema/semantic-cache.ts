import { bigint, customType, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { createdAt, tenantId } from './columns.js';

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });

// The semantic cache's entries: answers stored with the embedding of the last user turn of the
// request they answered, and the exact hash of everything else in it (context_key). Persisted so
// they survive restarts; each gateway process holds the entries of the workspaces it served in
// memory (server/gateway/cache/semantic/). Kept apart from the analytics tables: they hold answers.
export const semanticCacheEntries = pgTable(
  'semantic_cache_entries',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId(),
    provider: text('provider').notNull(),
    model: text('model').notNull(),
    /** SHA-256 of tenant, provider, model and every part of the request but the last user turn's text. */
    contextKey: text('context_key').notNull(),
    /** provider/model of the embedding: vectors of another model are not comparable and are not loaded. */
    embeddingModel: text('embedding_model').notNull(),
    /** float32 little-endian, unit length. */
    embedding: bytea('embedding').notNull(),
    /** The chat completion replayed on a hit. */
    completion: jsonb('completion').notNull(),
    inputTokens: integer('input_tokens').notNull(),
    outputTokens: integer('output_tokens').notNull(),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [
    index('semantic_cache_tenant_created_idx').on(t.tenantId, t.createdAt.desc()),
    index('semantic_cache_tenant_expires_idx').on(t.tenantId, t.expiresAt),
  ],
);
