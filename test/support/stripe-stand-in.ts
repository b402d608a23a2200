import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import type { StandIns } from './stand-in.js';

// A local stand-in for the parts of Stripe's API the gateway uses (customers, checkout sessions,
// billing portal sessions, subscriptions), which also plays Stripe's side of webhooks: it delivers
// events to the gateway signed as Stripe signs them (the stripe package's own test signer), or
// forged, stale or replayed when a test asks.

export interface StandInSubscription {
  id: string;
  object: 'subscription';
  customer: string;
  status: string;
  cancel_at_period_end: boolean;
  metadata: Record<string, string>;
  items: { object: 'list'; data: Array<{ id: string; price: { id: string }; current_period_end: number }> };
}

export interface StandInEvent {
  id: string;
  object: 'event';
  type: string;
  created: number;
  data: { object: Record<string, unknown> };
}

export interface DeliverOptions {
  secret?: string;
  /** Seconds since the epoch the signature claims (default now). */
  timestamp?: number;
  /** A header of the test's own instead of a signature. */
  header?: string | null;
}

const id = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;

export class StripeStandIn {
  base = '';
  /** Where events go (the gateway's webhook URL). */
  webhookUrl = '';
  readonly customers = new Map<string, { id: string; metadata: Record<string, string> }>();
  readonly sessions = new Map<string, Record<string, string>>();
  readonly subscriptions = new Map<string, StandInSubscription>();
  /** Every API request: method, path and form fields. */
  readonly requests: Array<{ method: string; path: string; form: Record<string, string>; auth: string }> = [];

  constructor(readonly webhookSecret: string) {}

  async start(standIns: StandIns): Promise<this> {
    this.base = await standIns.start((req, res) => {
      let raw = '';
      req.on('data', (d: Buffer) => (raw += d));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://x');
        const form = Object.fromEntries(new URLSearchParams(raw));
        this.requests.push({
          method: req.method ?? '',
          path: url.pathname,
          form,
          auth: req.headers.authorization ?? '',
        });
        const send = (status: number, body: unknown) => {
          res.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req') });
          res.end(JSON.stringify(body));
        };
        const path = url.pathname;
        if (req.method === 'POST' && path === '/v1/customers') {
          const customer = { id: id('cus'), object: 'customer', metadata: metadataOf(form, 'metadata') };
          this.customers.set(customer.id, customer);
          return send(200, customer);
        }
        if (req.method === 'POST' && path === '/v1/checkout/sessions') {
          const sid = id('cs');
          this.sessions.set(sid, form);
          return send(200, {
            id: sid,
            object: 'checkout.session',
            mode: form.mode,
            customer: form.customer,
            client_reference_id: form.client_reference_id,
            metadata: metadataOf(form, 'metadata'),
            url: `${this.base}/pay/${sid}`,
          });
        }
        if (req.method === 'POST' && path === '/v1/billing_portal/sessions')
          return send(200, {
            id: id('bps'),
            object: 'billing_portal.session',
            customer: form.customer,
            url: `${this.base}/portal/${form.customer}`,
          });
        const sub = /^\/v1\/subscriptions\/([^/]+)$/.exec(path);
        if (req.method === 'GET' && sub) {
          const found = this.subscriptions.get(sub[1]!);
          if (found) return send(200, found);
          return send(404, { error: { type: 'invalid_request_error', message: `No such subscription: '${sub[1]}'` } });
        }
        send(404, {
          error: { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method}: ${path})` },
        });
      });
    });
    return this;
  }

  /** The user paid: the subscription exists, and Stripe sends checkout.session.completed and customer.subscription.created. */
  async complete(sessionId: string): Promise<{ subscription: StandInSubscription; events: StandInEvent[] }> {
    const form = this.sessions.get(sessionId);
    if (!form) throw new Error(`no session ${sessionId}`);
    const subscription: StandInSubscription = {
      id: id('sub'),
      object: 'subscription',
      customer: form.customer!,
      status: 'active',
      cancel_at_period_end: false,
      metadata: metadataOf(form, 'subscription_data[metadata]'),
      items: {
        object: 'list',
        data: [
          {
            id: id('si'),
            price: { id: form['line_items[0][price]']! },
            current_period_end: nowSeconds() + 30 * 86_400,
          },
        ],
      },
    };
    this.subscriptions.set(subscription.id, subscription);
    const events = [
      this.event('checkout.session.completed', {
        id: sessionId,
        object: 'checkout.session',
        customer: subscription.customer,
        subscription: subscription.id,
        client_reference_id: form.client_reference_id,
      }),
      this.event('customer.subscription.created', { ...subscription }),
    ];
    for (const e of events) await this.deliver(e);
    return { subscription, events };
  }

  /** Changes a subscription as Stripe would and returns the event saying so (not yet delivered). */
  change(
    subId: string,
    patch: Partial<StandInSubscription> & { price?: string },
    type = 'customer.subscription.updated',
  ): StandInEvent {
    const sub = this.subscriptions.get(subId)!;
    const { price, ...rest } = patch;
    Object.assign(sub, rest);
    if (price) sub.items.data[0]!.price = { id: price };
    return this.event(type, structuredClone(sub) as unknown as Record<string, unknown>);
  }

  event(type: string, object: Record<string, unknown>): StandInEvent {
    return { id: id('evt'), object: 'event', type, created: nowSeconds(), data: { object } };
  }

  /** Sends `event` to the gateway, signed with `secret` (default the webhook secret) at `timestamp`. */
  async deliver(event: StandInEvent, opts: DeliverOptions = {}): Promise<{ status: number; body: any }> {
    const payload = JSON.stringify(event);
    const header =
      opts.header !== undefined
        ? opts.header
        : Stripe.webhooks.generateTestHeaderString({
            payload,
            secret: opts.secret ?? this.webhookSecret,
            timestamp: opts.timestamp ?? nowSeconds(),
          });
    const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
    if (header !== null) headers['stripe-signature'] = header;
    const res = await fetch(this.webhookUrl, { method: 'POST', headers, body: payload });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  }
}

function metadataOf(form: Record<string, string>, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(form)) {
    const m = new RegExp(`^${prefix.replace(/[[\]]/g, '\\$&')}\\[([^\\]]+)\\]$`).exec(k);
    if (m) out[m[1]!] = v;
  }
  return out;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);
