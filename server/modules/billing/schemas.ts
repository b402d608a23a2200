import { z } from 'zod';
import { TIERS } from '../../config.js';
import { rest } from '../../trpc/meta.js';

const tag = 'Billing';

const Url = z.string().url().max(2000);

export const CheckoutInput = z.strictObject({
  tier: z.enum(['team', 'enterprise', 'intelligence']).describe('The tier to buy'),
  successUrl: Url.optional().describe(
    'Where checkout sends the user after paying (default GATEWAY_BILLING_RETURN_URL)',
  ),
  cancelUrl: Url.optional().describe('Where checkout sends the user who gives up'),
});

export const CheckoutSession = z.object({
  id: z.string(),
  url: z.string().describe("The payment provider's checkout page: send the user there"),
  tier: z.enum(['team', 'enterprise', 'intelligence']),
});

export const PortalInput = z
  .strictObject({ returnUrl: Url.optional().describe('Where the portal sends the user back to') })
  .optional()
  .default({});

export const PortalSession = z.object({ url: z.string().describe("The payment provider's billing portal") });

export const Subscription = z.object({
  tier: z.enum(TIERS).describe("The workspace's tier now"),
  subscriptionTier: z.enum(TIERS).describe('The tier the subscription pays for (free when there is none, or it ended)'),
  status: z
    .string()
    .describe(
      "The payment provider's subscription status (active, trialing, past_due, canceled, ...); none: never subscribed",
    ),
  currentPeriodEnd: z.string().nullable().describe('When the paid period ends (ISO 8601)'),
  cancelAtPeriodEnd: z.boolean().describe('The subscription ends at the period end (the tier goes back to free then)'),
  customerId: z.string().nullable(),
});

export const billingMeta = {
  checkout: rest('POST', '/v1/billing/checkout-session', tag, 'Start buying a tier: returns the checkout URL', {
    admin: true,
    description: 'Multi-tenant mode. The tier changes when the payment provider reports the subscription (webhook).',
  }),
  portal: rest('POST', '/v1/billing/portal-session', tag, "The payment provider's billing portal for this workspace", {
    admin: true,
    errors: [409],
  }),
  subscription: rest(
    'GET',
    '/v1/billing/subscription',
    tag,
    "The workspace's tier, subscription status and period end",
  ),
};
