// The contract every upstream provider family implements. The gateway core speaks the OpenAI
// chat format internally; each adapter translates to and from its provider's wire format.
// No HTTP-framework imports here or in any adapter.
import type { Dispatcher } from 'undici';
import type { CancelSignal } from '../lib/cancel-signal.js';

import type {
  ChatRequest,
  ChatCompletion,
  ChatChunk,
  EmbeddingsRequest,
  EmbeddingsResponse,
} from '../../contracts/chat.js';

// The wire types live in contracts/ (the SDK shares them); re-exported for the server's imports.
export type {
  Role,
  TextPart,
  ImagePart,
  ContentPart,
  ToolCall,
  ToolCallExtraContent,
  ChatMessage,
  ChatRequest,
  Usage,
  FinishReason,
  ChatCompletion,
  ChoiceLogprobs,
  ChatChunk,
  EmbeddingsRequest,
  EmbeddingsResponse,
} from '../../contracts/chat.js';

export interface CallOptions {
  /** Aborted when the client goes away or the gateway gives up; adapters must pass it to the HTTP call. */
  signal: CancelSignal;
  /** Upper bound for the whole call (headers and body); adapters turn expiry into a retryable ProviderError. */
  timeoutMs: number;
}

export type ProviderFamily = 'openai-compatible' | 'anthropic' | 'gemini';

export interface ProviderAdapter {
  /** Registry name, as in GET /v1/providers and the `provider/model` syntax: openai, anthropic, gemini, groq, ... */
  readonly name: string;
  readonly family: ProviderFamily;
  /**
   * Upstream model ids this provider serves: its models endpoint, or its built-in list when that
   * lists none. Rejects when the endpoint fails (the registry then uses the built-in list and says why).
   */
  listModels(opts: CallOptions): Promise<string[]>;
  chat(req: ChatRequest, opts: CallOptions): Promise<ChatCompletion>;
  /**
   * Streams OpenAI-format chunks. Must reject/throw a ProviderError before yielding anything when the
   * upstream fails before its first byte (so the core may still fall back); an error after that is
   * thrown from the iterator as a ProviderError too. The adapter asks upstream for usage and yields
   * a final chunk with `usage` set whenever the provider reports it.
   */
  chatStream(req: ChatRequest, opts: CallOptions): AsyncIterable<ChatChunk>;
  embeddings?(req: EmbeddingsRequest, opts: CallOptions): Promise<EmbeddingsResponse>;
}

/** One normalised error for every upstream failure. */
export class ProviderError extends Error {
  readonly provider: string;
  /** Upstream HTTP status, or 0 for connect errors, resets and timeouts. */
  readonly status: number;
  /** True for connect errors, timeouts, 429, 5xx and streams that fail before their first byte. */
  readonly retryable: boolean;
  /** From the upstream Retry-After header, when it sent one. */
  readonly retryAfterMs?: number;
  /**
   * timeout | connection | http | stream | parse, or request: this process could not build or send
   * the request from what the client gave (the request's fault; the provider never saw it).
   */
  readonly kind: 'timeout' | 'connection' | 'http' | 'stream' | 'parse' | 'request';
  /** The provider's error code (OpenAI's `code`, such as `context_length_exceeded`), when it gave one. */
  readonly code?: string;
  /** The request field the provider's error is about (OpenAI's `param`), when it named one. */
  readonly param?: string;
  /**
   * Set when the call was several upstream requests (Gemini embeddings in batches) and some were
   * answered before this failure: their inputs, which the provider bills though the call failed.
   */
  billedInputs?: string[];

  constructor(init: {
    provider: string;
    status: number;
    retryable: boolean;
    message: string;
    kind: ProviderError['kind'];
    retryAfterMs?: number;
    code?: string;
    param?: string;
    cause?: unknown;
  }) {
    super(init.message, { cause: init.cause });
    this.name = 'ProviderError';
    this.provider = init.provider;
    this.status = init.status;
    this.retryable = init.retryable;
    this.kind = init.kind;
    if (init.retryAfterMs !== undefined) this.retryAfterMs = init.retryAfterMs;
    if (init.code !== undefined) this.code = init.code;
    if (init.param !== undefined) this.param = init.param;
  }
}

/** Settings an adapter is built from (config.ts resolves env vars into these). */
export interface ProviderSettings {
  name: string;
  family: ProviderFamily;
  baseUrl: string;
  apiKey?: string;
  /** Used when the provider has no models endpoint or it fails. */
  builtinModels: string[];
  /**
   * The connection pool for this provider's calls when it is not the shared one: a base URL a
   * workspace gave goes through a pool that refuses private addresses at connect time (url-guard.ts).
   */
  dispatcher?: Dispatcher;
}
