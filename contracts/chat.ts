// The OpenAI chat and embeddings wire format as the gateway speaks it: request bodies, answers
// and stream chunks. Shared by the server (its providers translate to and from it), the SDK and
// the CLI; nothing here imports anything of the project's.

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
