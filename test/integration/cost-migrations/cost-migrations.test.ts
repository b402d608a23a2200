import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TestNode, TestTenant } from '../../support/harness.js';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';
import { crossTenantMatrix, expectTypedError, securityMatrix, type SecurityContext } from '../../support/security.js';

// The cost-migration endpoints: opt-in, a cycle on demand, what routing does with a migration (on
// this node and, through NOTIFY, on another), a manual rollback, and the errors.

let c: ChatEnv;
let other: TestTenant;
let node2: TestNode;
let migrationId = '';
const cell = { taskType: 'qa', complexity: 'complex' } as const;

const http = (method: string, path: string, body?: unknown, token = c.tenant.token) =>
  c.env.http(method, path, { token, ...(body === undefined ? {} : { body }) });

async function chatOnCell(
  n: number,
  on: { taskType: string; complexity: string } = cell,
  score: (model: string) => number = () => 5,
): Promise<string[]> {
  const client = c.openai();
  const models: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = (await client.chat.completions.create({
      model: '',
      messages: [{ role: 'user', content: `Question number ${i} at ${Date.now()}` }],
      routing_hint: on.taskType,
      complexity_hint: on.complexity,
    } as never)) as unknown as { _gateway: { requestId: string; model: string } };
    models.push(r._gateway.model);
    // By default both models answer well: user feedback says so.
    await http('POST', '/v1/feedback', { requestId: r._gateway.requestId, score: score(r._gateway.model) });
  }
  return models;
}

beforeAll(async () => {
  c = await startChatEnv({
    openaiOnly: true,
    sim: { models: { openai: ['gpt-4o', 'gpt-4o-mini'] } },
    env: {
      GATEWAY_MIN_SAMPLES: '3',
      GATEWAY_EXPLORATION_RATE: '0.3',
      GATEWAY_ROUTING_SEED: '4',
      GATEWAY_ROUTING_TOLERANCE: '0',
    },
  });
  other = await c.env.createTenant();
  node2 = await c.env.addNode();
}, 60_000);
afterAll(() => c.close());

describe('cost migrations', () => {
  it('starts off: nothing projected, and a cycle on demand asks to opt in first', async () => {
    const status = await http('GET', '/v1/cost-migrations/status');
    expect(status.body).toMatchObject({ enabled: false, activeMigrations: 0, projectedMonthlySavingsUsd: 0 });
    expectTypedError(await http('POST', '/v1/cost-migrations/run'), 409, 'conflict_error');
    // No body: a toggle; a body sets the state.
    expect((await http('POST', '/v1/cost-migrations/opt-in')).body).toEqual({ enabled: true });
    expect((await http('POST', '/v1/cost-migrations/opt-in')).body).toEqual({ enabled: false });
    expect((await http('POST', '/v1/cost-migrations/opt-in', { enabled: true })).body).toEqual({ enabled: true });
    expectTypedError(
      await http('POST', '/v1/cost-migrations/opt-in', { enabled: 'yes' }),
      400,
      'invalid_request_error',
    );
    expectTypedError(await http('POST', '/v1/cost-migrations/opt-in', { on: true }), 400, 'invalid_request_error');
    // The scheduled job, run now, with nothing to act on.
    const job = await http('POST', '/v1/admin/scheduler/jobs/cost-migrations/run', {});
    expect(job.body).toMatchObject({ outcome: 'succeeded', summary: 'migrated 0, rolled back 0, grace ended 0' });
  });

  it('migrates a cell to the cheaper model of the same quality; routing prefers it, boosted, on every node', async () => {
    const before = await chatOnCell(40);
    expect(before.filter((m) => m === 'gpt-4o').length).toBeGreaterThan(20);
    const run = await http('POST', '/v1/cost-migrations/run');
    expect(run.status).toBe(200);
    expect(run.body.migrated).toHaveLength(1);
    const m = run.body.migrated[0];
    migrationId = m.id;
    expect(m).toMatchObject({
      ...cell,
      from: { provider: 'openai', model: 'gpt-4o' },
      to: { provider: 'openai', model: 'gpt-4o-mini' },
      status: 'active',
      inGrace: true,
      rolledBackAt: null,
    });
    expect(m.evidence.fromAvgScore).toBe(5);
    expect(m.projectedMonthlySavingsUsd).toBeGreaterThan(0);
    const status = (await http('GET', '/v1/cost-migrations/status')).body;
    expect(status).toMatchObject({ enabled: true, activeMigrations: 1 });
    expect(status.projectedMonthlySavingsUsd).toBeCloseTo(m.projectedMonthlySavingsUsd, 9);

    expect(c.env.services.dataPlane.routing.cellMigration(c.tenant.tenantId, cell.taskType, cell.complexity)).toEqual({
      id: m.id,
      provider: 'openai',
      model: 'gpt-4o-mini',
      boosted: true,
    });
    // The other node hears of it through NOTIFY.
    await vi.waitFor(() =>
      expect(
        node2.services.dataPlane.routing.cellMigration(c.tenant.tenantId, cell.taskType, cell.complexity)?.id,
      ).toBe(m.id),
    );
    // In grace the migrated model takes exploration's share too: every call.
    expect(new Set(await chatOnCell(15))).toEqual(new Set(['gpt-4o-mini']));
    // A cell with a migration is not migrated again.
    expect((await http('POST', '/v1/cost-migrations/run')).body.migrated).toEqual([]);

    const audit = await c.query(
      `select action, actor_type from audit_logs where tenant_id = $1 and target_type = 'cost_migration'`,
      [c.tenant.tenantId],
    );
    expect(audit).toEqual([{ action: 'cost_migration.create', actor_type: 'system' }]);
  });

  it('ends the boost when the grace period is over; the migration stays', async () => {
    const later = Date.now() + 8 * 86_400_000;
    const r = await c.env.services.costMigrations.cycle(c.tenant.tenantId, later);
    expect(r.graceEnded).toEqual([migrationId]);
    expect(
      c.env.services.dataPlane.routing.cellMigration(c.tenant.tenantId, cell.taskType, cell.complexity),
    ).toMatchObject({ model: 'gpt-4o-mini', boosted: false });
    const [listed] = (await http('GET', '/v1/cost-migrations')).body.items;
    expect(listed).toMatchObject({ id: migrationId, status: 'active', inGrace: false });
  });

  it('rolls back by hand: routing as before, boost cleared, audited; not again', async () => {
    const r = await http('POST', `/v1/cost-migrations/${migrationId}/rollback`, { reason: 'a customer complained' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: migrationId,
      status: 'rolled_back',
      rollbackKind: 'manual',
      rollbackReason: 'a customer complained',
      inGrace: false,
    });
    expect(c.env.services.dataPlane.routing.cellMigration(c.tenant.tenantId, cell.taskType, cell.complexity)).toBe(
      undefined,
    );
    await vi.waitFor(() =>
      expect(node2.services.dataPlane.routing.cellMigration(c.tenant.tenantId, cell.taskType, cell.complexity)).toBe(
        undefined,
      ),
    );
    expect((await http('GET', '/v1/cost-migrations/status')).body).toMatchObject({
      activeMigrations: 0,
      projectedMonthlySavingsUsd: 0,
    });
    expectTypedError(await http('POST', `/v1/cost-migrations/${migrationId}/rollback`), 409, 'conflict_error');
    expectTypedError(await http('POST', '/v1/cost-migrations/cmig_nope/rollback'), 404, 'not_found_error');
    expectTypedError(
      await http('POST', `/v1/cost-migrations/${migrationId}/rollback`, { reason: '' }),
      400,
      'invalid_request_error',
    );
    // A cell and model just rolled back are not migrated to again at once.
    expect((await http('POST', '/v1/cost-migrations/run')).body.migrated).toEqual([]);
    const items = (await http('GET', '/v1/cost-migrations')).body.items;
    expect(items.map((i: { status: string }) => i.status)).toEqual(['rolled_back']);
    const audit = await c.query(
      `select action, actor_type from audit_logs where tenant_id = $1 and target_type = 'cost_migration' order by created_at`,
      [c.tenant.tenantId],
    );
    expect(audit).toEqual([
      { action: 'cost_migration.create', actor_type: 'system' },
      { action: 'cost_migration.rollback', actor_type: 'token' },
    ]);
  });

  it('still rolls back a migration that fails its grace after the workspace opted out', async () => {
    const coding = { taskType: 'coding', complexity: 'complex' };
    await chatOnCell(40, coding);
    const run = await http('POST', '/v1/cost-migrations/run');
    expect(run.body.migrated.map((m: { taskType: string }) => m.taskType)).toEqual(['coding']);
    expect((await http('POST', '/v1/cost-migrations/opt-in', { enabled: false })).body).toEqual({ enabled: false });
    // Users find the migrated model poor on this cell.
    expect(new Set(await chatOnCell(5, coding, (m) => (m === 'gpt-4o-mini' ? 1 : 5)))).toEqual(
      new Set(['gpt-4o-mini']),
    );
    const job = await http('POST', '/v1/admin/scheduler/jobs/cost-migrations/run', {});
    expect(job.body).toMatchObject({ outcome: 'succeeded', summary: 'migrated 0, rolled back 1, grace ended 0' });
    const [latest] = (await http('GET', '/v1/cost-migrations')).body.items;
    expect(latest).toMatchObject({ taskType: 'coding', status: 'rolled_back', rollbackKind: 'auto' });
    expect(latest.rollbackReason).toContain('judged 1.00 on 5 calls since the migration');
    expect(c.env.services.dataPlane.routing.cellMigration(c.tenant.tenantId, 'coding', 'complex')).toBe(undefined);
    await http('POST', '/v1/cost-migrations/opt-in', { enabled: true });
  });

  it('is reachable through the SDK', async () => {
    const gw = c.env.sdk(c.tenant.token);
    expect((await gw.costMigrations.status.query()).enabled).toBe(true);
    expect((await gw.costMigrations.list.query()).items.map((m) => m.id)).toContain(migrationId);
    expect((await gw.regression.status.query()).enabled).toBe(false);
  });

  it('lists every path in /openapi.json', async () => {
    const doc = (await c.env.http('GET', '/openapi.json')).body;
    for (const [method, p] of [
      ['post', '/v1/cost-migrations/opt-in'],
      ['get', '/v1/cost-migrations/status'],
      ['get', '/v1/cost-migrations'],
      ['post', '/v1/cost-migrations/run'],
      ['post', '/v1/cost-migrations/{id}/rollback'],
      ['post', '/v1/regression/opt-in'],
      ['get', '/v1/regression/status'],
      ['get', '/v1/regression/events'],
      ['post', '/v1/regression/events/{id}/resolve'],
    ] as const)
      expect(doc.paths[p]?.[method], `${method} ${p}`).toBeDefined();
  });

  it('takes an admin token to change anything; any token reads', async () => {
    const created = await http('POST', '/v1/admin/tokens', { name: 'reader' });
    const reader = created.body.token as string;
    expect((await http('GET', '/v1/cost-migrations/status', undefined, reader)).status).toBe(200);
    expect((await http('GET', '/v1/regression/events', undefined, reader)).status).toBe(200);
    expectTypedError(await http('POST', '/v1/cost-migrations/run', undefined, reader), 403, 'permission_error');
    expectTypedError(await http('POST', '/v1/regression/opt-in', {}, reader), 403, 'permission_error');
  });

  const ctx = (): SecurityContext => ({ owner: c.tenant, other, ids: { migration: migrationId } });
  securityMatrix(() => c.env, ctx, [
    { method: 'POST', path: '/v1/cost-migrations/opt-in', body: {} },
    { method: 'GET', path: '/v1/cost-migrations/status' },
    { method: 'GET', path: '/v1/cost-migrations' },
    { method: 'POST', path: '/v1/cost-migrations/run' },
    { method: 'POST', path: (x) => `/v1/cost-migrations/${x.ids.migration}/rollback` },
    { method: 'POST', path: '/v1/regression/opt-in', body: {} },
    { method: 'GET', path: '/v1/regression/status' },
    { method: 'GET', path: '/v1/regression/events' },
    { method: 'POST', path: '/v1/regression/events/reg_x/resolve', body: { note: 'n' } },
  ]);
  crossTenantMatrix(() => c.env, ctx, [
    { method: 'POST', path: (x) => `/v1/cost-migrations/${x.ids.migration}/rollback` },
  ]);
});
