import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { PgListener } from '../../db/listener.js';
import { GatewayError } from '../../lib/errors.js';
import type { Logger } from '../../lib/logger.js';
import { utcMonth, utcMonthStart } from '../../lib/utc-month.js';

// The free tier's monthly request quota (GATEWAY_FREE_MONTHLY_REQUESTS): chat and embeddings calls
// per workspace per UTC calendar month, counted across nodes as budgets are (budget-gate.ts): each
// node counts the calls it admits at once and announces them to the others within milliseconds;
// the month's committed request rows are re-read every second as a floor (and once, before its
// first decision, for a workspace the node has not seen this month). 429 quota_exhausted once hit.

export const QUOTA_CHANNEL = 'quota_use';
const REFRESH_MS = 1_000;
const ANNOUNCE_MS = 5;
const IDLE_MS = 10 * 60_000;

interface State {
  month: string;
  count: number;
  seenAt: number;
  ready: Promise<void> | null;
}

export class QuotaGate {
  private readonly byTenant = new Map<string, State>();
  private readonly node = randomUUID();
  private pending = new Map<string, number>();
  private announceTimer: NodeJS.Timeout | null = null;
  private refreshTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly d: {
      pool: pg.Pool;
      listener: PgListener;
      logger: Logger;
      limit: number;
      /** Request rows per workspace since the month's start. */
      loadCounts(tenantIds: string[], monthStart: Date): Promise<Map<string, number>>;
    },
  ) {}

  async start(): Promise<void> {
    if (this.d.limit <= 0) return;
    await this.d.listener.listen(QUOTA_CHANNEL, (payload) => this.onAnnounced(payload));
    this.refreshTimer = setInterval(() => void this.refresh(), REFRESH_MS);
    this.refreshTimer.unref();
  }

  async close(): Promise<void> {
    if (this.refreshTimer) clearInterval(this.refreshTimer);
    await this.announce();
  }

  /** A promise when the workspace's month must be read before its first decision here. */
  ready(tenantId: string): Promise<void> | undefined {
    if (this.d.limit <= 0) return undefined;
    const s = this.state(tenantId);
    return s.ready ?? undefined;
  }

  /** Counts one call against the workspace's month; 429 quota_exhausted when the quota is used up. */
  take(tenantId: string): void {
    if (this.d.limit <= 0) return;
    const s = this.state(tenantId);
    s.seenAt = Date.now();
    if (s.count >= this.d.limit)
      throw new GatewayError(
        'quota_exhausted',
        `This workspace has used its ${this.d.limit} requests for ${s.month} (free tier); the quota resets at the start of next month (UTC)`,
        { retryable: false },
      );
    s.count++;
    this.pending.set(tenantId, (this.pending.get(tenantId) ?? 0) + 1);
    this.announceTimer ??= setTimeout(() => void this.announce(), ANNOUNCE_MS);
  }

  private state(tenantId: string): State {
    const month = utcMonth();
    let s = this.byTenant.get(tenantId);
    if (!s || s.month !== month) {
      s = { month, count: 0, seenAt: Date.now(), ready: null };
      this.byTenant.set(tenantId, s);
      const fresh = s;
      fresh.ready = this.load([tenantId]).finally(() => {
        fresh.ready = null;
      });
    }
    return s;
  }

  private async refresh(): Promise<void> {
    const now = Date.now();
    for (const [id, s] of this.byTenant) if (now - s.seenAt > IDLE_MS) this.byTenant.delete(id);
    if (this.byTenant.size > 0) await this.load([...this.byTenant.keys()]);
  }

  /** The month's committed request rows, as a floor of each workspace's count. */
  private async load(tenantIds: string[]): Promise<void> {
    const now = new Date();
    try {
      const counts = await this.d.loadCounts(tenantIds, utcMonthStart(now));
      for (const [tenantId, n] of counts) {
        const s = this.byTenant.get(tenantId);
        if (s && s.month === utcMonth(now.getTime())) s.count = Math.max(s.count, n);
      }
    } catch (err) {
      this.d.logger.debug({ err }, 'quota refresh failed');
    }
  }

  private async announce(): Promise<void> {
    this.announceTimer = null;
    if (this.pending.size === 0) return;
    const batch = [...this.pending];
    this.pending = new Map();
    try {
      await this.d.pool.query('select pg_notify($1, $2)', [QUOTA_CHANNEL, JSON.stringify({ n: this.node, q: batch })]);
    } catch (err) {
      this.d.logger.debug({ err }, 'quota announcement failed');
    }
  }

  private onAnnounced(payload: string): void {
    try {
      const { n, q } = JSON.parse(payload) as { n: string; q: Array<[string, number]> };
      if (n === this.node) return;
      const month = utcMonth();
      for (const [tenantId, count] of q) {
        const s = this.byTenant.get(tenantId);
        if (s && s.month === month) s.count += count;
      }
    } catch {
      /* not ours */
    }
  }
}
