import type { CancelSignal } from '../lib/cancel-signal.js';
import type { ChatCompletion, ChatChunk, ChatMessage, Usage } from '../providers/types.js';
import type { ChatBody } from './chat-body-schema.js';
import type { Complexity, RoutedBy, TaskType } from './labels.js';

// The data-plane core's vocabulary. No HTTP or tRPC types here: evals, replays and the judge
// drive the same core.

export { COMPLEXITIES, ROUTED_BY, TASK_TYPES, type Complexity, type RoutedBy, type TaskType } from './labels.js';

/** Who chose a target: the caller (named it), the router, or the fallback rule (see targetRole). */
export type TargetRole = 'named' | 'routed' | 'fallback';

export interface Target {
  provider: string;
  model: string;
}

/** The one routing decision object (DESIGN.md section 3). */
export interface RoutingDecision extends Target {
  routedBy: RoutedBy;
  taskType: TaskType | null;
  complexity: Complexity | null;
  usedFallback: boolean;
  usedLlmFallback: boolean;
  abTestId?: string;
  variant?: string;
}

/**
 * The routing cell: the task and complexity a request was labelled with, and how. Routing reports
 * it with a failure too (no capable model), so the request row keeps what had been settled.
 */
export interface RoutingCell {
  taskType: TaskType;
  complexity: Complexity;
  routedBy: 'classification' | 'routing-hint';
  usedLlmFallback: boolean;
}

/**
 * One chat call as the core sees it: the request, read-only from the moment the HTTP layer (or
 * internalCall) builds it. Nothing in the core writes into it: routing returns its result (see
 * RoutingResult), and what the call accumulates while it is served (cost rows, failed attempts,
 * time spent upstream) lives in its CallState (call-state.ts), which the pipeline creates for each
 * call and only the attempt loop and its consumer change.
 */
export interface ChatCall {
  readonly requestId: string;
  readonly tenantId: string;
  readonly tokenId: string | null;
  readonly body: ChatBody;
  readonly messages: ChatMessage[];
  /**
   * Client-side hints from headers: the pre-labels (x-gateway-task-type, x-gateway-complexity),
   * checked like the body's routing_hint and complexity_hint, and x-gateway-no-cache.
   */
  readonly headerHints: { readonly taskType?: TaskType; readonly complexity?: Complexity; readonly noCache?: string };
  /** Fires when the client goes away. */
  readonly signal: CancelSignal;
  /** performance.now() when the call arrived. */
  readonly startedAt: number;
  readonly createdAt: Date;
  /** A call the gateway makes itself (judge, evals): cost rows only, no request row. */
  readonly costOnly?: boolean;
  /** Set on POST /v1/embeddings calls, which go through the same accounting; unset: a chat call. */
  readonly endpoint?: 'embeddings';
  /**
   * Told the USD total of the cost rows logged for this call, once, when they are logged (the
   * token's spend limit counts it at once in this process; token_spend catches up when they commit).
   */
  readonly onCost?: (usd: number) => void;
}

export interface UpstreamErrorSummary {
  provider: string;
  model: string;
  status: number;
  kind: string;
  message: string;
  /** The wait the provider asked for (Retry-After), if it asked. */
  retryAfterMs?: number;
  /** The provider's error code and the field it is about, when it gave them (OpenAI's `code`, `param`). */
  code?: string;
  param?: string;
}

/** What `_gateway` and the X-Gateway-* headers report. */
export interface CallMeta {
  requestId: string;
  provider: string;
  model: string;
  latencyMs: number;
  cached: boolean;
  cacheType: 'exact' | 'semantic' | null;
  cost: number;
  usage: Usage;
  routing: {
    taskType: TaskType | null;
    complexity: Complexity | null;
    routedBy: RoutedBy;
    usedFallback: boolean;
    usedLlmFallback: boolean;
    abTestId?: string;
    variant?: string;
  };
  errors: UpstreamErrorSummary[];
  /**
   * Time spent waiting on providers, ms: every attempt from sending its request to its answer (for
   * streams, to the first chunk). The rest of the latency is the gateway's own (Server-Timing).
   */
  upstreamMs: number;
}

export interface CompletionResult {
  completion: ChatCompletion;
  meta: CallMeta;
}

/** What a stream's response head reports: cost and latency are only known at its end (last frame). */
/** What a stream's head says: cost and latency only when known before the first chunk (a cache hit). */
export type StreamHeadMeta = Omit<CallMeta, 'latencyMs' | 'cost' | 'usage'> &
  Partial<Pick<CallMeta, 'latencyMs' | 'cost'>>;

/** Where a streamed call writes. The HTTP layer implements it over SSE. */
export interface StreamSink {
  /** The first upstream byte is in: commit to this target (send headers). */
  start(meta: StreamHeadMeta): void;
  /**
   * A content chunk. Any usage on it is left out: usage travels once, in the last frame. Returns
   * false when the client is not keeping up (its socket did not take the frame): wait for
   * drained() before sending more.
   */
  chunk(chunk: ChatChunk): boolean;
  /**
   * Resolves true when the client can take more, or it went away, or `signal` fired; false when it
   * read nothing for `timeoutMs`, and then the response is given up (the connection is closed).
   */
  drained(signal: CancelSignal, timeoutMs: number): Promise<boolean>;
  /** The last frame: carries `_gateway`, and usage when asked for (`choices: []`; otherwise it is the answer's held finish chunk); then [DONE]. */
  end(final: ChatChunk, meta: CallMeta): void;
  /** The stream broke after it started: an SSE error event, never a clean [DONE]. */
  fail(error: { type: string; message: string }): void;
}
