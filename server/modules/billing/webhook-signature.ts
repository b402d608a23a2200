import { createHmac, timingSafeEqual } from 'node:crypto';
import { GatewayError } from '../../lib/errors.js';

// The payment provider's webhook signature, checked as Stripe specifies: the `Stripe-Signature`
// header is `t=<unix seconds>,v1=<hex>[,v1=<hex>...]`; each v1 is HMAC-SHA256 over
// `<t>.<raw body>` with a signing secret. The timestamp must be within the tolerance of now (a
// captured event cannot be replayed later), any v1 may match any configured secret (Stripe signs
// with the old and the new secret while one is rolled), and each compare takes constant time.

export const SIGNATURE_HEADER = 'stripe-signature';

export function verifyWebhookSignature(
  rawBody: Buffer,
  header: string | undefined,
  secrets: readonly string[],
  toleranceSeconds: number,
  nowSeconds: number = Math.floor(Date.now() / 1000),
): void {
  if (!header) throw bad('missing Stripe-Signature header');
  let timestamp: number | undefined;
  const signatures: Buffer[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (key === 'v1' && /^[0-9a-f]{64}$/i.test(value)) signatures.push(Buffer.from(value, 'hex'));
  }
  if (timestamp === undefined || signatures.length === 0) throw bad('malformed Stripe-Signature header');
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds)
    throw bad('the signature timestamp is outside the tolerance (a stale or replayed delivery)');
  const signedPayload = Buffer.concat([Buffer.from(`${timestamp}.`, 'utf8'), rawBody]);
  for (const secret of secrets) {
    const expected = createHmac('sha256', secret).update(signedPayload).digest();
    for (const sig of signatures) if (sig.length === expected.length && timingSafeEqual(sig, expected)) return;
  }
  throw bad('no signature matches');
}

function bad(why: string): GatewayError {
  return new GatewayError('invalid_request_error', `Webhook signature check failed: ${why}`);
}
