import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import superjson from 'superjson';
import type { AppRouter } from './app-router.js';
import { chatApi, type ChatApi } from './chat.js';
import { embeddingsApi, type EmbeddingsApi } from './embeddings.js';
import { liveApi, type LiveApi } from './live.js';
import { spendExportApi, type SpendExportApi } from './spend-export.js';
import { GatewayApiError, requestIdOf, trpcAnswersOnly, withTimeout } from './http.js';

// The typed client for the gateway: the control plane (tRPC over /trpc with superjson) and the
// data plane (`chat.completions.create`, streaming included, and `embeddings.create`, OpenAI-compatible).

export { HTTP_ERROR } from './http.js';
export { GatewayApiError, type ChatApi, type ChatCallOptions, type ChatCompletions, type ChatStream } from './chat.js';
export type { LiveApi, LiveCallOptions, LiveMessage, LiveSubscription } from './live.js';
export type { SpendExport, SpendExportApi, SpendExportOptions } from './spend-export.js';
export type {
  EmbeddingsApi,
  EmbeddingsCallOptions,
  GatewayEmbeddings,
  GatewayEmbeddingsRequest,
} from './embeddings.js';
export type {
  GatewayChatChunk,
  GatewayChatCompletion,
  GatewayChatMessage,
  GatewayChatRequest,
  GatewayMeta,
} from './chat-types.js';

export type { AppRouter };
export { FINISHED_RUN_STATES, watchEvalRun, type EvalRunDetail, type WatchEvalRunOptions } from './evals.js';
/** The version of this package (client and gateway ship together). */
export { VERSION } from '../contracts/version.js';
/** One event of the live tap (GET /v1/analytics/live, `gw.live.subscribe()`). */
export type { LiveEvent } from '../contracts/live.js';
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
  /**
   * Gives up on a call whose answer has not arrived in full within this many milliseconds (the
   * body of a whole answer included). Streams are timed to their first byte only. Chat,
   * embeddings and live reject with a DOMException named TimeoutError; a control-plane (tRPC)
   * call rejects with a TRPCClientError whose `cause` is that DOMException. A value above
   * 2147483647 (about 24.8 days, the longest timer Node has) counts as that. Default (or 0): no
   * limit. A negative or non-numeric value is refused with a RangeError.
   */
  timeoutMs?: number;
}

export function createGatewayClient(opts: GatewayClientOptions) {
  // A negative timeout would fire at once and fail every call: refused here instead.
  if (opts.timeoutMs !== undefined && !(opts.timeoutMs >= 0))
    throw new RangeError(
      `timeoutMs must be 0 (no limit) or a positive number of milliseconds, not ${String(opts.timeoutMs)}`,
    );
  const base = opts.baseUrl.replace(/\/+$/, '');
  const headers = () => ({ ...opts.headers, ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}) });
  const fetchImpl = withTimeout(opts.fetch ?? fetch, opts.timeoutMs);
  const trpc = createTRPCClient<AppRouter>({
    links: [httpLink({ url: `${base}/trpc`, transformer: superjson, headers, fetch: trpcAnswersOnly(fetchImpl) })],
  });
  // The HTTP endpoints beside the tRPC client: `chat`, `embeddings` and `live` are no router's
  // names, so the proxy (which takes every property for a procedure path) answers them here and
  // passes the rest on.
  const dataPlane: Record<string | symbol, unknown> = {
    chat: chatApi(base, headers, fetchImpl),
    embeddings: embeddingsApi(base, headers, fetchImpl),
    live: liveApi(base, headers, fetchImpl),
    spendExport: spendExportApi(base, headers, fetchImpl),
  };
  return new Proxy(trpc, {
    get: (target, key, receiver) =>
      Object.hasOwn(dataPlane, key) ? dataPlane[key] : Reflect.get(target, key, receiver),
  }) as typeof trpc & {
    chat: ChatApi;
    embeddings: EmbeddingsApi;
    /** The live tap (GET /v1/analytics/live). */
    live: LiveApi;
    /** The spend export (GET /v1/spend/export), CSV or JSON. */
    spendExport: SpendExportApi;
  };
}

export type GatewayClient = ReturnType<typeof createGatewayClient>;

export interface GatewayErrorInfo {
  type: string;
  message: string;
  /** HTTP status (0 for an error frame that ended a stream after its first chunk). */
  status: number;
  /** X-Gateway-Request-Id of the failed call, when the gateway answered. */
  requestId?: string;
  /** Seconds to wait before trying again, from the Retry-After of a 429. */
  retryAfterSeconds?: number;
  [k: string]: unknown;
}

/**
 * The gateway's typed error ({type, message, status}) behind a failed SDK call, or undefined for
 * an error that is not an answer: the gateway unreachable, a timeout or an abort. An answer that
 * is not the gateway's (a proxy's error page, a wrong base URL) has type `http_error`.
 *
 * Chat, embeddings and live reject with such errors as they are (`TypeError: fetch failed`, a
 * DOMException named TimeoutError or AbortError). A control-plane (tRPC) call always rejects with a
 * TRPCClientError; for an error that is not an answer, the platform's error is its `cause`.
 */
export function gatewayErrorOf(err: unknown): GatewayErrorInfo | undefined {
  if (err instanceof GatewayApiError) return apiErrorInfo(err);
  if (!(err instanceof TRPCClientError)) return undefined;
  if (err.cause instanceof GatewayApiError) return apiErrorInfo(err.cause);
  const data = (err as TRPCClientError<AppRouter>).data as
    | { gatewayError?: { type: string; message: string }; httpStatus?: number }
    | undefined;
  if (!data?.gatewayError) return undefined;
  const response = (err.meta as { response?: unknown } | undefined)?.response;
  const requestId = response instanceof Response ? requestIdOf(response) : undefined;
  return { ...data.gatewayError, status: data.httpStatus ?? 0, ...(requestId ? { requestId } : {}) };
}

function apiErrorInfo(err: GatewayApiError): GatewayErrorInfo {
  return {
    ...err.body,
    type: err.type,
    message: err.message,
    status: err.status,
    ...(err.requestId ? { requestId: err.requestId } : {}),
    ...(err.retryAfterSeconds !== undefined ? { retryAfterSeconds: err.retryAfterSeconds } : {}),
  };
}
