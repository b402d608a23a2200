import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { newId } from '../../../server/lib/ids.js';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';
import { runCli, type CliResult } from '../../support/cli.js';

// gatewayctl migrations and gatewayctl regression against a real gateway: tables, --json, and the
// errors of unknown ids and missing options.

let c: ChatEnv;
vi.setConfig({ testTimeout: 90_000 });

beforeAll(async () => {
  c = await startChatEnv();
});
afterAll(() => c?.close());

const cli = (args: string[]): Promise<CliResult> => runCli(args, { url: c.env.baseUrl, token: c.tenant.token });

describe('gatewayctl migrations', () => {
  it('opts in, shows the status, runs a cycle, lists and rolls back', async () => {
    const off = await cli(['--json', 'migrations', 'status']);
    expect(off.code, off.stderr).toBe(0);
    expect(JSON.parse(off.stdout)).toMatchObject({ enabled: false, activeMigrations: 0 });
    const on = await cli(['migrations', 'opt-in']);
    expect(on.stdout).toContain('Cost migrations are on.');
    const status = await cli(['migrations', 'status']);
    expect(status.stdout).toMatch(/Opted in\s*│?\s*yes/);
    const run = await cli(['migrations', 'run']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Migrated 0, rolled back 0, grace ended for 0.');

    // A migration made by an earlier cycle.
    const id = newId('cmig');
    await c.query(
      `insert into cost_migrations (id, tenant_id, task_type, complexity, from_provider, from_model, to_provider, to_model,
         status, evidence, projected_monthly_savings_usd, grace_until)
       values ($1, $2, 'qa', 'complex', 'openai', 'gpt-4o', 'openai', 'gpt-4o-mini', 'active', $3, 12.5, now() + interval '7 days')`,
      [
        id,
        c.tenant.tenantId,
        JSON.stringify({
          fromAvgScore: 4.6,
          fromSamples: 40,
          fromCostPerCallUsd: 0.01,
          fromCallsLast30d: 1250,
          toAvgScore: 4.5,
          toSamples: 20,
          toCostPerCallUsd: 0.0006,
          tolerance: 0.3,
        }),
      ],
    );
    const list = await cli(['migrations', 'list']);
    expect(list.stdout).toContain(id);
    expect(list.stdout).toMatch(
      /qa\/complex.*openai\/gpt-4o .*openai\/gpt-4o-mini.*active \(grace\).*4\.60\/4\.50.*\$12\.50/s,
    );
    const back = await cli(['--json', 'migrations', 'rollback', id, '--reason', 'checked by hand']);
    expect(back.code, back.stderr).toBe(0);
    expect(JSON.parse(back.stdout)).toMatchObject({ id, status: 'rolled_back', rollbackKind: 'manual' });
    const again = await cli(['migrations', 'rollback', id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already rolled back');
    const unknown = await cli(['migrations', 'rollback', 'cmig_nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("'cmig_nope' not found");
  });
});

describe('gatewayctl regression', () => {
  it('opts in, shows the bank, lists events and resolves one with a note', async () => {
    const on = await cli(['regression', 'opt-in']);
    expect(on.stdout).toContain('Regression detection is on.');
    const status = await cli(['--json', 'regression', 'status']);
    expect(JSON.parse(status.stdout)).toMatchObject({ enabled: true, replayBankSize: 0, weeklyReplaySpendUsd: 0 });
    const table = await cli(['regression', 'status']);
    expect(table.stdout).toContain('Replay bank');

    const id = newId('reg');
    await c.query(
      `insert into regression_events (id, tenant_id, task_type, complexity, provider, model, sample_count,
         original_avg_score, replay_avg_score, score_delta, severity, example_request_ids)
       values ($1, $2, 'qa', 'simple', 'openai', 'gpt-4.1-nano', 20, 4.4, 2.5, -1.9, 'critical', '["req_a"]')`,
      [id, c.tenant.tenantId],
    );
    const events = await cli(['regression', 'events', '--unresolved']);
    expect(events.stdout).toMatch(
      new RegExp(`${id}.*qa/simple.*openai/gpt-4\\.1-nano.*20.*4\\.40.*2\\.50.*-1\\.90.*critical`, 's'),
    );
    const noNote = await cli(['regression', 'resolve', id]);
    expect(noNote.code).toBe(2);
    const done = await cli(['--json', 'regression', 'resolve', id, '--note', 'a bad deploy, fixed']);
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(done.stdout)).toMatchObject({ id, resolved: true, resolutionNote: 'a bad deploy, fixed' });
    const unresolved = await cli(['--json', 'regression', 'events', '--unresolved']);
    expect(JSON.parse(unresolved.stdout).items).toEqual([]);
    const off = await cli(['regression', 'opt-in', '--off']);
    expect(off.stdout).toContain('Regression detection is off.');
  });
});
