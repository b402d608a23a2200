import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import superjson from 'superjson';
import type { AppRouter } from '../server/trpc/router.js';
import { chatApi, GatewayApiError, type ChatApi } from './chat.js';

// The typed client for the gateway: the control plane (tRPC over /trpc with superjson) and the
// chat endpoint (`chat.completions.create`, OpenAI-compatible, streaming included).

export { GatewayApiError, type ChatApi, type ChatCallOptions, type ChatCompletions, type ChatStream } from './chat.js';
export type { GatewayChatChunk, GatewayChatCompletion, GatewayChatRequest, GatewayMeta } from './chat-types.js';

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
  const headers = () => ({ ...opts.headers, ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}) });
  const trpc = createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `${base}/trpc`,
        transformer: superjson,
        headers,
        ...(opts.fetch ? { fetch: opts.fetch } : {}),
      }),
    ],
  });
  const chat = chatApi(base, headers, opts.fetch ?? fetch);
  // The tRPC client is a proxy that takes every property for a procedure path; `chat` is not one
  // (no router is named so), so it is answered here and the rest is passed on.
  return new Proxy(trpc, { get: (target, key, receiver) => (key === 'chat' ? chat : Reflect.get(target, key, receiver)) }) as typeof trpc & { chat: ChatApi };
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
  if (err instanceof GatewayApiError) return { ...err.body, type: err.type, message: err.message, status: err.status };
  if (!(err instanceof TRPCClientError)) return undefined;
  const data = (err as TRPCClientError<AppRouter>).data as { gatewayError?: { type: string; message: string }; httpStatus?: number } | undefined;
  if (!data?.gatewayError) return undefined;
  return { ...data.gatewayError, status: data.httpStatus ?? 0 };
}
