import { doublePrecision, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { createdAt, tenantId, updatedAt } from './columns.js';

// A workspace's negotiated prices (PUT /v1/models/pricing/overrides), USD per million tokens, one
// row per (provider, model). The gateway holds them in memory (gateway/price-book.ts) and costs
// each call with them from the moment they are set; cost rows logged earlier keep their cost.
export const priceOverrides = pgTable(
  'price_overrides',
  {
    tenantId: tenantId(),
    /** The serving provider it applies to; '' for the model on any provider. */
    provider: text('provider').notNull().default(''),
    model: text('model').notNull(),
    input: doublePrecision('input').notNull(),
    output: doublePrecision('output').notNull(),
    /** Null: the list price's ratio to the input rate (gateway/price-book.ts). */
    cachedInput: doublePrecision('cached_input'),
    cacheWrite5m: doublePrecision('cache_write_5m'),
    cacheWrite1h: doublePrecision('cache_write_1h'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ name: 'price_overrides_pk', columns: [t.tenantId, t.provider, t.model] })],
);
