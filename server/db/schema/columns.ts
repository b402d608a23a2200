import { text, timestamp } from 'drizzle-orm/pg-core';

// Column helpers shared by every table: tenant scoping and timestamps.
export const tenantId = () => text('tenant_id').notNull();
export const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
export const updatedAt = () => timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
