import type pg from 'pg';
import type { z } from 'zod';
import type { Database } from '../../db/client.js';
import type { CostMigrationRow } from '../../db/schema/index.js';
import type { RoutingState } from '../../gateway/routing/state.js';
import { GatewayError, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { ActorRef, AuditService } from '../audit/service.js';
import { SYSTEM_ACTOR } from '../audit/service.js';
import type { FeedbackService } from '../feedback/service.js';
import type { SpendService } from '../spend/service.js';
import { costMigrationsRepository as repo } from './repository.js';
import type { CostMigration, CostMigrationStatus, CycleResult } from './schemas.js';

type Dto = z.infer<typeof CostMigration>;

const DAY_MS = 86_400_000;
/** A cell and model rolled back are not migrated to again for this long. */
const COOLDOWN_DAYS = 30;

export interface CostMigrationDeps {
  db: Database;
  pool: pg.Pool;
  audit: AuditService;
  routing: Pick<RoutingState, 'announce'>;
  /** The spend module's recommendations: what a cycle acts on. */
  spend: Pick<SpendService, 'recommendations'>;
  feedback: Pick<FeedbackService, 'qualitySince'>;
  tolerance: number;
  graceDays: number;
  minSavingsUsd: number;
  minSamples: number;
  /** Exploration's share of a cell's calls, which a migrated model gives up once its grace ends. */
  explorationRate: number;
}

/**
 * Cost migrations: a cycle moves a cell to the cheaper model its spend recommendation names, on
 * probation for a grace period (boosted, so evidence accrues fast) during which a judged quality
 * below the tolerance rolls it back. Routing holds active migrations in memory (RoutingState),
 * told of every change through NOTIFY.
 */
export class CostMigrationService {
  constructor(private readonly d: CostMigrationDeps) {}

  optIn(tenantId: string, actor: ActorRef, enabled: boolean | undefined): Promise<{ enabled: boolean }> {
    return this.d.audit.toggle(tenantId, actor, enabled, {
      action: 'cost_migrations.opt_in',
      targetType: 'cost_migration_settings',
      read: repo.enabled,
      write: repo.setEnabled,
    });
  }

  async status(tenantId: string): Promise<z.infer<typeof CostMigrationStatus>> {
    const [enabled, active] = await Promise.all([repo.enabled(this.d.db, tenantId), repo.active(this.d.db, tenantId)]);
    return {
      enabled,
      activeMigrations: active.length,
      projectedMonthlySavingsUsd: round(active.reduce((s, m) => s + m.projectedMonthlySavingsUsd, 0)),
      toleranceScore: this.d.tolerance,
      graceDays: this.d.graceDays,
    };
  }

  async list(tenantId: string): Promise<{ items: Dto[] }> {
    return { items: (await repo.list(this.d.db, tenantId)).map(toDto) };
  }

  async rollback(tenantId: string, actor: ActorRef, id: string, reason: string | undefined): Promise<Dto> {
    const row = await this.d.db.transaction(async (tx) => {
      const found = await repo.forUpdate(tx, tenantId, id);
      if (!found) throw notFound('Cost migration', id);
      if (found.status !== 'active')
        throw new GatewayError('conflict_error', `Cost migration '${id}' is already rolled back`);
      const done = (await repo.rollBack(tx, tenantId, id, 'manual', reason ?? 'rolled back by hand', new Date()))!;
      await this.audit(tx, tenantId, actor, 'cost_migration.rollback', found, done);
      return done;
    });
    await this.d.routing.announce(this.d.pool, tenantId);
    return toDto(row);
  }

  /** POST /run: a cycle now, for a workspace that opted in. */
  async runNow(tenantId: string): Promise<z.infer<typeof CycleResult>> {
    if (!(await repo.enabled(this.d.db, tenantId)))
      throw new GatewayError(
        'conflict_error',
        'Cost migrations are off for this workspace: turn them on first (POST /v1/cost-migrations/opt-in)',
      );
    return this.cycle(tenantId);
  }

  /**
   * One cycle: review the migrations in grace, then migrate the cells whose recommendation is
   * strong enough. `now` decides when a grace period ends (tests play weeks through it).
   */
  async cycle(tenantId: string, now: number = Date.now()): Promise<z.infer<typeof CycleResult>> {
    const result: z.infer<typeof CycleResult> = { migrated: [], rolledBack: [], graceEnded: [] };
    // Migrations in grace are reviewed even after the workspace opted out: one that fails its
    // probation is still rolled back. Only new migrations need the opt-in.
    const [enabled, active] = await Promise.all([repo.enabled(this.d.db, tenantId), repo.active(this.d.db, tenantId)]);
    for (const m of active) {
      if (m.graceEndedAt) continue;
      const judged = await this.d.feedback.qualitySince(tenantId, {
        taskType: m.taskType,
        complexity: m.complexity,
        provider: m.toProvider,
        model: m.toModel,
        since: m.createdAt,
      });
      const bar = m.evidence.fromAvgScore - m.evidence.tolerance;
      const avg = judged.samples > 0 ? judged.sum / judged.samples : null;
      if (avg !== null && judged.samples >= this.d.minSamples && surelyBelow(judged, bar)) {
        const reason = `judged ${avg.toFixed(2)} on ${judged.samples} calls since the migration, below ${bar.toFixed(2)} (${m.fromModel}'s ${m.evidence.fromAvgScore.toFixed(2)} minus the tolerance)`;
        const done = await this.d.db.transaction(async (tx) => {
          // On the cycle's clock, as the cooldown that keeps the cell from migrating back reads it.
          const row = await repo.rollBack(tx, tenantId, m.id, 'auto', reason, new Date(now));
          if (row) await this.audit(tx, tenantId, SYSTEM_ACTOR, 'cost_migration.auto_rollback', m, row);
          return row;
        });
        if (done) result.rolledBack.push(toDto(done));
      } else if (now >= m.graceUntil.getTime()) {
        await repo.endGrace(this.d.db, tenantId, m.id, new Date(now));
        result.graceEnded.push(m.id);
      }
    }

    if (!enabled) {
      if (result.rolledBack.length || result.graceEnded.length) await this.d.routing.announce(this.d.pool, tenantId);
      return result;
    }
    const busy = new Set(
      active.filter((m) => !result.rolledBack.some((r) => r.id === m.id)).map((m) => cell(m.taskType, m.complexity)),
    );
    const cooling = new Set(
      (await repo.rolledBackSince(this.d.db, tenantId, new Date(now - COOLDOWN_DAYS * DAY_MS))).map(
        (m) => `${cell(m.taskType, m.complexity)}|${m.toProvider}/${m.toModel}`,
      ),
    );
    const { items } = await this.d.spend.recommendations(tenantId, {
      tolerance: this.d.tolerance,
      minSamples: this.d.minSamples,
    });
    for (const r of items) {
      const c = cell(r.taskType, r.complexity);
      const to = `${r.recommended.provider}/${r.recommended.model}`;
      if (busy.has(c) || cooling.has(`${c}|${to}`)) continue;
      if (r.estimatedMonthlySavingsUsd <= 0 || r.estimatedMonthlySavingsUsd < this.d.minSavingsUsd) continue;
      const row = await this.d.db.transaction(async (tx) => {
        const inserted = await repo.insert(tx, tenantId, {
          id: newId('cmig'),
          taskType: r.taskType,
          complexity: r.complexity,
          fromProvider: r.current.provider,
          fromModel: r.current.model,
          toProvider: r.recommended.provider,
          toModel: r.recommended.model,
          evidence: {
            fromAvgScore: r.current.avgScore,
            fromSamples: r.current.samples,
            fromCostPerCallUsd: r.current.avgCostPerCallUsd,
            fromCallsLast30d: r.current.callsLast30d,
            toAvgScore: r.recommended.avgScore,
            toSamples: r.recommended.samples,
            toCostPerCallUsd: r.recommended.avgCostPerCallUsd,
            tolerance: this.d.tolerance,
          },
          // The recommendation assumes every call of the previous model moves; routing keeps
          // exploration's share away from the migrated model once grace ends.
          projectedMonthlySavingsUsd: round(r.estimatedMonthlySavingsUsd * (1 - this.d.explorationRate)),
          graceUntil: new Date(now + this.d.graceDays * DAY_MS),
        });
        if (inserted) await this.audit(tx, tenantId, SYSTEM_ACTOR, 'cost_migration.create', null, inserted);
        return inserted;
      });
      if (row) {
        busy.add(c);
        result.migrated.push(toDto(row));
      }
    }
    if (result.migrated.length || result.rolledBack.length || result.graceEnded.length)
      await this.d.routing.announce(this.d.pool, tenantId);
    return result;
  }

  private audit(
    tx: Parameters<AuditService['record']>[0],
    tenantId: string,
    actor: ActorRef,
    action: string,
    before: CostMigrationRow | null,
    after: CostMigrationRow,
  ): Promise<void> {
    return this.d.audit.record(tx, {
      tenantId,
      actor,
      action,
      targetType: 'cost_migration',
      targetId: after.id,
      before: before ? toDto(before) : null,
      after: toDto(after),
    });
  }
}

const cell = (taskType: string, complexity: string) => `${taskType}/${complexity}`;
const round = (v: number) => Math.round(v * 1e9) / 1e9;

function toDto(m: CostMigrationRow): Dto {
  return {
    id: m.id,
    taskType: m.taskType,
    complexity: m.complexity,
    from: { provider: m.fromProvider, model: m.fromModel },
    to: { provider: m.toProvider, model: m.toModel },
    status: m.status,
    evidence: m.evidence,
    projectedMonthlySavingsUsd: m.projectedMonthlySavingsUsd,
    inGrace: m.status === 'active' && m.graceEndedAt === null,
    graceUntil: m.graceUntil.toISOString(),
    createdAt: m.createdAt.toISOString(),
    rolledBackAt: m.rolledBackAt?.toISOString() ?? null,
    rollbackKind: (m.rollbackKind as 'auto' | 'manual' | null) ?? null,
    rollbackReason: m.rollbackReason,
  };
}

/**
 * Whether judged scores are below `bar` beyond noise: their mean is, by at least two standard
 * errors (about 98% one-sided). A model as good as the one it replaced, graded with the judge's
 * usual spread, then is not rolled back on a few unlucky grades; one that got clearly worse
 * still is, within its first samples.
 */
export function surelyBelow(judged: { samples: number; sum: number; sumSquares: number }, bar: number): boolean {
  const n = judged.samples;
  if (n < 2) return false;
  const mean = judged.sum / n;
  const variance = Math.max(0, (judged.sumSquares - n * mean * mean) / (n - 1));
  return mean + 2 * Math.sqrt(variance / n) < bar;
}
