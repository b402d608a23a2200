import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../../support/cli.js';
import { startTestEnv, type TestEnv, type TestTenant } from '../../support/harness.js';
import { keyedStandIn, type KeyedStandIn } from '../../support/keyed-stand-in.js';
import { StandIns } from '../../support/stand-in.js';
import { StripeStandIn } from '../../support/stripe-stand-in.js';

// gatewayctl keys, providers add|custom|update|remove and billing, against a real gateway whose
// providers and payment provider are local stand-ins.

const KEY = 'sk-cli-workspace-key-7777';
const standIns = new StandIns();
const stripe = new StripeStandIn('whsec_cli');
let upstream: KeyedStandIn;
let env: TestEnv;
let tenant: TestTenant;
const cli = (args: string[]): Promise<CliResult> => runCli(args, { url: env.baseUrl, token: tenant.token });

beforeAll(async () => {
  upstream = await keyedStandIn(standIns, ['gpt-4o-mini', 'local-7b'], [KEY]);
  await stripe.start(standIns);
  env = await startTestEnv({
    env: {
      GATEWAY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      GATEWAY_ALLOW_PRIVATE_PROVIDER_URLS: 'true',
      OPENAI_BASE_URL: `${upstream.base}/v1`,
      STRIPE_SECRET_KEY: 'sk_test_cli',
      STRIPE_API_BASE: stripe.base,
      STRIPE_WEBHOOK_SECRET: 'whsec_cli',
      STRIPE_PRICE_TEAM: 'price_team',
    },
  });
  tenant = await env.createTenant('free');
});
afterAll(async () => {
  await env.close();
  await standIns.closeAll();
});

describe('gatewayctl keys', () => {
  it('sets, lists (masked) and removes a provider key', async () => {
    const set = await cli(['keys', 'set', 'openai', KEY]);
    expect(set, set.stderr).toMatchObject({ code: 0 });
    expect(set.stdout).toContain('…7777');
    expect(set.stdout).not.toContain(KEY);
    const listed = JSON.parse((await cli(['--json', 'keys', 'list'])).stdout);
    expect(listed.items).toHaveLength(1);
    const refused = await cli(['keys', 'set', 'openai', 'sk-not-accepted-0000']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('refused the key');
    const removed = await cli(['keys', 'remove', listed.items[0].id]);
    expect(removed.stdout).toContain('Deleted');
    expect((await cli(['keys', 'list'])).stdout).not.toContain('openai');
  });
});

describe('gatewayctl providers (custom)', () => {
  it('adds, lists, updates and removes a custom provider', async () => {
    const added = await cli([
      'providers',
      'add',
      'lab',
      `${upstream.base}/v1`,
      '--key',
      KEY,
      '--model',
      'local-7b:0.1:0.2',
    ]);
    expect(added, added.stderr).toMatchObject({ code: 0 });
    expect(added.stdout).toContain('local-7b');
    const listed = JSON.parse((await cli(['--json', 'providers', 'custom'])).stdout);
    expect(listed.items[0]).toMatchObject({ name: 'lab', models: [{ id: 'local-7b', inputPerMillionUsd: 0.1 }] });
    const all = await cli(['providers', 'list']);
    expect(all.stdout).toContain('custom');
    const updated = await cli(['providers', 'update', listed.items[0].id, '--discover']);
    expect(updated.stdout).toContain('gpt-4o-mini');
    const refused = await cli(['providers', 'add', 'bad', `${upstream.base}/v1`, '--model', 'x:-1']);
    expect(refused.code).not.toBe(0);
    expect((await cli(['providers', 'remove', listed.items[0].id])).stdout).toContain('Deleted');
  });
});

describe('gatewayctl billing', () => {
  it('shows the subscription, prints a checkout URL and the portal URL', async () => {
    const status = await cli(['billing', 'status']);
    expect(status.stdout).toMatch(/TIER\s+│ free/);
    const checkout = await cli(['billing', 'checkout', 'team']);
    expect(checkout, checkout.stderr).toMatchObject({ code: 0 });
    expect(checkout.stdout.trim()).toMatch(new RegExp(`^${stripe.base}/pay/cs_`));
    const portal = await cli(['billing', 'portal']);
    expect(portal.stdout.trim()).toContain('/portal/cus_');
  });
});
