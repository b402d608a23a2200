import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestEnv, type TestEnv, type TestTenant } from '../../support/harness.js';
import { expectTypedError, securityMatrix, type SecurityContext } from '../../support/security.js';
import { StandIns } from '../../support/stand-in.js';
import { StripeStandIn, type StandInSubscription } from '../../support/stripe-stand-in.js';

// Billing in multi mode against a local stand-in for Stripe's API that also sends Stripe-signed
// webhooks: checkout and portal sessions, the tier following the subscription (created, updated,
// past due, cancelled at the period's end), and webhooks forged, stale, unsigned, replayed and out
// of order changing nothing they should not.

const OLD_SECRET = 'whsec_old_secret_for_rotation';
const SECRET = 'whsec_current_secret';

const standIns = new StandIns();
const stripe = new StripeStandIn(SECRET);
let env: TestEnv;
let owner: TestTenant;
let other: TestTenant;
let subscription: StandInSubscription;

beforeAll(async () => {
  await stripe.start(standIns);
  env = await startTestEnv({
    env: {
      STRIPE_SECRET_KEY: 'sk_test_stand_in',
      STRIPE_API_BASE: stripe.base,
      STRIPE_WEBHOOK_SECRET: `${SECRET},${OLD_SECRET}`,
      STRIPE_PRICE_TEAM: 'price_team',
      STRIPE_PRICE_ENTERPRISE: 'price_enterprise',
      STRIPE_PRICE_INTELLIGENCE: 'price_intelligence',
      GATEWAY_BILLING_RETURN_URL: 'https://app.example.com/billing',
    },
  });
  stripe.webhookUrl = `${env.baseUrl}/v1/webhooks/stripe`;
  owner = await env.createTenant('free');
  other = await env.createTenant('free');
});
afterAll(async () => {
  await env.close();
  await standIns.closeAll();
});

const subscriptionOf = async (t: TestTenant) =>
  (await env.http('GET', '/v1/billing/subscription', { token: t.token })).body;
const budgets = (t: TestTenant) => env.http('GET', '/v1/spend/budgets', { token: t.token });
const tierChanges = async (t: TestTenant) =>
  (
    await env.database.pool.query(
      "select count(*)::int n from audit_logs where tenant_id = $1 and action = 'billing.tier.change'",
      [t.tenantId],
    )
  ).rows[0].n as number;

describe('billing', () => {
  it('a free workspace is told where to buy the tier a feature needs', async () => {
    const res = await budgets(owner);
    expectTypedError(res, 402, 'insufficient_tier');
    expect(res.body.error.upgrade.checkout).toEqual({
      method: 'POST',
      path: '/v1/billing/checkout-session',
      body: { tier: 'team' },
    });
    expect(await subscriptionOf(owner)).toMatchObject({ tier: 'free', status: 'none', currentPeriodEnd: null });
  });

  it('starts a checkout for a tier: the URL is the payment provider’s', async () => {
    const res = await env.http('POST', '/v1/billing/checkout-session', { token: owner.token, body: { tier: 'team' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.url).toBe(`${stripe.base}/pay/${res.body.id}`);
    const sent = stripe.sessions.get(res.body.id)!;
    expect(sent).toMatchObject({
      mode: 'subscription',
      'line_items[0][price]': 'price_team',
      client_reference_id: owner.tenantId,
      'subscription_data[metadata][tenant_id]': owner.tenantId,
      success_url: 'https://app.example.com/billing',
    });
    expect(stripe.requests.every((r) => r.auth === 'Bearer sk_test_stand_in')).toBe(true);

    // Paid: the webhooks make the workspace team tier, on the next call of every cached token.
    ({ subscription } = await stripe.complete(res.body.id));
    await vi.waitFor(async () => expect((await budgets(owner)).status).toBe(200), { timeout: 5000 });
    const sub = await subscriptionOf(owner);
    expect(sub).toMatchObject({ tier: 'team', subscriptionTier: 'team', status: 'active', cancelAtPeriodEnd: false });
    expect(Date.parse(sub.currentPeriodEnd)).toBeGreaterThan(Date.now());
    expect(await tierChanges(owner)).toBe(1);
    // A second checkout reuses the customer.
    const again = await env.http('POST', '/v1/billing/checkout-session', {
      token: owner.token,
      body: { tier: 'enterprise', successUrl: 'https://app.example.com/ok' },
    });
    expect(stripe.sessions.get(again.body.id)!.customer).toBe(sent.customer);
  });

  it('refuses a forged, an unsigned, a malformed and a stale webhook with 400, changing nothing', async () => {
    const cancel = stripe.event('customer.subscription.deleted', { ...subscription, status: 'canceled' });
    const forged = await stripe.deliver(cancel, { secret: 'whsec_guessed' });
    expectTypedError(forged, 400, 'invalid_request_error');
    expectTypedError(await stripe.deliver(cancel, { header: null }), 400, 'invalid_request_error');
    expectTypedError(await stripe.deliver(cancel, { header: 't=abc,v1=zz' }), 400, 'invalid_request_error');
    const stale = await stripe.deliver(cancel, { timestamp: Math.floor(Date.now() / 1000) - 600 });
    expectTypedError(stale, 400, 'invalid_request_error');
    expect(stale.body.error.message).toContain('tolerance');
    const seen = await env.database.pool.query('select 1 from billing_events where id = $1', [cancel.id]);
    expect(seen.rowCount).toBe(0);
    expect((await subscriptionOf(owner)).tier).toBe('team');
  });

  it('takes a signature made with the previous secret while it is rotated, among several', async () => {
    const event = stripe.change(subscription.id, {});
    const good = await stripe.deliver(event, { secret: OLD_SECRET });
    expect(good).toEqual({ status: 200, body: { received: true, duplicate: false } });
  });

  it('handles an event once: a replay changes nothing', async () => {
    const upgrade = stripe.change(subscription.id, { price: 'price_enterprise' });
    expect((await stripe.deliver(upgrade)).body).toEqual({ received: true, duplicate: false });
    expect((await subscriptionOf(owner)).subscriptionTier).toBe('enterprise');
    const audits = await tierChanges(owner);
    const replay = await stripe.deliver(upgrade);
    expect(replay).toEqual({ status: 200, body: { received: true, duplicate: true } });
    expect(await tierChanges(owner)).toBe(audits);
    await vi.waitFor(
      async () => expect((await env.http('GET', '/v1/spend/drift', { token: owner.token })).status).toBe(200),
      {
        timeout: 5000,
      },
    );
  });

  it('applies the subscription as it is now whatever order events come in', async () => {
    // An older event (the subscription as it was at team tier) arrives after the upgrade's.
    const late = stripe.event('customer.subscription.updated', {
      ...structuredClone(subscription),
      items: { object: 'list', data: [{ id: 'si_old', price: { id: 'price_team' }, current_period_end: 1 }] },
    });
    expect((await stripe.deliver(late)).status).toBe(200);
    expect((await subscriptionOf(owner)).subscriptionTier).toBe('enterprise');
  });

  it('keeps the tier while past due, and ends it at the period end of a cancelled subscription', async () => {
    await stripe.deliver(stripe.change(subscription.id, { status: 'past_due' }));
    expect(await subscriptionOf(owner)).toMatchObject({ status: 'past_due', subscriptionTier: 'enterprise' });

    await stripe.deliver(stripe.change(subscription.id, { status: 'active', cancel_at_period_end: true }));
    expect(await subscriptionOf(owner)).toMatchObject({
      status: 'active',
      cancelAtPeriodEnd: true,
      tier: 'enterprise',
    });

    // The period ends: Stripe deletes the subscription.
    await stripe.deliver(stripe.change(subscription.id, { status: 'canceled' }, 'customer.subscription.deleted'));
    await vi.waitFor(async () => expect((await budgets(owner)).status).toBe(402), { timeout: 5000 });
    expect(await subscriptionOf(owner)).toMatchObject({ tier: 'free', subscriptionTier: 'free', status: 'canceled' });

    const audit = await env.http('GET', '/v1/audit-logs?limit=200', { token: owner.token });
    // The workspace is free again: the audit log (team tier) is read from the database.
    expect(audit.status).toBe(402);
    const rows = await env.database.pool.query(
      "select action, after from audit_logs where tenant_id = $1 and action like 'billing.%' order by created_at",
      [owner.tenantId],
    );
    const tiers = rows.rows.filter((r) => r.action === 'billing.tier.change').map((r) => r.after.tier);
    expect(tiers).toEqual(['team', 'enterprise', 'free']);
    expect(rows.rows.filter((r) => r.action === 'billing.subscription.update').length).toBeGreaterThanOrEqual(5);
  });

  it('opens the billing portal for a workspace with a billing account', async () => {
    const res = await env.http('POST', '/v1/billing/portal-session', { token: owner.token, body: {} });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.url).toContain('/portal/cus_');
    expectTypedError(
      await env.http('POST', '/v1/billing/portal-session', { token: other.token, body: {} }),
      409,
      'conflict_error',
    );
  });

  it('refuses a tier that is not for sale and bad bodies with 400', async () => {
    for (const body of [{ tier: 'free' }, { tier: 'gold' }, {}, { tier: 'team', successUrl: 'not a url' }])
      expectTypedError(
        await env.http('POST', '/v1/billing/checkout-session', { token: other.token, body }),
        400,
        'invalid_request_error',
      );
  });

  it('works through the SDK', async () => {
    const sdk = env.sdk(other.token);
    expect((await sdk.billing.subscription.query()).tier).toBe('free');
    const session = await sdk.billing.checkout.mutate({ tier: 'intelligence' });
    expect(session.url).toContain('/pay/');
  });

  it('lists every billing path in /openapi.json, the webhook without a bearer token', async () => {
    const { paths } = (await env.http('GET', '/openapi.json')).body;
    expect(Object.keys(paths['/v1/billing/checkout-session'])).toEqual(['post']);
    expect(Object.keys(paths['/v1/billing/portal-session'])).toEqual(['post']);
    expect(Object.keys(paths['/v1/billing/subscription'])).toEqual(['get']);
    expect(paths['/v1/webhooks/stripe'].post.security).toEqual([]);
  });
});

describe('single mode', () => {
  it('has no billing: the tier is the deployment setting', async () => {
    const single = await env.addNode({ GATEWAY_MODE: 'single' });
    const res = await fetch(`${single.baseUrl}/v1/billing/checkout-session`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tier: 'team' }),
    });
    expect(res.status).toBe(400);
  });
});

describe('security', () => {
  const ctx = (): SecurityContext => ({ owner, other, ids: {} });
  securityMatrix(() => env, ctx, [
    { method: 'POST', path: '/v1/billing/checkout-session', body: { tier: 'team' } },
    { method: 'POST', path: '/v1/billing/portal-session', body: {} },
    { method: 'GET', path: '/v1/billing/subscription' },
  ]);
});
