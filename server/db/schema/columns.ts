import { sql, type SQL } from 'drizzle-orm';
import { text, timestamp, type AnyPgColumn } from 'drizzle-orm/pg-core';

// Column helpers shared by every table: tenant scoping and timestamps.
export const tenantId = () => text('tenant_id').notNull();
export const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
export const updatedAt = () => timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();

/**
 * The condition of a check constraint holding a text column to one of `values` (the column is
 * declared `text(name, { enum: values })`, so TypeScript knows the same list as its union type).
 * The values are the schema's own constants, written into the constraint as literals.
 */
export function isOneOf(column: AnyPgColumn, values: readonly string[]): SQL {
  return sql`${column} in (${sql.raw(values.map((v) => `'${v.replaceAll("'", "''")}'`).join(', '))})`;
}
