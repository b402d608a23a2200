import type { ChatChunk, ChatCompletion, ChatMessage, ChatRequest } from '../contracts/chat.js';
import type { GatewayMeta } from '../contracts/gateway-meta.js';
import type { Complexity, RoutingHint } from '../contracts/routing.js';

// The chat endpoint's types as the SDK shows them: the OpenAI body and answers plus the gateway's
// own fields (SPEC.md chat request and chat response).

/** `_gateway` on every answer (the last chunk of a stream): request id, who served, latency, cost, routing. */
export type { GatewayMeta };

/**
 * An interface's named members without its index signature. `Omit` over a type with
 * `[k: string]: unknown` keeps only the index signature (its keys are every string), which would
 * type `messages`, `temperature`, `tools`, ... as unknown.
 */
export type NamedMembers<T> = { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] };

/**
 * A message of the request. As with OpenAI, an assistant message may leave `content` out (one
 * that only carries `tool_calls`); every other role needs it.
 */
export type GatewayChatMessage =
  | (Omit<NamedMembers<ChatMessage>, 'content'> & {
      role: Exclude<ChatMessage['role'], 'assistant'>;
      content: Exclude<ChatMessage['content'], undefined>;
      [k: string]: unknown;
    })
  | (Omit<NamedMembers<ChatMessage>, 'content'> & {
      role: 'assistant';
      content?: ChatMessage['content'];
      [k: string]: unknown;
    });

/** The OpenAI chat-completion body plus the gateway's fields. An empty or missing `model` lets the gateway route. */
export interface GatewayChatRequest extends Omit<NamedMembers<ChatRequest>, 'model' | 'messages'> {
  messages: GatewayChatMessage[];
  /** `provider/model`, a bare model id, or '' (or absent) to let the gateway pick. */
  model?: string;
  /** false keeps this call out of the exact-match cache. */
  cache?: boolean;
  /** Pre-labels the task type and skips the classifier. */
  routing_hint?: RoutingHint;
  complexity_hint?: Complexity;
  /** Forces (true) or waives (false) structured-output-reliable routing. */
  requires_structured_output?: boolean;
  prompt_version_id?: string;
  /** Any other OpenAI field (`seed`, `n`, `logprobs`, ...), passed through where the provider supports it. */
  [k: string]: unknown;
}

export type GatewayChatCompletion = ChatCompletion & { _gateway: GatewayMeta };

/** A stream chunk; only the last one before [DONE] carries `_gateway` (and usage, when asked for). */
export type GatewayChatChunk = ChatChunk & { _gateway?: GatewayMeta };
