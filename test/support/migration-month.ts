import type { CellQuality, SimulatorOptions } from '../../server/simulator/index.js';
import type { Services } from '../../server/services.js';

// Two months of traffic on two routing cells, with every answer graded by the judge (the
// simulator's hidden per-cell qualities, with noise), for the cost-migration proof: the test
// (test/integration/cost-migrations/month.test.ts) and `npm run bench:migrations` play it.
//
// Time: calls are real, a simulated day is a batch of them. The simulated clock drives what takes
// one: the simulator's quality changes and the migration cycle's grace periods.
//
// qa/complex: gpt-4o (dear) 4.6, gpt-4o-mini 4.5: as good, 16 times cheaper: migrated, kept.
// coding/complex: gpt-4o-mini is as good in the first month, and falls to 2.5 from the day it is
// migrated to (it cannot take the cell's load): rolled back automatically during grace.
// gpt-4.1-nano is poor on both cells. Adaptive routing is set to buy quality (tolerance 0), so the
// dear model stays the incumbent: moving a cell within a tolerance is the migration's decision.

export const DAY_MS = 86_400_000;
export const QA = { taskType: 'qa', complexity: 'complex', marker: '[cell qa]' } as const;
export const CODING = { taskType: 'coding', complexity: 'complex', marker: '[cell coding]' } as const;
const CELLS = [QA, CODING] as const;

export class SimClock {
  private offset = 0;
  readonly start = Date.now();
  now = (): number => Date.now() + this.offset;
  advance(ms: number): void {
    this.offset += ms;
  }
}

export function monthSim(clock: SimClock): SimulatorOptions {
  const switchAt = clock.start + 30 * DAY_MS;
  const q = (model: string, marker: string, quality: number, from?: number): CellQuality => ({
    model,
    whenContains: marker,
    quality,
    ...(from === undefined ? {} : { from }),
  });
  return {
    models: { openai: ['gpt-4o', 'gpt-4o-mini', 'gpt-4.1-nano'] },
    cellQualities: [
      q('gpt-4o', QA.marker, 4.6),
      q('gpt-4o-mini', QA.marker, 4.5),
      q('gpt-4.1-nano', QA.marker, 2.5),
      q('gpt-4o', CODING.marker, 4.6),
      q('gpt-4o-mini', CODING.marker, 4.5),
      q('gpt-4o-mini', CODING.marker, 2.5, switchAt),
      q('gpt-4.1-nano', CODING.marker, 2.5),
    ],
    gradeNoise: 0.5,
    seed: 5,
    now: clock.now,
  };
}

export const MONTH_ENV: Record<string, string> = {
  GATEWAY_MIN_SAMPLES: '8',
  GATEWAY_EXPLORATION_RATE: '0.1',
  GATEWAY_ROUTING_SEED: '11',
  GATEWAY_ROUTING_TOLERANCE: '0',
  GATEWAY_COST_MIGRATION_TOLERANCE: '0.3',
  GATEWAY_COST_MIGRATION_GRACE_DAYS: '7',
};

export interface MonthHost {
  services: Services;
  tenantId: string;
  /** An admin token of the workspace. */
  token: string;
  http(method: string, path: string, opts: { token: string; body?: unknown }): Promise<{ status: number; body: any }>;
  query<T = any>(sql: string, params?: unknown[]): Promise<T[]>;
  /** One chat call (the test sends it with the official OpenAI client). */
  chat(body: Record<string, unknown>): Promise<void>;
}

export interface MonthReport {
  migratedCells: string[];
  projectedAtMigrationUsd: number;
  projectedQaUsd: number;
  /** The qa cell: first month's cost minus second month's, same number of calls. */
  savedQaUsd: number;
  autoRolledBack: string[];
  autoRolledBackOnDay: number | null;
  activeAtEnd: string[];
  /** Every migration made, active or not: a cell rolled back is not migrated again. */
  madeInAll: number;
  qaShareOfMiniInSecondMonth: number;
}

async function costOnCell(h: MonthHost, cell: { taskType: string; complexity: string }, from: Date, to: Date) {
  const [r] = await h.query<{ usd: number }>(
    `select coalesce(sum(cost), 0)::float8 usd from cost_logs
      where tenant_id = $1 and task_type = $2 and complexity = $3 and created_at >= $4 and created_at < $5`,
    [h.tenantId, cell.taskType, cell.complexity, from, to],
  );
  return r!.usd;
}

/** Grades every waiting sample: the judge job, run now, as often as it takes. */
async function judgeAll(h: MonthHost): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const [w] = await h.query<{ n: number }>('select count(*)::int n from judge_samples where tenant_id = $1', [
      h.tenantId,
    ]);
    if (w!.n === 0) return;
    const r = await h.http('POST', '/v1/admin/scheduler/jobs/judge/run', { token: h.token, body: {} });
    if (r.body.outcome !== 'succeeded') throw new Error(`judge run failed: ${JSON.stringify(r.body)}`);
  }
  throw new Error('judge samples never drained');
}

/** Waits until every request row and sample of the calls sent is written (the writer commits asynchronously). */
async function settled(h: MonthHost, expected: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    // Every call sampled for the judge (sample rate 1): graded already, or waiting.
    const [r] = await h.query<{ n: number; sampled: number }>(
      `select (select count(*) from requests where tenant_id = $1)::int n,
              ((select count(*) from judge_samples where tenant_id = $1) +
               (select count(*) from feedback where tenant_id = $1))::int sampled`,
      [h.tenantId],
    );
    if (r!.n >= expected && r!.sampled >= expected) return;
    await new Promise((res) => setTimeout(res, 10));
  }
  throw new Error('request rows never landed');
}

export async function playMigrationMonths(
  h: MonthHost,
  clock: SimClock,
  opts: { callsPerCellPerDay: number; onDay?: (day: number, note: string) => void },
): Promise<MonthReport> {
  const pad = (n: number) => String(n).padStart(5, '0');
  let sent = 0;
  const day = async (d: number) => {
    for (let i = 0; i < opts.callsPerCellPerDay; i++)
      for (const c of CELLS) {
        // Unique prompts of one length: no cache hit, the same price per call in both months.
        await h.chat({
          model: '',
          messages: [{ role: 'user', content: `Request ${pad(sent)} on day ${pad(d)} ${c.marker}` }],
          routing_hint: c.taskType,
          complexity_hint: c.complexity,
        });
        sent++;
      }
    await settled(h, sent);
    await judgeAll(h);
  };

  const put = await h.http('PUT', '/v1/feedback/judge/config', {
    token: h.token,
    body: { enabled: true, model: 'openai/gpt-4o', sampleRate: 1 },
  });
  if (put.status !== 200) throw new Error(`judge config: ${JSON.stringify(put.body)}`);
  await h.http('POST', '/v1/cost-migrations/opt-in', { token: h.token, body: { enabled: true } });

  const monthOneFrom = new Date(Date.now() - 1000);
  for (let d = 0; d < 30; d++) {
    await day(d);
    clock.advance(DAY_MS);
  }
  const monthOneTo = new Date();

  const first = await h.services.costMigrations.cycle(h.tenantId, clock.now());
  const status = (await h.http('GET', '/v1/cost-migrations/status', { token: h.token })).body;
  opts.onDay?.(30, `cycle migrated ${first.migrated.map((m) => `${m.taskType}/${m.complexity}`).join(', ')}`);
  const qaMigration = first.migrated.find((m) => m.taskType === QA.taskType);

  let rolledBackOnDay: number | null = null;
  const autoRolledBack: string[] = [];
  const monthTwoFrom = new Date();
  for (let d = 30; d < 60; d++) {
    await day(d);
    clock.advance(DAY_MS);
    const r = await h.services.costMigrations.cycle(h.tenantId, clock.now());
    for (const m of r.rolledBack) {
      autoRolledBack.push(`${m.taskType}/${m.complexity}`);
      rolledBackOnDay ??= d;
      opts.onDay?.(d, `rolled back ${m.taskType}/${m.complexity}: ${m.rollbackReason}`);
    }
    for (const id of r.graceEnded) opts.onDay?.(d, `grace ended for ${id}`);
  }
  const monthTwoTo = new Date(Date.now() + 1000);

  const [mini] = await h.query<{ share: number }>(
    `select avg((model = 'gpt-4o-mini')::int)::float8 share from requests
      where tenant_id = $1 and task_type = $2 and complexity = $3 and created_at >= $4`,
    [h.tenantId, QA.taskType, QA.complexity, monthTwoFrom],
  );
  const list = (await h.http('GET', '/v1/cost-migrations', { token: h.token })).body.items as any[];
  return {
    migratedCells: first.migrated.map((m) => `${m.taskType}/${m.complexity}`).sort(),
    projectedAtMigrationUsd: status.projectedMonthlySavingsUsd,
    projectedQaUsd: qaMigration?.projectedMonthlySavingsUsd ?? 0,
    savedQaUsd:
      (await costOnCell(h, QA, monthOneFrom, monthOneTo)) - (await costOnCell(h, QA, monthTwoFrom, monthTwoTo)),
    autoRolledBack,
    autoRolledBackOnDay: rolledBackOnDay,
    activeAtEnd: list.filter((m) => m.status === 'active').map((m) => `${m.taskType}/${m.complexity}`),
    madeInAll: list.length,
    qaShareOfMiniInSecondMonth: mini!.share,
  };
}
