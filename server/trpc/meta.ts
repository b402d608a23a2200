import type { OpenApiMeta } from 'trpc-to-openapi';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** REST metadata for a procedure: the exact SPEC.md path, a tag, a summary; bearer auth unless public. */
export function rest(method: Method, path: `/${string}`, tag: string, summary: string, opts: { public?: boolean; description?: string } = {}): OpenApiMeta {
  return {
    openapi: {
      method,
      path,
      tags: [tag],
      summary,
      protect: !opts.public,
      ...(opts.description ? { description: opts.description } : {}),
    },
  };
}
