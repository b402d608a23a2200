import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';
import { MONTH_ENV, monthSim, playMigrationMonths, SimClock, type MonthReport } from '../../support/migration-month.js';

// The proof: two months of judged traffic in the simulator (test/support/migration-month.ts). A
// cheaper model as good as the incumbent is migrated to and saves what the status projected; one
// that turns out worse is rolled back automatically during its grace period.

let c: ChatEnv;
let report: MonthReport;
const clock = new SimClock();

beforeAll(async () => {
  c = await startChatEnv({ sim: monthSim(clock), env: MONTH_ENV, openaiOnly: true });
  const client = c.openai();
  report = await playMigrationMonths(
    {
      services: c.env.services,
      tenantId: c.tenant.tenantId,
      token: c.tenant.token,
      http: (method, path, opts) => c.env.http(method, path, opts),
      query: c.query,
      chat: async (body) => {
        await client.chat.completions.create(body as never);
      },
    },
    clock,
    { callsPerCellPerDay: 6 },
  );
}, 240_000);
afterAll(() => c.close());

describe('a month of cost migrations', () => {
  it('migrates both cells whose cheaper model looked as good', () => {
    expect(report.migratedCells).toEqual(['coding/complex', 'qa/complex']);
  });

  it('saves on the kept migration what the status projected, within 10%', () => {
    expect(report.projectedQaUsd).toBeGreaterThan(0);
    // Both migrations were projected at first; the status summed them.
    expect(report.projectedAtMigrationUsd).toBeGreaterThan(report.projectedQaUsd);
    expect(Math.abs(report.savedQaUsd - report.projectedQaUsd) / report.projectedQaUsd).toBeLessThanOrEqual(0.1);
    // The router prefers the migrated model on the cell.
    expect(report.qaShareOfMiniInSecondMonth).toBeGreaterThan(0.85);
  });

  it('rolls back the worse model automatically during grace, and keeps the good one', async () => {
    expect(report.autoRolledBack).toEqual(['coding/complex']);
    expect(report.autoRolledBackOnDay).toBeLessThan(37);
    expect(report.activeAtEnd).toEqual(['qa/complex']);
    // The cell rolled back was not migrated to the same model again.
    expect(report.madeInAll).toBe(2);
    const status = (await c.env.http('GET', '/v1/cost-migrations/status', { token: c.tenant.token })).body;
    expect(status).toMatchObject({ enabled: true, activeMigrations: 1 });
    expect(status.projectedMonthlySavingsUsd).toBeCloseTo(report.projectedQaUsd, 9);
    // Every migration and the automatic rollback wrote an audit row.
    const audit = await c.query<{ action: string; actor_type: string }>(
      `select action, actor_type from audit_logs where tenant_id = $1 and target_type = 'cost_migration' order by created_at`,
      [c.tenant.tenantId],
    );
    expect(audit.map((a) => a.action).sort()).toEqual([
      'cost_migration.auto_rollback',
      'cost_migration.create',
      'cost_migration.create',
    ]);
    expect(new Set(audit.map((a) => a.actor_type))).toEqual(new Set(['system']));
  });
});
