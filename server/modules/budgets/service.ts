import { sql } from 'drizzle-orm';
import type pg from 'pg';
import type { z } from 'zod';
import type { Database } from '../../db/client.js';
import type { PgListener } from '../../db/listener.js';
import { BUDGETS_CHANNEL, BudgetGate } from '../../gateway/limits/budget-gate.js';
import { utcMonth, utcMonthStart } from '../../lib/utc-month.js';
import type { Logger } from '../../lib/logger.js';
import { newId } from '../../lib/ids.js';
import { auditLogs } from '../../db/schema/index.js';
import type { ActorRef, AuditService } from '../audit/service.js';
import { budgetsRepository as repo } from './repository.js';
import type { Budget, PutBudgetInput } from './schemas.js';

type Dto = z.infer<typeof Budget>;

export class BudgetService {
  readonly gate: BudgetGate;

  constructor(
    private readonly d: { db: Database; pool: pg.Pool; audit: AuditService; listener: PgListener; logger: Logger },
  ) {
    this.gate = new BudgetGate({
      pool: d.pool,
      listener: d.listener,
      logger: d.logger,
      loadBudgets: async (tenantId) =>
        (await repo.list(d.db, tenantId)).map((r) => ({
          tenantId: r.tenantId,
          monthlyUsd: r.monthlyUsd,
          alertThresholds: r.alertThresholds,
          hardStop: r.hardStop,
        })),
      loadSpend: (tenantIds, since) => repo.spend(d.db, tenantIds, since),
      recordAlert: (tenantId, month, thresholdPct, spentUsd, budgetUsd) =>
        d.db.transaction(async (tx) => {
          const first = await repo.recordAlert(tx, { tenantId, month, thresholdPct, spentUsd, budgetUsd });
          if (first)
            await tx.insert(auditLogs).values({
              id: newId('aud'),
              tenantId,
              actorType: 'system',
              actorId: null,
              action: 'budget.alert',
              targetType: 'budget',
              targetId: month,
              after: { thresholdPct, spentUsd, budgetUsd, month },
            });
          return first;
        }),
    });
  }

  async get(tenantId: string): Promise<Dto> {
    const now = new Date();
    const month = utcMonth(now.getTime());
    const row = await repo.get(this.d.db, tenantId);
    const spent =
      this.gate.spentOf(tenantId) ?? (await repo.spend(this.d.db, [tenantId], utcMonthStart(now))).get(tenantId) ?? 0;
    const alerts = await repo.alerts(this.d.db, tenantId, month);
    return {
      monthlyUsd: row?.monthlyUsd ?? null,
      alertThresholds: row?.alertThresholds ?? [],
      hardStop: row?.hardStop ?? false,
      month,
      spentUsd: spent,
      alertsCrossed: alerts.map((a) => ({
        thresholdPct: a.thresholdPct,
        spentUsd: a.spentUsd,
        at: a.createdAt.toISOString(),
      })),
    };
  }

  async put(tenantId: string, actor: ActorRef, input: z.infer<typeof PutBudgetInput>): Promise<Dto> {
    await this.d.db.transaction(async (tx) => {
      const before = await repo.get(tx, tenantId);
      const thresholds = [...new Set(input.alertThresholds)].sort((a, b) => a - b);
      if (input.monthlyUsd === null) await repo.remove(tx, tenantId);
      else
        await repo.upsert(tx, {
          tenantId,
          monthlyUsd: input.monthlyUsd,
          alertThresholds: thresholds,
          hardStop: input.hardStop,
        });
      await this.d.audit.record(tx, {
        tenantId,
        actor,
        action: input.monthlyUsd === null ? 'budget.delete' : 'budget.update',
        targetType: 'budget',
        targetId: null,
        before: before ? summary(before) : null,
        after:
          input.monthlyUsd === null
            ? null
            : { monthlyUsd: input.monthlyUsd, alertThresholds: thresholds, hardStop: input.hardStop },
      });
      await tx.execute(sql`select pg_notify(${BUDGETS_CHANNEL}, ${tenantId})`);
    });
    await this.gate.reload(tenantId);
    return this.get(tenantId);
  }
}

function summary(r: { monthlyUsd: number; alertThresholds: number[]; hardStop: boolean }) {
  return { monthlyUsd: r.monthlyUsd, alertThresholds: r.alertThresholds, hardStop: r.hardStop };
}
