import type { OpenApiMeta } from 'trpc-to-openapi';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

// One description per status: the document generator shares one response object per status across
// all operations, so what an operation adds to it belongs in its own `description`.
const ERROR_DESCRIPTIONS = {
  400: 'invalid_request_error: a bad query or body (the message names the field: an unknown field, a NUL character, a malformed cursor, ...)',
  401: 'auth_error: a missing, malformed, unknown or disabled bearer token',
  402: 'insufficient_tier: the workspace tier does not include this feature (the error carries an `upgrade` object)',
  403: 'permission_error: the operation needs an admin token',
  404: "not_found_error: no such object in this workspace (another workspace's ids answer the same)",
  409: 'conflict_error: the change conflicts with the current state',
  413: 'invalid_request_error: request body too large',
  415: 'invalid_request_error: Content-Type is not application/json',
  500: 'internal_error: an unexpected failure (details are logged, never sent)',
  503: 'service_unavailable: shutting down, or the token cannot be checked while the database is unreachable',
} as const;

export type ErrorStatus = keyof typeof ERROR_DESCRIPTIONS;

export interface RestOptions {
  /** No bearer token needed (health). */
  public?: boolean;
  /** Needs an admin token: other tokens get 403. */
  admin?: boolean;
  description?: string;
  /**
   * Statuses the operation gives beyond those that follow from its method, path and auth level:
   * 402 (tier gate), 404 (an id in the body that may not exist), 409 (a state conflict).
   */
  errors?: ErrorStatus[];
}

/**
 * REST metadata for a procedure: the exact SPEC.md path, a tag, a summary; bearer auth unless public.
 * Its OpenAPI responses list every error status the operation can give.
 */
export function rest(
  method: Method,
  path: `/${string}`,
  tag: string,
  summary: string,
  opts: RestOptions = {},
): OpenApiMeta {
  const statuses = new Set([...commonErrors(method, path, opts), ...(opts.errors ?? [])]);
  return {
    openapi: {
      method,
      path,
      tags: [tag],
      summary,
      protect: !opts.public,
      errorResponses: Object.fromEntries([...statuses].sort((a, b) => a - b).map((s) => [s, ERROR_DESCRIPTIONS[s]])),
      ...(opts.description ? { description: opts.description } : {}),
    },
  };
}

const BODY_METHODS = new Set<Method>(['POST', 'PUT', 'PATCH']);

function commonErrors(method: Method, path: string, opts: RestOptions): ErrorStatus[] {
  const statuses: ErrorStatus[] = [];
  if (!opts.public) statuses.push(400, 401);
  if (opts.admin) statuses.push(403);
  if (path.includes('{')) statuses.push(404);
  if (BODY_METHODS.has(method)) statuses.push(413, 415);
  statuses.push(500);
  if (!opts.public) statuses.push(503);
  return statuses;
}
