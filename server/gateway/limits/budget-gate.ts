import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { PgListener } from '../../db/listener.js';
import { GatewayError } from '../../lib/errors.js';
import type { Logger } from '../../lib/logger.js';
import { utcMonth, utcMonthStart } from '../../lib/utc-month.js';

// Workspace budgets on the request path (DESIGN.md section 3, limits). Each node holds, per
// workspace with a budget, the month's spend as it knows it, and refuses calls (402
// budget_exceeded) once that reaches the budget. No database round trip per call:
// - every cost a call of this node adds counts at once (addSpend, as its cost rows are logged);
// - what other nodes add arrives within milliseconds: each node announces its calls' costs on
//   SPEND_CHANNEL (batched every few ms, off the request path), and every node adds them;
// - the committed month-to-date spend (every cost row, eval runs and judge calls included) is
//   re-read every REFRESH_MS as a floor, and the larger figure wins (spend only grows within a month).
// So calls admitted while the budget still had room finish (the overshoot is at most what was in
// flight when it was reached), and once any node's calls reach it every node refuses the next call.

export const BUDGETS_CHANNEL = 'budgets_changed';
export const SPEND_CHANNEL = 'budget_spend';
const REFRESH_MS = 1_000;
const ANNOUNCE_MS = 5;

export interface BudgetConfig {
  tenantId: string;
  monthlyUsd: number;
  alertThresholds: number[];
  hardStop: boolean;
}

interface State extends BudgetConfig {
  month: string;
  /** The month's spend as this node knows it. */
  spentUsd: number;
  /** Thresholds already recorded as crossed this month. */
  alerted: Set<number>;
}

export interface BudgetGateDeps {
  pool: pg.Pool;
  listener: PgListener;
  logger: Logger;
  /** Every budget (all workspaces), or one workspace's. */
  loadBudgets(tenantId?: string): Promise<BudgetConfig[]>;
  /** Month-to-date spend of these workspaces, from the cost rollups. */
  loadSpend(tenantIds: string[], monthStart: Date): Promise<Map<string, number>>;
  /** Records a threshold's first crossing this month (once across nodes); told whether this call recorded it. */
  recordAlert(
    tenantId: string,
    month: string,
    thresholdPct: number,
    spentUsd: number,
    budgetUsd: number,
  ): Promise<boolean>;
}

export class BudgetGate {
  private readonly byTenant = new Map<string, State>();
  private readonly node = randomUUID();
  private pending = new Map<string, number>();
  private announceTimer: NodeJS.Timeout | null = null;
  private refreshTimer: NodeJS.Timeout | null = null;

  constructor(private readonly d: BudgetGateDeps) {}

  async start(): Promise<void> {
    await this.d.listener.listen(
      BUDGETS_CHANNEL,
      (tenantId) => void this.reload(tenantId),
      () => void this.reloadAll(),
    );
    await this.d.listener.listen(SPEND_CHANNEL, (payload) => this.onAnnounced(payload));
    await this.reloadAll();
    this.refreshTimer = setInterval(() => void this.refreshSpend(), REFRESH_MS);
    this.refreshTimer.unref();
  }

  async close(): Promise<void> {
    if (this.refreshTimer) clearInterval(this.refreshTimer);
    await this.announce();
  }

  /** 402 budget_exceeded when the workspace has a hard-stop budget its month's spend has reached. */
  check(tenantId: string): void {
    const s = this.byTenant.get(tenantId);
    if (!s?.hardStop) return;
    this.rollMonth(s);
    if (s.spentUsd < s.monthlyUsd) return;
    throw new GatewayError(
      'budget_exceeded',
      `This workspace has spent $${s.spentUsd.toFixed(4)} of its $${s.monthlyUsd} budget for ${s.month}`,
      { retryable: false },
    );
  }

  /** Counts a call's cost against its workspace's budget, here at once and on the other nodes shortly. */
  addSpend(tenantId: string, usd: number): void {
    const s = this.byTenant.get(tenantId);
    if (!s || usd <= 0) return;
    this.add(s, usd);
    this.pending.set(tenantId, (this.pending.get(tenantId) ?? 0) + usd);
    this.announceTimer ??= setTimeout(() => void this.announce(), ANNOUNCE_MS);
  }

  /** What the node knows of a workspace's month: for GET /v1/spend/budgets. */
  spentOf(tenantId: string): number | undefined {
    const s = this.byTenant.get(tenantId);
    if (!s) return undefined;
    this.rollMonth(s);
    return s.spentUsd;
  }

  async reload(tenantId: string): Promise<void> {
    try {
      const [config] = await this.d.loadBudgets(tenantId);
      if (!config) {
        this.byTenant.delete(tenantId);
        return;
      }
      this.install(config);
      await this.refreshSpend([tenantId]);
    } catch (err) {
      this.d.logger.warn({ err, tenantId }, 'budget reload failed');
    }
  }

  private async reloadAll(): Promise<void> {
    try {
      const configs = await this.d.loadBudgets();
      const keep = new Set(configs.map((c) => c.tenantId));
      for (const id of [...this.byTenant.keys()]) if (!keep.has(id)) this.byTenant.delete(id);
      for (const c of configs) this.install(c);
      await this.refreshSpend();
    } catch (err) {
      this.d.logger.warn({ err }, 'budgets load failed');
    }
  }

  private install(c: BudgetConfig): void {
    const now = utcMonth();
    const s = this.byTenant.get(c.tenantId);
    if (s) Object.assign(s, c);
    else this.byTenant.set(c.tenantId, { ...c, month: now, spentUsd: 0, alerted: new Set() });
    const state = this.byTenant.get(c.tenantId)!;
    // Thresholds lowered below the spend are recorded at the next cost.
    state.alerted = new Set([...state.alerted].filter((t) => c.alertThresholds.includes(t)));
  }

  /** The committed spend is a floor: the larger of it and what this node counted. */
  private async refreshSpend(tenantIds = [...this.byTenant.keys()]): Promise<void> {
    if (tenantIds.length === 0) return;
    const now = new Date();
    let spend: Map<string, number>;
    try {
      spend = await this.d.loadSpend(tenantIds, utcMonthStart(now));
    } catch (err) {
      this.d.logger.debug({ err }, 'budget spend refresh failed');
      return;
    }
    for (const id of tenantIds) {
      const s = this.byTenant.get(id);
      if (!s) continue;
      this.rollMonth(s);
      const committed = spend.get(id) ?? 0;
      if (committed > s.spentUsd) this.add(s, committed - s.spentUsd);
    }
  }

  private add(s: State, usd: number): void {
    this.rollMonth(s);
    s.spentUsd = Math.round((s.spentUsd + usd) * 1e12) / 1e12;
    for (const t of s.alertThresholds) {
      if (s.alerted.has(t) || s.spentUsd < (s.monthlyUsd * t) / 100) continue;
      s.alerted.add(t);
      const { tenantId, month, spentUsd, monthlyUsd } = s;
      this.d
        .recordAlert(tenantId, month, t, spentUsd, monthlyUsd)
        .then((first) => {
          if (first)
            this.d.logger.warn(
              { tenantId, month, thresholdPct: t, spentUsd, budgetUsd: monthlyUsd },
              'workspace budget alert threshold crossed',
            );
        })
        .catch((err: unknown) => {
          s.alerted.delete(t);
          this.d.logger.warn({ err, tenantId }, 'budget alert not recorded');
        });
    }
  }

  /** A new UTC month starts from zero (its committed spend arrives with the next refresh). */
  private rollMonth(s: State): void {
    const now = utcMonth();
    if (s.month === now) return;
    s.month = now;
    s.spentUsd = 0;
    s.alerted = new Set();
  }

  private async announce(): Promise<void> {
    this.announceTimer = null;
    if (this.pending.size === 0) return;
    const batch = [...this.pending].map(([t, usd]) => [t, usd] as const);
    this.pending = new Map();
    try {
      await this.d.pool.query('select pg_notify($1, $2)', [SPEND_CHANNEL, JSON.stringify({ n: this.node, s: batch })]);
    } catch (err) {
      // The next refresh of committed spend covers what was not announced.
      this.d.logger.debug({ err }, 'budget spend announcement failed');
    }
  }

  private onAnnounced(payload: string): void {
    try {
      const { n, s } = JSON.parse(payload) as { n: string; s: Array<[string, number]> };
      if (n === this.node) return;
      for (const [tenantId, usd] of s) {
        const state = this.byTenant.get(tenantId);
        if (state && usd > 0) this.add(state, usd);
      }
    } catch {
      /* not ours */
    }
  }
}
