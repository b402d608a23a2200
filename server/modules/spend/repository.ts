import type { SpendWindow } from './window.js';
import { partsOf } from './window.js';

// SQL for /v1/spend: the only reader of spend_by_cell and spend_by_token (kept by triggers on
// cost_logs, migration spend_rollup_triggers). A window is read as whole days from the daily rows,
// the hours at its ends from the hourly rows and its partial hours from cost_logs (window.ts), so
// sums match cost_logs exactly and a 30-day window reads a few thousand rows at most. Every query
// starts with tenant_id.

/** A pg.Pool, pg.Client or PoolClient. */
export interface Queryable {
  query<R = unknown>(text: string, values?: unknown[]): Promise<{ rows: R[] }>;
}

/** Columns a spend query may group by; 'day' is the UTC day of the row. '' stands for null. */
export type SpendKey = 'provider' | 'model' | 'token_id' | 'task_type' | 'complexity' | 'day';

export interface SpendRow {
  provider?: string;
  model?: string;
  token_id?: string;
  task_type?: string;
  complexity?: string;
  /** Epoch ms of the UTC day, when grouped by day. */
  day?: number;
  calls: number;
  cost: number;
  inputTokens: number;
  outputTokens: number;
}

const DAY_SQL = `(extract(epoch from date_trunc('day', ts AT TIME ZONE 'UTC')) * 1000)::float8`;

/** The rollup that can answer a grouping, and the raw columns that stand for its keys. */
const ROLLUPS = {
  cell: {
    table: 'spend_by_cell',
    columns: ['provider', 'model', 'task_type', 'complexity'],
    raw: `provider, model, coalesce(task_type, '') as task_type, coalesce(complexity, '') as complexity`,
  },
  token: { table: 'spend_by_token', columns: ['token_id'], raw: `coalesce(token_id, '') as token_id` },
} as const;

export class SpendRepository {
  constructor(private readonly db: Queryable) {}

  /** Calls, cost and tokens of the window, grouped by `keys` (no keys: one row, the total). */
  async totals(tenantId: string, window: SpendWindow, keys: readonly SpendKey[]): Promise<SpendRow[]> {
    const rollup = keys.includes('token_id') ? ROLLUPS.token : ROLLUPS.cell;
    const cols = rollup.columns.join(', ');
    const measures = 'calls, cost, input_tokens, output_tokens';
    const parts = partsOf(window);
    const values: unknown[] = [tenantId];
    const param = (v: unknown) => {
      values.push(v);
      return `$${values.length}`;
    };
    const sources: string[] = [];
    if (parts.days)
      sources.push(
        `select bucket as ts, ${cols}, ${measures} from ${rollup.table}
          where tenant_id = $1 and grain = 'd' and bucket >= ${param(parts.days.from)} and bucket < ${param(parts.days.to)}`,
      );
    for (const h of parts.hours)
      sources.push(
        `select bucket as ts, ${cols}, ${measures} from ${rollup.table}
          where tenant_id = $1 and grain = 'h' and bucket >= ${param(h.from)} and bucket < ${param(h.to)}`,
      );
    for (const r of parts.raw)
      sources.push(
        `select created_at as ts, ${rollup.raw}, 1 as calls, cost, input_tokens, output_tokens from cost_logs
          where tenant_id = $1 and created_at >= ${param(r.from)} and created_at < ${param(r.to)}`,
      );
    const select = keys.map((k) => (k === 'day' ? `${DAY_SQL} as day` : k));
    const groupBy = keys.length ? `group by ${keys.map((_, i) => i + 1).join(', ')}` : '';
    const { rows } = await this.db.query<SpendRow>(
      `select ${[...select, ''].join(', ')}
              coalesce(sum(calls), 0)::float8 as "calls", coalesce(sum(cost), 0)::float8 as "cost",
              coalesce(sum(input_tokens), 0)::float8 as "inputTokens", coalesce(sum(output_tokens), 0)::float8 as "outputTokens"
         from (${sources.join(' union all ')}) s
         ${groupBy}`,
      values,
    );
    // A grouped query over no rows returns none; an ungrouped one returns the zero total.
    return keys.length ? rows.filter((r) => r.calls !== 0 || r.cost !== 0) : rows;
  }
}
