import { z } from 'zod';
import { registerOpenApiPaths } from '../trpc/openapi.js';
import { errorResponse } from './chat-openapi.js';
import { STRIPE_WEBHOOK_PATH } from './stripe-webhook.js';

// The hand-written payment-provider webhook in the OpenAPI document.

registerOpenApiPaths({
  [STRIPE_WEBHOOK_PATH]: {
    post: {
      operationId: 'stripe-webhook',
      tags: ['Billing'],
      summary: "The payment provider's events (subscriptions): the workspace's tier follows them",
      description:
        'Authenticated by the Stripe-Signature header (HMAC-SHA256 over the timestamp and the raw body, with STRIPE_WEBHOOK_SECRET; the timestamp within STRIPE_WEBHOOK_TOLERANCE_SECONDS), not a bearer token. Each event id is handled once.',
      security: [],
      requestBody: { content: { 'application/json': { schema: z.object({ id: z.string(), type: z.string() }) } } },
      responses: {
        '200': {
          description: 'Handled (duplicate: true when the event id was handled before: nothing changed)',
          content: { 'application/json': { schema: z.object({ received: z.literal(true), duplicate: z.boolean() }) } },
        },
        '400': errorResponse(
          'A missing, malformed, stale or wrong signature, or a body that is not an event (nothing changed)',
        ),
        '502': errorResponse(
          'The payment provider could not be asked for the subscription (provider_error): it retries',
        ),
        '503': errorResponse('Billing is not configured (service_unavailable)'),
      },
    },
  },
});
