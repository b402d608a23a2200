// The contract every upstream provider family implements. The gateway core speaks the OpenAI
// chat format internally; each adapter translates to and from its provider's wire format.
// No HTTP-framework imports here or in any adapter.
import type { CancelSignal } from '../lib/cancel-signal.js';

/** 'function': OpenAI's deprecated function-calling result message (`name` and `content`). */
export type Role = 'system' | 'developer' | 'user' | 'assistant' | 'tool' | 'function';

export interface TextPart {
  type: 'text';
  text: string;
}
export interface ImagePart {
  type: 'image_url';
  image_url: { url: string; detail?: string };
}
export type ContentPart = TextPart | ImagePart | { type: string; [k: string]: unknown };

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
  /**
   * Provider state the client must send back with the call, in Google's OpenAI-compatible form:
   * Gemini's thought signature, Claude's thinking blocks. Only their translations read or write it.
   */
  extra_content?: ToolCallExtraContent;
}

export interface ToolCallExtraContent {
  google?: { thought_signature: string };
  /** Claude's thinking blocks before this call, sent back to the model that wrote them (anthropic/thinking.ts). */
  anthropic?: { model: string; thinking: Array<Record<string, unknown>> };
}

export interface ChatMessage {
  role: Role;
  /** Absent on an assistant message that only calls tools (the API accepts that). */
  content?: string | ContentPart[] | null;
  name?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  [k: string]: unknown;
}

/** An OpenAI chat-completion request body with `model` set to the upstream model id. */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  max_completion_tokens?: number;
  stop?: string | string[];
  tools?: Array<{ type: 'function'; function: { name: string; description?: string; parameters?: unknown } }>;
  tool_choice?: unknown;
  response_format?: {
    type: 'text' | 'json_object' | 'json_schema';
    json_schema?: { name?: string; schema?: unknown; strict?: boolean };
  };
  stream_options?: { include_usage?: boolean };
  /** Any other OpenAI field, passed through where the provider supports it. */
  [k: string]: unknown;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /**
   * Prompt tokens read from the provider's prompt cache (`cached_tokens`) and written to it
   * (`cache_write_tokens`, OpenRouter's name: Anthropic's cache writes), both part of
   * prompt_tokens, when there were any.
   */
  prompt_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number; [k: string]: unknown };
  /** Reasoning (thinking) tokens (part of completion_tokens), when there were any. */
  completion_tokens_details?: { reasoning_tokens?: number; [k: string]: unknown };
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | null;

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{
    index: number;
    /** reasoning_content: the model's reasoning where its provider shows it (DeepSeek's field; Mistral's and Claude's thinking go there too). */
    message: {
      role: 'assistant';
      content: string | null;
      tool_calls?: ToolCall[];
      refusal?: string | null;
      reasoning_content?: string;
    };
    finish_reason: FinishReason;
    logprobs?: ChoiceLogprobs | null;
  }>;
  usage?: Usage;
  [k: string]: unknown;
}

/** OpenAI's log probabilities of a choice: one entry per token (a stream sends each chunk's tokens). */
export interface ChoiceLogprobs {
  content?: unknown[] | null;
  [k: string]: unknown;
}

export interface ChatChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: Array<{
    index: number;
    delta: {
      role?: 'assistant';
      content?: string | null;
      tool_calls?: Array<{
        index: number;
        id?: string;
        type?: 'function';
        function?: { name?: string; arguments?: string };
        extra_content?: ToolCallExtraContent;
      }>;
      refusal?: string | null;
      reasoning_content?: string;
    };
    finish_reason: FinishReason;
    logprobs?: ChoiceLogprobs | null;
  }>;
  /** Present on the final chunk when usage was asked for (OpenAI sends it with empty choices). */
  usage?: Usage | null;
  [k: string]: unknown;
}

export interface EmbeddingsRequest {
  model: string;
  input: string | string[];
  [k: string]: unknown;
}
export interface EmbeddingsResponse {
  object: 'list';
  /** Vectors as numbers, or as base64 of little-endian float32 when encoding_format is base64. */
  data: Array<{ object: 'embedding'; index: number; embedding: number[] | string }>;
  model: string;
  /** Absent when the provider reports none (Gemini never does); the core counts it then. */
  usage?: { prompt_tokens: number; total_tokens: number; completion_tokens?: number };
  /** Set by the core when `usage` is its count, not the provider's. */
  usage_estimated?: boolean;
}

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
}
