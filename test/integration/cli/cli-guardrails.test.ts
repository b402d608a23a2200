import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../../support/cli.js';
import { startTestEnv, type TestEnv, type TestTenant } from '../../support/harness.js';

// gatewayctl guardrails and budgets: the real binary against a real gateway.

let env: TestEnv;
let tenant: TestTenant;
const cli = (args: string[]): Promise<CliResult> => runCli(args, { url: env.baseUrl, token: tenant.token });

beforeAll(async () => {
  env = await startTestEnv();
  tenant = await env.createTenant('team');
});
afterAll(() => env?.close());

describe('gatewayctl guardrails', () => {
  it('lists, enables, creates, disables, deletes, and shows the logs', async () => {
    const listed = await cli(['guardrails', 'list']);
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    expect(listed.stdout).toContain('Instruction override');
    expect(listed.stdout).toContain('Jailbreak Detection');

    const rules = JSON.parse((await cli(['--json', 'guardrails', 'list'])).stdout).items;
    const builtin = rules[0].id as string;
    const enabled = await cli(['guardrails', 'enable', builtin, '--action', 'flag']);
    expect(enabled.stdout).toContain('enabled, action flag');

    const created = JSON.parse(
      (await cli(['--json', 'guardrails', 'create', 'codename', '--pattern', 'blue\\s*falcon'])).stdout,
    );
    expect(created).toMatchObject({ name: 'codename', action: 'block', enabled: true });
    const refused = await cli(['guardrails', 'create', 'bad', '--pattern', '(unclosed']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('does not compile');

    const disabled = await cli(['guardrails', 'disable', created.id]);
    expect(disabled.stdout).toContain('disabled');
    const deleted = await cli(['guardrails', 'delete', created.id]);
    expect(deleted.stdout).toContain('deleted');

    const logs = await cli(['guardrails', 'logs', '--limit', '5']);
    expect(logs).toMatchObject({ code: 0, stderr: '' });
    expect(logs.stdout).toContain('MATCHED');
  });
});

describe('gatewayctl budgets', () => {
  it('sets and shows the monthly budget, and removes it', async () => {
    const set = await cli(['budgets', 'set', '25', '--alerts', '50,90']);
    expect(set).toMatchObject({ code: 0, stderr: '' });
    expect(set.stdout).toMatch(/BUDGET\s*│\s*\$25/);
    expect(set.stdout).toContain('50%, 90%');
    const shown = JSON.parse((await cli(['--json', 'budgets', 'show'])).stdout);
    expect(shown).toMatchObject({ monthlyUsd: 25, alertThresholds: [50, 90], hardStop: true, spentUsd: 0 });
    const removed = JSON.parse((await cli(['--json', 'budgets', 'set', 'none'])).stdout);
    expect(removed.monthlyUsd).toBeNull();
  });
});
