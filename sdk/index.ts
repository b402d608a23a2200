import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import superjson from 'superjson';
import type { AppRouter } from '../server/trpc/router.js';

// The typed client for the gateway's control plane (tRPC over /trpc with superjson).

export type { AppRouter };
/** The version of this package (client and gateway ship together). */
export { VERSION } from '../server/version.js';
/** One event of the live tap (GET /v1/analytics/live). */
export type { LiveEvent } from '../server/gateway/live-bus.js';
export type RouterInputs = inferRouterInputs<AppRouter>;
export type RouterOutputs = inferRouterOutputs<AppRouter>;

export interface GatewayClientOptions {
  /** The gateway's base URL, e.g. http://127.0.0.1:8080 */
  baseUrl: string;
  /** An API token (Bearer). */
  token?: string;
  /** Extra headers sent with every call. */
  headers?: Record<string, string>;
  fetch?: typeof fetch;
}

export function createGatewayClient(opts: GatewayClientOptions) {
  const base = opts.baseUrl.replace(/\/+$/, '');
  return createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `${base}/trpc`,
        transformer: superjson,
        headers: () => ({ ...opts.headers, ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}) }),
        ...(opts.fetch ? { fetch: opts.fetch } : {}),
      }),
    ],
  });
}

export type GatewayClient = ReturnType<typeof createGatewayClient>;

export interface GatewayErrorInfo {
  type: string;
  message: string;
  status: number;
  [k: string]: unknown;
}

/** The gateway's typed error ({type, message}) behind a failed SDK call, or undefined for other errors. */
export function gatewayErrorOf(err: unknown): GatewayErrorInfo | undefined {
  if (!(err instanceof TRPCClientError)) return undefined;
  const data = (err as TRPCClientError<AppRouter>).data as { gatewayError?: { type: string; message: string }; httpStatus?: number } | undefined;
  if (!data?.gatewayError) return undefined;
  return { ...data.gatewayError, status: data.httpStatus ?? 0 };
}
