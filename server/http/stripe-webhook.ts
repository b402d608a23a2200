import express, { type Express, type Request, type Response } from 'express';
import type { Logger } from '../lib/logger.js';
import type { BillingService } from '../modules/billing/service.js';
import { SIGNATURE_HEADER } from '../modules/billing/webhook-signature.js';
import { reportError } from './errors.js';

// POST /v1/webhooks/stripe: the payment provider's events. Hand-written because the signature is an
// HMAC over the exact bytes sent, which a parsed and re-encoded JSON body would not reproduce: the
// body is read raw (mounted ahead of the JSON parser) and handed to the billing service as bytes.

export const STRIPE_WEBHOOK_PATH = '/v1/webhooks/stripe';

/** A webhook event is small; Stripe's largest are a few hundred KB. */
const MAX_WEBHOOK_BYTES = 1024 * 1024;

export function mountStripeWebhook(app: Express, deps: { billing: BillingService; logger: Logger }): void {
  app.post(
    STRIPE_WEBHOOK_PATH,
    express.raw({ type: () => true, limit: MAX_WEBHOOK_BYTES }),
    (req: Request, res: Response) => {
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      deps.billing
        .webhook(body, req.headers[SIGNATURE_HEADER] as string | undefined)
        .then((result) => res.status(200).json(result))
        .catch((err: unknown) => reportError(deps.logger, res, err));
    },
  );
}
