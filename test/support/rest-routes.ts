import type { RouterOutputs } from '../../sdk/index.js';

// The REST routes of the tRPC procedures (their trpc-to-openapi meta), so the harness's `http`
// can type an answer's body by its method and path. Checked against the router's meta by
// test/unit/rest-routes.test.ts; a route missing here is simply untyped (`any`).

export const REST_ROUTES = {
  'GET /health': 'system.health',
  'GET /v1/admin/tokens': 'tokens.list',
  'POST /v1/admin/tokens': 'tokens.create',
  'PATCH /v1/admin/tokens/{id}': 'tokens.update',
  'DELETE /v1/admin/tokens/{id}': 'tokens.remove',
  'GET /v1/audit-logs': 'audit.list',
  'GET /v1/providers': 'providers.list',
  'POST /v1/providers/reload': 'providers.reload',
  'GET /v1/models/stats': 'providers.modelStats',
  'GET /v1/models/pricing': 'providers.pricing',
  'GET /v1/models': 'providers.models',
  'GET /v1/models/{model}': 'providers.model',
  'GET /v1/ab-tests': 'abTests.list',
  'POST /v1/ab-tests': 'abTests.create',
  'GET /v1/ab-tests/{id}': 'abTests.get',
  'PATCH /v1/ab-tests/{id}': 'abTests.update',
  'DELETE /v1/ab-tests/{id}': 'abTests.remove',
  'POST /v1/feedback': 'feedback.submit',
  'GET /v1/feedback': 'feedback.list',
  'GET /v1/feedback/quality/by-model': 'feedback.qualityByModel',
  'GET /v1/feedback/quality/by-cell': 'feedback.qualityByCell',
  'GET /v1/feedback/quality/trend': 'feedback.qualityTrend',
  'GET /v1/feedback/judge/config': 'feedback.judgeConfig',
  'PUT /v1/feedback/judge/config': 'feedback.updateJudgeConfig',
  'GET /v1/admin/scheduler/jobs': 'scheduler.list',
  'POST /v1/admin/scheduler/jobs/{name}/run': 'scheduler.run',
  'GET /v1/analytics/overview': 'analytics.overview',
  'GET /v1/analytics/cache/savings': 'analytics.cacheSavings',
  'GET /v1/analytics/costs/by-provider': 'analytics.costsByProvider',
  'GET /v1/analytics/costs/by-model': 'analytics.costsByModel',
  'GET /v1/analytics/timeseries/cost-by-provider': 'analytics.costTimeseries',
  'GET /v1/analytics/timeseries': 'analytics.timeseries',
  'GET /v1/analytics/routing/stats': 'analytics.routingStats',
  'GET /v1/analytics/routing/distribution': 'analytics.routingDistribution',
  'GET /v1/analytics/pipeline': 'analytics.pipeline',
  'GET /v1/analytics/models/compare': 'analytics.modelsCompare',
  'GET /v1/analytics/requests': 'analytics.requests',
} as const;

/** A REST route of the router, as 'METHOD /path/{param}'. */
export type RestRoute = keyof typeof REST_ROUTES;

/** A procedure's output from its dotted name ('tokens.list'). */
type OutputOf<Name extends string, O = RouterOutputs> = Name extends `${infer Head}.${infer Rest}`
  ? Head extends keyof O
    ? OutputOf<Rest, O[Head]>
    : never
  : Name extends keyof O
    ? O[Name]
    : never;

/** The gateway's error answer (SPEC.md errors). */
export interface ErrorBody {
  error: { type: string; message: string; [k: string]: unknown };
}

/** The body of an answer on a route: its procedure's output, or (a failed call) the error answer's `error`. */
export type RouteBody<R extends RestRoute> = OutputOf<(typeof REST_ROUTES)[R]> & Partial<ErrorBody>;

/** The names of a route's `{params}`. */
type ParamsOf<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}`
  ? Name | ParamsOf<Rest>
  : never;

/** What a route's path needs: its `{params}`, and a query string. */
export type RouteParams<R extends RestRoute> = ([ParamsOf<R>] extends [never]
  ? { params?: undefined }
  : { params: Record<ParamsOf<R>, string> }) & { query?: Record<string, string | number | boolean | undefined> };

/** The method and the path of a route, its `{params}` filled in (URI-encoded) and the query appended. */
export function routeRequest(
  route: RestRoute,
  { params, query }: { params?: Record<string, string>; query?: Record<string, string | number | boolean | undefined> },
): { method: string; path: string } {
  const [method, pattern] = route.split(' ') as [string, string];
  const path = pattern.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params?.[name];
    if (value === undefined) throw new Error(`${route}: no value for {${name}}`);
    return encodeURIComponent(value);
  });
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined) search.set(key, String(value));
  return { method, path: search.size > 0 ? `${path}?${search}` : path };
}
