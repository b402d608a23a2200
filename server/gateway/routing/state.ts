import type { AbVariant } from '../../db/schema/ab-tests.js';
import { notify, type PgListener } from '../../db/listener.js';
import type { Logger } from '../../lib/logger.js';
import type { Complexity, TaskType } from '../types.js';

// What routing needs to know about each workspace, held in memory so the request path never
// queries the database: active A/B tests and feedback aggregates per cell and target. A change
// made by any process (a test edited, feedback recorded) is announced on a NOTIFY channel and
// every process reloads that workspace; a periodic full reload is the safety net.

export const ROUTING_CHANNEL = 'gateway_routing';
const FULL_RELOAD_MS = 60_000;

export interface ActiveAbTest {
  id: string;
  name: string;
  taskType: string | null;
  complexity: string | null;
  variants: AbVariant[];
  createdAt: Date;
}

/**
 * A target's feedback on a cell. With a feedback half-life, each score weighs 0.5^(age / half-life)
 * (age since it was given or last changed): `count` is the scores' total weight and `sum` their
 * weighted sum, so the mean follows what users say now, and a model whose old scores have faded
 * is short of evidence again and explored again (one that got better gets back in; one that got
 * worse stops riding on its past). Without one, every score weighs 1.
 */
export interface QualityStat {
  sum: number;
  count: number;
  /** How many scores, whatever their weight (MIN_SAMPLES counts scores given); `count` when absent. */
  scores?: number;
}

/**
 * A cost migration in force on a cell: routing prefers `provider/model` there; while `boosted`
 * (its grace period) it takes the exploration share too, so its evidence accrues fast.
 */
export interface CellMigration {
  id: string;
  provider: string;
  model: string;
  boosted: boolean;
}

export interface JudgeSettings {
  enabled: boolean;
  model: string | null;
  sampleRate: number;
}

/**
 * Where the routing state is read from: the tables of the A/B test and feedback modules, through
 * their repositories (services.ts wires it). Each method answers for one workspace, or for every
 * workspace when `tenantId` is null (the periodic full reload).
 */
export interface RoutingSource {
  /** Active A/B tests, newest first. */
  activeAbTests(tenantId: string | null): Promise<Array<ActiveAbTest & { tenantId: string }>>;
  /** Counted feedback per cell and target, each score weighed by its age (see QualityStat). */
  quality(
    tenantId: string | null,
    halfLifeDays: number,
  ): Promise<
    Array<{
      tenantId: string;
      taskType: string;
      complexity: string;
      provider: string;
      model: string;
      sum: number;
      count: number;
      scores: number;
    }>
  >;
  judges(tenantId: string | null): Promise<Array<JudgeSettings & { tenantId: string }>>;
  /** Active cost migrations (the cost-migrations module); absent: none. */
  costMigrations?(
    tenantId: string | null,
  ): Promise<Array<CellMigration & { tenantId: string; taskType: string; complexity: string }>>;
}

interface TenantState {
  abTests: ActiveAbTest[];
  judge: JudgeSettings | null;
  /** cell key -> target key -> stat */
  quality: Map<string, Map<string, QualityStat>>;
  feedbackCount: number;
  /** cell key -> the migration in force there */
  migrations?: Map<string, CellMigration>;
}

export const cellKey = (taskType: string, complexity: string) => `${taskType}/${complexity}`;
export const targetKey = (provider: string, model: string) => `${provider}/${model}`;

const EMPTY: TenantState = { abTests: [], judge: null, quality: new Map(), feedbackCount: 0 };
const RELOAD_DEBOUNCE_MS = 250;

export class RoutingState {
  private tenants = new Map<string, TenantState>();
  private timer: NodeJS.Timeout | undefined;
  private readonly pendingReloads = new Map<string, NodeJS.Timeout>();
  private closed = false;
  /**
   * Loads run concurrently (a notification's reload, a local change, the periodic full reload):
   * each takes a sequence number when it starts, and a workspace's state is only replaced by a
   * load that started after the one (or the in-memory update) that last set it.
   */
  private seq = 0;
  private readonly applied = new Map<string, number>();

  constructor(
    private readonly source: RoutingSource,
    private readonly logger: Logger,
    /** Hears changes made by other processes; without it, only the periodic full reload does. */
    private readonly listener?: PgListener,
    /** Days for a score's weight to halve; 0 for none (see QualityStat). */
    private readonly halfLifeDays = 0,
  ) {}

  async start(): Promise<void> {
    // LISTEN before the first load, so a change committed in between is not missed.
    await this.listener?.listen(
      ROUTING_CHANNEL,
      (tenantId) => this.scheduleReload(tenantId),
      () => {
        if (!this.closed) void this.reloadAll().catch(() => undefined);
      },
    );
    await this.reloadAll();
    this.timer = setInterval(() => void this.reloadAll().catch(() => undefined), FULL_RELOAD_MS);
    this.timer.unref();
  }

  async close(): Promise<void> {
    // The shared listener outlives this: notifications from now on are ignored.
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    for (const t of this.pendingReloads.values()) clearTimeout(t);
  }

  judge(tenantId: string): JudgeSettings | null {
    return (this.tenants.get(tenantId) ?? EMPTY).judge;
  }

  /** Whether the workspace has any feedback at all (the adaptive stage's active flag). */
  feedbackCount(tenantId: string): number {
    return (this.tenants.get(tenantId) ?? EMPTY).feedbackCount;
  }

  activeAbTests(tenantId: string): ActiveAbTest[] {
    return (this.tenants.get(tenantId) ?? EMPTY).abTests;
  }

  /** The cost migration in force on a cell, if any. */
  cellMigration(tenantId: string, taskType: string, complexity: string): CellMigration | undefined {
    return this.tenants.get(tenantId)?.migrations?.get(cellKey(taskType, complexity));
  }

  /** Feedback aggregates of one cell: target key -> stat. */
  cellQuality(tenantId: string, taskType: TaskType, complexity: Complexity): Map<string, QualityStat> | undefined {
    return (this.tenants.get(tenantId) ?? EMPTY).quality.get(cellKey(taskType, complexity));
  }

  /** Record feedback in memory at once (this process), before the notification round trip. */
  addFeedback(
    tenantId: string,
    f: {
      taskType: string | null;
      complexity: string | null;
      provider: string | null;
      model: string | null;
      score: number;
      previousScore?: number;
    },
  ): void {
    // Feedback of requests without a cell (overrides, A/B tests) is not learned from (SPEC.md).
    if (!f.taskType || !f.complexity || !f.provider || !f.model) return;
    let state = this.tenants.get(tenantId);
    if (!state) {
      state = { abTests: [], judge: null, quality: new Map(), feedbackCount: 0 };
      this.tenants.set(tenantId, state);
    }
    this.applied.set(tenantId, ++this.seq);
    const ck = cellKey(f.taskType, f.complexity);
    let cell = state.quality.get(ck);
    if (!cell) state.quality.set(ck, (cell = new Map()));
    const tk = targetKey(f.provider, f.model);
    const stat = cell.get(tk) ?? { sum: 0, count: 0, scores: 0 };
    if (f.previousScore !== undefined) stat.sum += f.score - f.previousScore;
    else {
      stat.sum += f.score;
      stat.count += 1;
      stat.scores = (stat.scores ?? 0) + 1;
      state.feedbackCount += 1;
    }
    cell.set(tk, stat);
  }

  /**
   * Tell every process to reload a workspace's routing state. This process reloads at once unless
   * the caller already updated memory (`local: false`, as feedback does).
   */
  async announce(
    db: { query: (text: string, values: unknown[]) => Promise<unknown> },
    tenantId: string,
    opts: { local?: boolean } = {},
  ): Promise<void> {
    await notify(db, ROUTING_CHANNEL, tenantId);
    if (opts.local !== false) await this.reloadTenant(tenantId);
  }

  /** Coalesce bursts of notifications (a stream of feedback) into one reload per workspace. */
  private scheduleReload(tenantId: string): void {
    if (this.closed || this.pendingReloads.has(tenantId)) return;
    const t = setTimeout(() => {
      this.pendingReloads.delete(tenantId);
      void this.reloadTenant(tenantId).catch((err: unknown) =>
        this.logger.warn({ err: (err as Error).message }, 'routing state reload failed'),
      );
    }, RELOAD_DEBOUNCE_MS);
    t.unref();
    this.pendingReloads.set(tenantId, t);
  }

  async reloadAll(): Promise<void> {
    const started = ++this.seq;
    const next = new Map<string, TenantState>();
    await this.load(next, null);
    for (const tenantId of new Set([...this.tenants.keys(), ...next.keys()]))
      this.apply(tenantId, next.get(tenantId), started);
  }

  async reloadTenant(tenantId: string): Promise<void> {
    const started = ++this.seq;
    const next = new Map<string, TenantState>();
    await this.load(next, tenantId);
    this.apply(tenantId, next.get(tenantId), started);
  }

  private apply(tenantId: string, fresh: TenantState | undefined, started: number): void {
    if ((this.applied.get(tenantId) ?? 0) > started) return;
    this.applied.set(tenantId, started);
    if (fresh) this.tenants.set(tenantId, fresh);
    else this.tenants.delete(tenantId);
  }

  private async load(into: Map<string, TenantState>, tenantId: string | null): Promise<void> {
    const get = (t: string) => {
      let s = into.get(t);
      if (!s) into.set(t, (s = { abTests: [], judge: null, quality: new Map(), feedbackCount: 0 }));
      return s;
    };
    const [tests, quality, judges, migrations] = await Promise.all([
      this.source.activeAbTests(tenantId),
      this.source.quality(tenantId, this.halfLifeDays),
      this.source.judges(tenantId),
      this.source.costMigrations?.(tenantId) ?? [],
    ]);
    for (const m of migrations) {
      const s = get(m.tenantId);
      s.migrations ??= new Map();
      s.migrations.set(cellKey(m.taskType, m.complexity), {
        id: m.id,
        provider: m.provider,
        model: m.model,
        boosted: m.boosted,
      });
    }
    for (const j of judges) get(j.tenantId).judge = { enabled: j.enabled, model: j.model, sampleRate: j.sampleRate };
    for (const t of tests) {
      get(t.tenantId).abTests.push({
        id: t.id,
        name: t.name,
        taskType: t.taskType,
        complexity: t.complexity,
        variants: t.variants,
        createdAt: t.createdAt,
      });
    }
    for (const q of quality) {
      const s = get(q.tenantId);
      const ck = cellKey(q.taskType, q.complexity);
      let cell = s.quality.get(ck);
      if (!cell) s.quality.set(ck, (cell = new Map()));
      cell.set(targetKey(q.provider, q.model), { sum: q.sum, count: q.count, scores: q.scores });
      s.feedbackCount += q.scores;
    }
  }
}
