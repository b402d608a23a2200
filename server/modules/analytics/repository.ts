// SQL for the analytics endpoints. All-time figures come from the trigger-maintained rollups
// (analytics_request_totals, analytics_cost_totals); ranges from the hourly rollups for whole hours
// plus the raw rows of the partial first hour. Every query is scoped by tenant_id first. Sums are
// cast to float8 so node-postgres returns numbers.

import type { RequestStatus } from '../../db/schema/index.js';

/** A pg.Pool, pg.Client or PoolClient. */
export interface Queryable {
  query<R = unknown>(text: string, values?: unknown[]): Promise<{ rows: R[] }>;
}

/** One row per distinct value of the requested dimensions ('' for the others and for null). */
export interface RequestTotalsRow {
  provider: string;
  model: string;
  routedBy: string;
  taskType: string;
  complexity: string;
  requests: number;
  latencySum: number;
  fallbackCount: number;
  fallbackLatencySum: number;
  llmFallbackCount: number;
  exactHits: number;
  semanticHits: number;
  tokensSavedInput: number;
  tokensSavedOutput: number;
  errors: number;
  feedbackCount: number;
  /** Requests with a task type (the classifier ran). */
  classifiedRequests: number;
  /** Requests that reached a provider and were not answered from the cache. */
  upstreamRequests: number;
  upstreamLatencySum: number;
}

export type TotalsDimension = 'provider' | 'model' | 'routedBy' | 'taskType' | 'complexity';

const DIMENSION_COLUMNS: Record<TotalsDimension, string> = {
  provider: 'provider',
  model: 'model',
  routedBy: 'routed_by',
  taskType: 'task_type',
  complexity: 'complexity',
};

export interface CostTotalsRow {
  provider: string;
  model: string;
  calls: number;
  errors: number;
  cost: number;
  inputTokens: number;
  outputTokens: number;
}

export interface OverviewRow {
  requests: number;
  latencySum: number;
  tokensSavedInput: number;
  tokensSavedOutput: number;
  cacheHits: number;
  errors: number;
  cost: number;
  calls: number;
}

export interface TimeseriesRow {
  kind: 'r' | 'c';
  /** Bucket start, epoch ms, already grouped to the window's unit. */
  bucket: number;
  requests: number;
  latencySum: number;
  latencyMax: number;
  cost: number;
}

export interface CostSeriesRow {
  bucket: number;
  provider: string;
  cost: number;
}

export interface CompareRow {
  kind: 'r' | 'c';
  provider: string;
  model: string;
  requests: number;
  latencySum: number;
  feedbackCount: number;
  scoreSum: number;
  calls: number;
  cost: number;
}

export interface RequestListRow {
  id: string;
  createdKey: string;
  createdAt: Date;
  provider: string | null;
  model: string | null;
  taskType: string | null;
  complexity: string | null;
  routedBy: string;
  usedFallback: boolean;
  cached: boolean;
  cacheType: string | null;
  streamed: boolean;
  status: RequestStatus;
  errorType: string | null;
  latencyMs: number;
  inputTokens: number;
  outputTokens: number;
  tokensSaved: number;
  costUsd: number;
  abTestId: string | null;
  variant: string | null;
  endpoint: 'chat' | 'embeddings';
}

export interface RequestListQuery {
  endpoint: 'chat' | 'embeddings';
  orderBy: 'createdAt' | 'latencyMs';
  order: 'asc' | 'desc';
  limit: number;
  /** Keyset position: rows strictly after (value, id) in the requested order. */
  after?: { value: string | number; id: string };
}

export interface WindowParams {
  start: Date;
  rollupFrom: Date;
  lastHour: Date;
  /** Bucket size to group to, ms (hour or day). */
  unitMs: number;
}

/** Epoch ms of a timestamptz expression, grouped down to $unit ms. */
const bucketOf = (expr: string, unitParam: string) =>
  `(floor(extract(epoch from ${expr}) * 1000 / ${unitParam}) * ${unitParam})::float8`;

const SQL = {
  overview: `
    select r.requests, r.latency_sum as "latencySum", r.tokens_saved_input as "tokensSavedInput", r.tokens_saved_output as "tokensSavedOutput",
           r.cache_hits as "cacheHits", r.errors, c.cost, c.calls
    from (select coalesce(sum(requests), 0)::float8 as requests, coalesce(sum(latency_sum), 0)::float8 as latency_sum,
                 coalesce(sum(tokens_saved_input), 0)::float8 as tokens_saved_input, coalesce(sum(tokens_saved_output), 0)::float8 as tokens_saved_output,
                 coalesce(sum(exact_hits + semantic_hits), 0)::float8 as cache_hits, coalesce(sum(errors), 0)::float8 as errors
          from analytics_request_totals where tenant_id = $1) r,
         (select coalesce(sum(cost), 0)::float8 as cost, coalesce(sum(calls), 0)::float8 as calls
          from analytics_cost_totals where tenant_id = $1) c`,

  costTotals: `
    select provider, model, calls::float8 as calls, errors::float8 as errors, cost::float8 as cost,
           input_tokens::float8 as "inputTokens", output_tokens::float8 as "outputTokens"
    from analytics_cost_totals
    where tenant_id = $1 and calls <> 0`,

  // The feedback count is an index-only scan on the feedback table: about 6 ms for the 50,000
  // feedback rows of a million-request workspace, 85 ms for a million feedback rows.
  pipelineCounts: `
    select (select count(*) from ab_tests where tenant_id = $1 and status = 'active')::int as "activeAbTests",
           (select count(*) from feedback where tenant_id = $1)::float8 as "feedbackCount"`,

  // $2 start, $3 rollupFrom, $4 lastHour, $5 unit ms.
  timeseries: `
    select 'r' as kind, ${bucketOf('bucket', '$5')} as bucket, sum(requests)::float8 as requests, sum(latency_sum)::float8 as "latencySum",
           max(latency_max)::float8 as "latencyMax", 0::float8 as cost
    from analytics_request_hourly where tenant_id = $1 and bucket >= $3 and bucket <= $4 group by 2
    union all
    select 'r', ${bucketOf('$2::timestamptz', '$5')}, count(*)::float8, coalesce(sum(latency_ms), 0)::float8, coalesce(max(latency_ms), 0)::float8, 0
    from requests where tenant_id = $1 and created_at >= $2 and created_at < $3 and endpoint = 'chat'
    union all
    select 'c', ${bucketOf('bucket', '$5')}, 0, 0, 0, sum(cost)::float8
    from analytics_cost_hourly where tenant_id = $1 and bucket >= $3 and bucket <= $4 group by 2
    union all
    select 'c', ${bucketOf('$2::timestamptz', '$5')}, 0, 0, 0, coalesce(sum(cost), 0)::float8
    from cost_logs where tenant_id = $1 and created_at >= $2 and created_at < $3`,

  costSeries: `
    select ${bucketOf('bucket', '$5')} as bucket, provider, sum(cost)::float8 as cost
    from analytics_cost_hourly where tenant_id = $1 and bucket >= $3 and bucket <= $4 and calls <> 0 group by 1, 2
    union all
    select ${bucketOf('$2::timestamptz', '$5')}, provider, sum(cost)::float8
    from cost_logs where tenant_id = $1 and created_at >= $2 and created_at < $3 group by 2`,

  // $2 start, $3 rollupFrom. No upper bound: everything at or after start.
  compare: `
    select 'r' as kind, provider, model, sum(requests)::float8 as requests, sum(latency_sum)::float8 as "latencySum",
           sum(feedback_count)::float8 as "feedbackCount", sum(feedback_score_sum)::float8 as "scoreSum", 0::float8 as calls, 0::float8 as cost
    from analytics_request_hourly where tenant_id = $1 and bucket >= $3 group by provider, model
    union all
    select 'r', coalesce(r.provider, ''), coalesce(r.model, ''), count(*)::float8, sum(r.latency_ms)::float8, sum(fb.n)::float8, sum(fb.s)::float8, 0, 0
    from requests r
    cross join lateral (select count(*) as n, coalesce(sum(f.score), 0) as s from feedback f where f.tenant_id = r.tenant_id and f.request_id = r.id) fb
    where r.tenant_id = $1 and r.created_at >= $2 and r.created_at < $3 and r.endpoint = 'chat'
    group by 2, 3
    union all
    select 'c', provider, model, 0, 0, 0, 0, sum(calls)::float8, sum(cost)::float8
    from analytics_cost_hourly where tenant_id = $1 and bucket >= $3 group by provider, model
    union all
    select 'c', provider, model, 0, 0, 0, 0, count(*)::float8, sum(cost)::float8
    from cost_logs where tenant_id = $1 and created_at >= $2 and created_at < $3 group by provider, model`,
};

const REQUEST_COLUMNS = `
  r.id, to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as "createdKey", r.created_at as "createdAt",
  r.provider, r.model, r.task_type as "taskType", r.complexity, r.routed_by as "routedBy", r.used_fallback as "usedFallback",
  r.cached, r.cache_type as "cacheType", r.streamed, r.status, r.error_type as "errorType", r.latency_ms as "latencyMs",
  r.input_tokens as "inputTokens", r.output_tokens as "outputTokens", (r.tokens_saved_input + r.tokens_saved_output) as "tokensSaved",
  r.ab_test_id as "abTestId", r.variant, r.endpoint`;

/** Judged quality of one (provider, model) on one routing cell, all time. */
export interface CellQualityRow {
  provider: string;
  model: string;
  taskType: string;
  complexity: string;
  /** Feedback rows (user and judge scores) on requests this model served in this cell. */
  samples: number;
  scoreSum: number;
}

export const analyticsRepository = {
  /** Feedback per (provider, model, cell), summed over how the requests were routed; rated cells only. */
  async cellQuality(db: Queryable, tenantId: string): Promise<CellQualityRow[]> {
    const { rows } = await db.query<CellQualityRow>(
      `select provider, model, task_type as "taskType", complexity,
              sum(feedback_count)::float8 as samples, sum(feedback_score_sum)::float8 as "scoreSum"
         from analytics_request_totals
        where tenant_id = $1 and task_type <> '' and complexity <> '' and provider <> ''
        group by 1, 2, 3, 4
       having sum(feedback_count) > 0`,
      [tenantId],
    );
    return rows;
  },

  async overview(db: Queryable, tenantId: string): Promise<OverviewRow> {
    const { rows } = await db.query<OverviewRow>(SQL.overview, [tenantId]);
    return rows[0]!;
  },

  /** All-time request measures grouped by `dimensions` (the rollup has a few hundred rows per tenant at most). */
  async requestTotals(db: Queryable, tenantId: string, dimensions: TotalsDimension[]): Promise<RequestTotalsRow[]> {
    const keys = (Object.keys(DIMENSION_COLUMNS) as TotalsDimension[]).map(
      (d) => `${dimensions.includes(d) ? DIMENSION_COLUMNS[d] : "''"} as "${d}"`,
    );
    const groupBy = dimensions.map((d) => DIMENSION_COLUMNS[d]);
    const text = `
      select ${keys.join(', ')},
             sum(requests)::float8 as requests, sum(latency_sum)::float8 as "latencySum", sum(fallback_count)::float8 as "fallbackCount",
             sum(fallback_latency_sum)::float8 as "fallbackLatencySum", sum(llm_fallback_count)::float8 as "llmFallbackCount",
             sum(exact_hits)::float8 as "exactHits", sum(semantic_hits)::float8 as "semanticHits",
             sum(tokens_saved_input)::float8 as "tokensSavedInput", sum(tokens_saved_output)::float8 as "tokensSavedOutput",
             sum(errors)::float8 as errors, sum(feedback_count)::float8 as "feedbackCount",
             coalesce(sum(requests) filter (where task_type <> ''), 0)::float8 as "classifiedRequests",
             coalesce(sum(requests - exact_hits - semantic_hits) filter (where provider <> ''), 0)::float8 as "upstreamRequests",
             coalesce(sum(latency_sum) filter (where provider <> ''), 0)::float8 as "upstreamLatencySum"
      from analytics_request_totals
      where tenant_id = $1
      ${groupBy.length ? `group by ${groupBy.join(', ')}` : ''}
      having sum(requests) <> 0 or sum(feedback_count) <> 0`;
    return (await db.query<RequestTotalsRow>(text, [tenantId])).rows;
  },

  async costTotals(db: Queryable, tenantId: string): Promise<CostTotalsRow[]> {
    return (await db.query<CostTotalsRow>(SQL.costTotals, [tenantId])).rows;
  },

  /** Active A/B tests, and feedback rows of the workspace (all of them, whether their requests remain or not). */
  async pipelineCounts(db: Queryable, tenantId: string): Promise<{ activeAbTests: number; feedbackCount: number }> {
    const { rows } = await db.query<{ activeAbTests: number; feedbackCount: number }>(SQL.pipelineCounts, [tenantId]);
    return rows[0] ?? { activeAbTests: 0, feedbackCount: 0 };
  },

  async timeseries(db: Queryable, tenantId: string, w: WindowParams): Promise<TimeseriesRow[]> {
    return (await db.query<TimeseriesRow>(SQL.timeseries, [tenantId, w.start, w.rollupFrom, w.lastHour, w.unitMs]))
      .rows;
  },

  async costSeries(db: Queryable, tenantId: string, w: WindowParams): Promise<CostSeriesRow[]> {
    return (await db.query<CostSeriesRow>(SQL.costSeries, [tenantId, w.start, w.rollupFrom, w.lastHour, w.unitMs]))
      .rows;
  },

  async compare(db: Queryable, tenantId: string, start: Date, rollupFrom: Date): Promise<CompareRow[]> {
    return (await db.query<CompareRow>(SQL.compare, [tenantId, start, rollupFrom])).rows;
  },

  async listRequests(db: Queryable, tenantId: string, q: RequestListQuery): Promise<RequestListRow[]> {
    const column = q.orderBy === 'createdAt' ? 'r.created_at' : 'r.latency_ms';
    const cast = q.orderBy === 'createdAt' ? 'timestamptz' : 'int4';
    const dir = q.order === 'asc' ? 'asc' : 'desc';
    // requests_tenant_created_idx is (tenant_id, created_at desc nulls last): spell the nulls order
    // out so the planner walks that index (created_at is never null, so the result is the same).
    const nulls = q.orderBy === 'createdAt' ? (dir === 'asc' ? ' nulls first' : ' nulls last') : '';
    const values: unknown[] = [tenantId, q.limit, q.endpoint];
    let keyset = '';
    if (q.after) {
      values.push(q.after.value, q.after.id);
      keyset = `and (${column}, r.id) ${dir === 'asc' ? '>' : '<'} ($4::${cast}, $5::text)`;
    }
    // Cost is looked up for the page only (the inner query is limited first).
    const text = `
      select p.*, coalesce((select sum(c.cost) from cost_logs c where c.tenant_id = $1 and c.request_id = p.id), 0)::float8 as "costUsd"
      from (
        select ${REQUEST_COLUMNS}
        from requests r
        where r.tenant_id = $1 and r.endpoint = $3 ${keyset}
        order by ${column} ${dir}${nulls}, r.id ${dir}
        limit $2
      ) p
      order by ${q.orderBy === 'createdAt' ? 'p."createdAt"' : 'p."latencyMs"'} ${dir}, p.id ${dir}`;
    return (await db.query<RequestListRow>(text, values)).rows;
  },
};
