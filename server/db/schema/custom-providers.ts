import { boolean, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, tenantId, updatedAt } from './columns.js';

/** A model a custom provider serves, with the price and capabilities the workspace gives it. */
export interface CustomModel {
  id: string;
  /** USD per million input and output tokens; null: unpriced (costed at 0). */
  inputPerMillionUsd: number | null;
  outputPerMillionUsd: number | null;
  vision: boolean;
  tools: boolean;
  json: boolean;
}

// A workspace's own upstream (POST /v1/admin/providers): an OpenAI-, Anthropic- or Gemini-format
// endpoint at a base URL the workspace gives (checked against server-side request forgery), its
// key sealed like a provider key, and its models listed here or discovered.
export const customProviders = pgTable(
  'custom_providers',
  {
    id: text('id').primaryKey(),
    tenantId: tenantId(),
    name: text('name').notNull(),
    family: text('family', { enum: ['openai-compatible', 'anthropic', 'gemini'] }).notNull(),
    baseUrl: text('base_url').notNull(),
    ciphertext: text('ciphertext'),
    keyId: text('key_id'),
    last4: text('last4'),
    models: jsonb('models').$type<CustomModel[]>().notNull().default([]),
    /** Ask the provider's models endpoint for its models (the listed ones keep their prices). */
    discover: boolean('discover').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('custom_providers_tenant_name').on(t.tenantId, t.name)],
);

export type CustomProviderRow = typeof customProviders.$inferSelect;
