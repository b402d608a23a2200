import { boolean, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { tenantId, updatedAt } from './columns.js';

// A workspace's subscription at the payment provider (multi mode), as its webhooks last told it.
// `event_created` is the creation time of the event that wrote the row: an older event arriving
// late changes nothing (webhooks are not delivered in order).
export const billingSubscriptions = pgTable('billing_subscriptions', {
  tenantId: tenantId().primaryKey(),
  customerId: text('customer_id').notNull(),
  subscriptionId: text('subscription_id'),
  priceId: text('price_id'),
  /** The tier the subscription pays for (free once it has ended). */
  tier: text('tier').notNull().default('free'),
  /** The payment provider's status: active, trialing, past_due, canceled, unpaid, incomplete, ... */
  status: text('status').notNull().default('none'),
  currentPeriodEnd: timestamp('current_period_end', { withTimezone: true, mode: 'date' }),
  cancelAtPeriodEnd: boolean('cancel_at_period_end').notNull().default(false),
  eventCreated: timestamp('event_created', { withTimezone: true, mode: 'date' }),
  updatedAt: updatedAt(),
});

export type BillingSubscriptionRow = typeof billingSubscriptions.$inferSelect;
