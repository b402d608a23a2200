import type Stripe from 'stripe';
import type { z } from 'zod';
import type { Config, Tier } from '../../config.js';
import type { Database, Executor } from '../../db/client.js';
import { GatewayError } from '../../lib/errors.js';
import type { Logger } from '../../lib/logger.js';
import { SYSTEM_ACTOR, type ActorRef, type AuditService } from '../audit/service.js';
import { billingRepository, type BillingSubscriptionRow } from './repository.js';
import type { CheckoutInput, CheckoutSession, PortalInput, PortalSession, Subscription } from './schemas.js';
import { verifyWebhookSignature } from './webhook-signature.js';

// Billing (multi mode): a workspace buys a tier through the payment provider's checkout, manages it
// in its billing portal, and its tier follows the subscription as the provider's webhooks report
// it. A webhook never carries the state it is applied with: each one makes the service read the
// subscription from the provider's API, so events arriving late or out of order all leave the
// workspace at the subscription's current state; each event id is handled once (a replay changes
// nothing). Every change of the stored subscription or the tier is audited.

export type PaidTier = Exclude<Tier, 'free'>;

/** Statuses in which the subscription's tier applies. past_due keeps it while the provider retries the payment. */
const PAYING = new Set(['active', 'trialing', 'past_due']);

/** Events that say something about a subscription. */
const SUBSCRIPTION_EVENTS = new Set([
  'checkout.session.completed',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'customer.subscription.paused',
  'customer.subscription.resumed',
  'invoice.paid',
  'invoice.payment_failed',
]);

export interface TierStore {
  tierOf(tx: Executor, tenantId: string): Promise<Tier | undefined>;
  setTier(tx: Executor, tenantId: string, tier: Tier): Promise<void>;
}

export interface BillingServiceDeps {
  db: Database;
  audit: AuditService;
  logger: Logger;
  config: Config;
  /** Null without STRIPE_SECRET_KEY: billing answers 503. */
  stripe: Stripe | null;
  tiers: TierStore;
}

export class BillingService {
  private readonly priceOf: Partial<Record<PaidTier, string>>;
  private readonly tierOfPrice = new Map<string, PaidTier>();
  private readonly secrets: string[];

  constructor(private readonly d: BillingServiceDeps) {
    const c = d.config;
    this.priceOf = {
      team: c.STRIPE_PRICE_TEAM,
      enterprise: c.STRIPE_PRICE_ENTERPRISE,
      intelligence: c.STRIPE_PRICE_INTELLIGENCE,
    };
    for (const [tier, price] of Object.entries(this.priceOf)) if (price) this.tierOfPrice.set(price, tier as PaidTier);
    this.secrets = (c.STRIPE_WEBHOOK_SECRET ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  }

  async checkout(
    tenantId: string,
    actor: ActorRef,
    input: z.infer<typeof CheckoutInput>,
  ): Promise<z.infer<typeof CheckoutSession>> {
    const stripe = this.requireStripe();
    const price = this.priceOf[input.tier];
    if (!price)
      throw new GatewayError(
        'invalid_request_error',
        `tier: no price is configured for ${input.tier} (STRIPE_PRICE_${input.tier.toUpperCase()})`,
      );
    const customer = await this.customerOf(tenantId, actor);
    const returnUrl = this.d.config.GATEWAY_BILLING_RETURN_URL;
    const session = await this.call(() =>
      stripe.checkout.sessions.create({
        mode: 'subscription',
        customer,
        client_reference_id: tenantId,
        line_items: [{ price, quantity: 1 }],
        metadata: { tenant_id: tenantId, tier: input.tier },
        subscription_data: { metadata: { tenant_id: tenantId } },
        success_url: input.successUrl ?? returnUrl,
        cancel_url: input.cancelUrl ?? returnUrl,
      }),
    );
    if (!session.url) throw new GatewayError('provider_error', 'The payment provider returned no checkout URL');
    return { id: session.id, url: session.url, tier: input.tier };
  }

  async portal(tenantId: string, input: z.infer<typeof PortalInput>): Promise<z.infer<typeof PortalSession>> {
    const stripe = this.requireStripe();
    const row = await billingRepository.get(this.d.db, tenantId);
    if (!row)
      throw new GatewayError(
        'conflict_error',
        'This workspace has no billing account yet: start with POST /v1/billing/checkout-session',
      );
    const session = await this.call(() =>
      stripe.billingPortal.sessions.create({
        customer: row.customerId,
        return_url: input.returnUrl ?? this.d.config.GATEWAY_BILLING_RETURN_URL,
      }),
    );
    return { url: session.url };
  }

  async subscription(tenantId: string, tier: Tier): Promise<z.infer<typeof Subscription>> {
    const row = await billingRepository.get(this.d.db, tenantId);
    return {
      tier,
      status: row?.status ?? 'none',
      subscriptionTier: (row?.tier as Tier | undefined) ?? 'free',
      currentPeriodEnd: row?.currentPeriodEnd?.toISOString() ?? null,
      cancelAtPeriodEnd: row?.cancelAtPeriodEnd ?? false,
      customerId: row?.customerId ?? null,
    };
  }

  /**
   * POST /v1/webhooks/stripe. Throws a 400 (nothing changed) when the signature does not check out.
   * Returns whether the event was new.
   */
  async webhook(rawBody: Buffer, signature: string | undefined): Promise<{ received: true; duplicate: boolean }> {
    const stripe = this.requireStripe();
    if (this.secrets.length === 0) throw new GatewayError('service_unavailable', 'STRIPE_WEBHOOK_SECRET is not set');
    verifyWebhookSignature(rawBody, signature, this.secrets, this.d.config.STRIPE_WEBHOOK_TOLERANCE_SECONDS);
    let event: { id?: unknown; type?: unknown; data?: { object?: Record<string, unknown> } };
    try {
      event = JSON.parse(rawBody.toString('utf8'));
    } catch {
      throw new GatewayError('invalid_request_error', 'Webhook body is not JSON');
    }
    if (typeof event.id !== 'string' || typeof event.type !== 'string')
      throw new GatewayError('invalid_request_error', 'Webhook body is not an event');
    const { id, type } = event;
    const object = event.data?.object ?? {};
    const subscriptionId = SUBSCRIPTION_EVENTS.has(type) ? subscriptionIdOf(type, object) : undefined;
    // Read before the transaction: the provider's answer is the state to apply, whatever the event said.
    const current = subscriptionId ? await this.call(() => stripe.subscriptions.retrieve(subscriptionId)) : undefined;
    const tenantId = current ? await this.tenantOf(current) : undefined;
    return this.d.db.transaction(async (tx) => {
      if (tenantId) await billingRepository.lockTenant(tx, tenantId);
      if (!(await billingRepository.recordEvent(tx, id, type, tenantId ?? null)))
        return { received: true, duplicate: true };
      if (current && tenantId) await this.apply(tx, tenantId, current, id);
      else if (SUBSCRIPTION_EVENTS.has(type))
        this.d.logger.warn({ event: id, type }, 'billing webhook for a subscription no workspace is known for');
      return { received: true, duplicate: false };
    });
  }

  /** The workspace's subscription row and tier set from the subscription as the provider has it now. */
  private async apply(tx: Executor, tenantId: string, sub: Stripe.Subscription, eventId: string): Promise<void> {
    const before = await billingRepository.get(tx, tenantId, true);
    const item = sub.items?.data?.[0];
    const priceId = item?.price?.id ?? null;
    const periodEnd =
      item?.current_period_end ?? (sub as unknown as { current_period_end?: number }).current_period_end;
    const paidTier = priceId ? this.tierOfPrice.get(priceId) : undefined;
    const tier: Tier = paidTier && PAYING.has(sub.status) ? paidTier : 'free';
    const customerId = typeof sub.customer === 'string' ? sub.customer : sub.customer.id;
    const after = {
      customerId,
      subscriptionId: sub.id,
      priceId,
      tier,
      status: sub.status,
      currentPeriodEnd: periodEnd ? new Date(periodEnd * 1000) : null,
      cancelAtPeriodEnd: sub.cancel_at_period_end === true,
    };
    if (!before) await billingRepository.insertCustomer(tx, tenantId, customerId);
    // Another subscription than the one on record that has ended says nothing about the current one.
    if (before?.subscriptionId && before.subscriptionId !== sub.id && !PAYING.has(sub.status)) return;
    if (before && sameState(before, after)) return;
    await billingRepository.update(tx, tenantId, { ...after, eventCreated: new Date() });
    await this.d.audit.record(tx, {
      tenantId,
      actor: SYSTEM_ACTOR,
      action: 'billing.subscription.update',
      targetType: 'subscription',
      targetId: sub.id,
      before: before ? view(before) : null,
      after: { ...after, currentPeriodEnd: after.currentPeriodEnd?.toISOString() ?? null, event: eventId },
    });
    const currentTier = await this.d.tiers.tierOf(tx, tenantId);
    if (currentTier !== tier) {
      await this.d.tiers.setTier(tx, tenantId, tier);
      await this.d.audit.record(tx, {
        tenantId,
        actor: SYSTEM_ACTOR,
        action: 'billing.tier.change',
        targetType: 'tenant',
        targetId: tenantId,
        before: { tier: currentTier ?? null },
        after: { tier, status: sub.status, subscription: sub.id, event: eventId },
      });
    }
  }

  /** The workspace a subscription belongs to: its metadata (set at checkout), else its customer's row. */
  private async tenantOf(sub: Stripe.Subscription): Promise<string | undefined> {
    const customerId = typeof sub.customer === 'string' ? sub.customer : sub.customer.id;
    const byCustomer = await billingRepository.byCustomer(this.d.db, customerId);
    if (byCustomer) return byCustomer.tenantId;
    const fromMetadata = sub.metadata?.tenant_id;
    return typeof fromMetadata === 'string' && fromMetadata ? fromMetadata : undefined;
  }

  /** The workspace's customer at the provider, made (and audited) on its first checkout. */
  private async customerOf(tenantId: string, actor: ActorRef): Promise<string> {
    const existing = await billingRepository.get(this.d.db, tenantId);
    if (existing) return existing.customerId;
    const stripe = this.requireStripe();
    const customer = await this.call(() => stripe.customers.create({ metadata: { tenant_id: tenantId } }));
    return this.d.db.transaction(async (tx) => {
      const row = await billingRepository.insertCustomer(tx, tenantId, customer.id);
      if (row.customerId === customer.id)
        await this.d.audit.record(tx, {
          tenantId,
          actor,
          action: 'billing.customer.create',
          targetType: 'subscription',
          targetId: customer.id,
          before: null,
          after: { customerId: customer.id },
        });
      return row.customerId;
    });
  }

  private requireStripe(): Stripe {
    if (this.d.config.GATEWAY_MODE !== 'multi')
      throw new GatewayError(
        'invalid_request_error',
        'Billing is part of multi-tenant mode; single mode takes its tier from GATEWAY_TIER',
      );
    if (!this.d.stripe) throw new GatewayError('service_unavailable', 'Billing is not configured (STRIPE_SECRET_KEY)');
    return this.d.stripe;
  }

  /** A payment-provider call; its failure is a 502 naming the provider, never its internals. */
  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      this.d.logger.error({ err: (err as Error).message }, 'payment provider call failed');
      throw new GatewayError('provider_error', 'The payment provider could not be reached or refused the request', {
        cause: err,
      });
    }
  }
}

function subscriptionIdOf(type: string, object: Record<string, unknown>): string | undefined {
  const ref = type.startsWith('customer.subscription.') ? object['id'] : object['subscription'];
  if (typeof ref === 'string') return ref;
  if (ref && typeof ref === 'object' && typeof (ref as { id?: unknown }).id === 'string')
    return (ref as { id: string }).id;
  return undefined;
}

function view(r: BillingSubscriptionRow) {
  return {
    customerId: r.customerId,
    subscriptionId: r.subscriptionId,
    priceId: r.priceId,
    tier: r.tier,
    status: r.status,
    currentPeriodEnd: r.currentPeriodEnd?.toISOString() ?? null,
    cancelAtPeriodEnd: r.cancelAtPeriodEnd,
  };
}

function sameState(
  r: BillingSubscriptionRow,
  a: {
    subscriptionId: string;
    priceId: string | null;
    tier: string;
    status: string;
    currentPeriodEnd: Date | null;
    cancelAtPeriodEnd: boolean;
  },
): boolean {
  return (
    r.subscriptionId === a.subscriptionId &&
    r.priceId === a.priceId &&
    r.tier === a.tier &&
    r.status === a.status &&
    (r.currentPeriodEnd?.getTime() ?? null) === (a.currentPeriodEnd?.getTime() ?? null) &&
    r.cancelAtPeriodEnd === a.cancelAtPeriodEnd
  );
}
