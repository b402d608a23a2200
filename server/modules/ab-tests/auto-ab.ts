import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import type { JobDefinition } from '../../jobs/queues.js';
import { GatewayError } from '../../lib/errors.js';
import { SYSTEM_ACTOR } from '../audit/service.js';
import { countedFeedback } from '../../gateway/routing/counted-feedback.js';
import type { Services } from '../../services.js';
import { cellsOverlap, type Cell } from './cells.js';

// The auto-ab job (SPEC.md): when two models are tied on a cell -- both past MIN_SAMPLES, scores
// within noise -- it starts a 50/50 test between them; when a decisive winner emerges, it
// completes the test.
//
// "Within noise" is one look: the difference of the two mean scores within Z standard errors.
// "Decisive" is not, because the job looks at a running test every 15 minutes for up to 14 days:
// a fixed Z rule re-applied at each look declares a winner between two identical models about
// half the time (the more looks, the surer), and completes the test on it. A winner is therefore
// declared by a sequential test that stays valid however often it is looked at (isDecisive).

const Z = 1.96;
/** A tie is never declared on means further apart than this, however noisy the scores. */
const MAX_TIE_GAP = 0.5;
/** Chance, over a test's whole life, of declaring a winner between two models that are equally good. */
const FALSE_WINNER_RATE = 0.05;
/** Effects around this size (score points) are the ones the sequential test is tuned to find fastest. */
const EFFECT_SCALE = 0.5;
/** A pair that was already tested on a cell is not tested again for this long. */
const RETEST_AFTER_DAYS = 7;
/** A test that stays undecided this long is completed as a draw. */
const MAX_TEST_DAYS = 14;

export interface ArmStats {
  n: number;
  mean: number;
  /** Sample variance (0 when n < 2). */
  variance: number;
}

/** Standard error of the difference of two means; a floor keeps identical scores from looking infinitely certain. */
export function standardErrorOfDifference(a: ArmStats, b: ArmStats): number {
  const floor = 0.25;
  return Math.sqrt(Math.max(a.variance, floor) / a.n + Math.max(b.variance, floor) / b.n);
}

export function isTie(a: ArmStats, b: ArmStats, minSamples: number): boolean {
  if (a.n < minSamples || b.n < minSamples) return false;
  const gap = Math.abs(a.mean - b.mean);
  return gap <= MAX_TIE_GAP && gap <= Z * standardErrorOfDifference(a, b);
}

/**
 * A decisive winner: the mixture sequential probability ratio test (Johari, Pekelis and Walsh,
 * "Always valid inference", the test behind Optimizely's stats engine) on the difference of the
 * two means, its effect given a normal mixture N(0, EFFECT_SCALE^2). With d the difference, s^2
 * its squared standard error and t^2 = EFFECT_SCALE^2, the likelihood ratio is
 *   L = sqrt(s^2 / (s^2 + t^2)) * exp(t^2 d^2 / (2 s^2 (s^2 + t^2)))
 * and a winner is declared once L >= 1 / FALSE_WINNER_RATE. Under "equally good" L is a
 * martingale, so the chance it ever gets there, at any look, is at most FALSE_WINNER_RATE. The
 * price is a higher bar than 1.96 standard errors: about 3 to 3.5 at the sample sizes a test sees.
 */
export function isDecisive(a: ArmStats, b: ArmStats, minSamples: number): boolean {
  if (a.n < minSamples || b.n < minSamples) return false;
  const gap = a.mean - b.mean;
  const s2 = standardErrorOfDifference(a, b) ** 2;
  const t2 = EFFECT_SCALE ** 2;
  const logRatio = 0.5 * Math.log(s2 / (s2 + t2)) + (t2 * gap * gap) / (2 * s2 * (s2 + t2));
  return logRatio >= Math.log(1 / FALSE_WINNER_RATE);
}

type CellTargetRow = {
  task_type: string;
  complexity: string;
  provider: string;
  model: string;
  n: number;
  mean: number;
  variance: number | null;
};

async function cellStats(db: Executor, tenantId: string): Promise<CellTargetRow[]> {
  const res = await db.execute<CellTargetRow>(sql`
    select task_type, complexity, provider, model, count(*)::int as n, avg(score)::float8 as mean, var_samp(score)::float8 as variance
      from feedback f
     where tenant_id = ${tenantId} and task_type is not null and complexity is not null and provider is not null and model is not null
       and ${sql.raw(countedFeedback('f'))}
     group by task_type, complexity, provider, model`);
  return res.rows;
}

/**
 * Feedback per variant, on the requests each variant answered itself: the request row keeps the
 * variant the test chose even when a fallback model answered, and that answer says nothing about
 * the variant (the same rule as the test's results).
 */
async function variantStats(db: Executor, tenantId: string, testId: string): Promise<Map<string, ArmStats>> {
  const res = await db.execute<{ variant: string; n: number; mean: number; variance: number | null }>(sql`
    select r.variant, count(*)::int as n, avg(f.score)::float8 as mean, var_samp(f.score)::float8 as variance
      from requests r join feedback f on f.tenant_id = r.tenant_id and f.request_id = r.id
     where r.tenant_id = ${tenantId} and r.ab_test_id = ${testId}
       and r.status = 'ok' and r.provider || '/' || r.model = r.variant
       and ${sql.raw(countedFeedback('f'))}
     group by r.variant`);
  return new Map(res.rows.map((r) => [r.variant, { n: r.n, mean: r.mean, variance: r.variance ?? 0 }]));
}

/** Pairs an auto-generated test is on, or completed within RETEST_AFTER_DAYS: not tested again yet. */
async function recentlyTestedPairs(db: Executor, tenantId: string): Promise<Set<string>> {
  const res = await db.execute<{
    task_type: string | null;
    complexity: string | null;
    variants: Array<{ provider: string; model: string }>;
  }>(sql`
    select task_type, complexity, variants from ab_tests
     where tenant_id = ${tenantId} and auto_generated
       and (status <> 'completed' or coalesce(completed_at, updated_at) > now() - make_interval(days => ${RETEST_AFTER_DAYS}))`);
  return new Set(
    res.rows.map((r) =>
      pairKey(
        r.task_type,
        r.complexity,
        r.variants.map((v) => `${v.provider}/${v.model}`),
      ),
    ),
  );
}

const pairKey = (taskType: string | null, complexity: string | null, targets: string[]) =>
  `${taskType}/${complexity}:${[...targets].sort().join('|')}`;

export function autoAbJob(minSamples: number): JobDefinition<Services> {
  return {
    name: 'auto-ab',
    description:
      'Starts a 50/50 A/B test when two models are tied on a routing cell, and completes it when a winner emerges',
    schedule: '*/15 * * * *',
    async handler(ctx, { tenantId }) {
      const { services, db } = ctx;
      const tests = await services.abTests.list(tenantId);
      let completed = 0;
      let created = 0;
      const finished = new Set<string>();

      // 1. Resolve running auto-generated tests.
      for (const test of tests.filter((t) => t.autoGenerated && t.status === 'active')) {
        if (ctx.signal.aborted) break; // out of time or shutting down: the next run goes on
        const stats = await variantStats(db, tenantId, test.id);
        const [a, b] = test.variants.map((v) => ({
          key: `${v.provider}/${v.model}`,
          s: stats.get(`${v.provider}/${v.model}`),
        }));
        const ageDays = (Date.now() - Date.parse(test.createdAt)) / 86_400_000;
        if (a?.s && b?.s && isDecisive(a.s, b.s, minSamples)) {
          const [win, lose] = a.s.mean > b.s.mean ? [a, b] : [b, a];
          const reason = `winner ${win.key} (avg ${win.s!.mean.toFixed(2)}, n=${win.s!.n}) over ${lose.key} (avg ${lose.s!.mean.toFixed(2)}, n=${lose.s!.n})`;
          await services.abTests.update(tenantId, SYSTEM_ACTOR, {
            id: test.id,
            status: 'completed',
            completionReason: reason,
          });
          finished.add(test.id);
          completed++;
        } else if (ageDays > MAX_TEST_DAYS) {
          await services.abTests.update(tenantId, SYSTEM_ACTOR, {
            id: test.id,
            status: 'completed',
            completionReason: `no decisive winner after ${MAX_TEST_DAYS} days`,
          });
          finished.add(test.id);
          completed++;
        }
      }

      // 2. Start tests on tied cells that no active test overlaps (a test on "any" covers them too).
      const busyCells: Cell[] = tests.filter((t) => t.status === 'active' && !finished.has(t.id));
      const tested = await recentlyTestedPairs(db, tenantId);
      const byCell = new Map<string, CellTargetRow[]>();
      for (const row of await cellStats(db, tenantId)) {
        const key = `${row.task_type}/${row.complexity}`;
        byCell.set(key, [...(byCell.get(key) ?? []), row]);
      }
      for (const [cell, rows] of byCell) {
        if (ctx.signal.aborted) break;
        const target: Cell = { taskType: rows[0]!.task_type, complexity: rows[0]!.complexity };
        if (busyCells.some((busy) => cellsOverlap(busy, target))) continue;
        const ranked = rows
          .filter((r) => r.n >= minSamples && services.dataPlane.registry.get(r.provider)?.models.includes(r.model))
          .sort((x, y) => y.mean - x.mean);
        const [first, second] = ranked;
        if (!first || !second) continue;
        const arm = (r: CellTargetRow): ArmStats => ({ n: r.n, mean: r.mean, variance: r.variance ?? 0 });
        if (!isTie(arm(first), arm(second), minSamples)) continue;
        const targets = [`${first.provider}/${first.model}`, `${second.provider}/${second.model}`];
        if (tested.has(pairKey(first.task_type, first.complexity, targets))) continue;
        try {
          await services.abTests.create(tenantId, SYSTEM_ACTOR, {
            name: `auto: ${targets.join(' vs ')} on ${cell}`,
            autoGenerated: true,
            variants: [first, second].map((r) => ({
              provider: r.provider,
              model: r.model,
              weight: 1,
              taskType: r.task_type,
              complexity: r.complexity,
            })),
          });
        } catch (err) {
          // Someone activated an overlapping test since the list was read: the cell is busy after all.
          if (err instanceof GatewayError && err.type === 'conflict_error') continue;
          throw err;
        }
        busyCells.push(target);
        created++;
      }
      const stopped = ctx.signal.aborted ? '; stopped before the end, the next run goes on' : '';
      return { summary: `created ${created} test${created === 1 ? '' : 's'}, completed ${completed}${stopped}` };
    },
  };
}
