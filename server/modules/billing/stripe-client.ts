import Stripe from 'stripe';
import type { Config } from '../../config.js';

// The Stripe client, from configuration: the secret key, and STRIPE_API_BASE when the API is
// reached at another address (a proxy, or the local stand-in the tests run).

export function stripeFromConfig(config: Config): Stripe | null {
  if (!config.STRIPE_SECRET_KEY) return null;
  const options: Stripe.StripeConfig = { maxNetworkRetries: 1, timeout: 20_000, telemetry: false };
  if (config.STRIPE_API_BASE) {
    const u = new URL(config.STRIPE_API_BASE);
    options.host = u.hostname;
    options.protocol = u.protocol === 'http:' ? 'http' : 'https';
    options.port = Number(u.port || (u.protocol === 'http:' ? 80 : 443));
  }
  return new Stripe(config.STRIPE_SECRET_KEY, options);
}
