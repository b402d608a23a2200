// Public types of the upstream simulator. Kept apart from index.ts so the internal modules can
// import them without an import cycle through the entry point.

/** A model's hidden quality on the prompts of one cell (see SimulatorOptions.cellQualities). */
export interface CellQuality {
  /** The model answering. */
  model: string;
  /** Text of the last user message that marks the cell; omitted = every prompt. */
  whenContains?: string;
  /** 1-5. */
  quality: number;
  /** From this time on (ms, the simulator's clock); omitted = always. */
  from?: number;
}

export type SimFormat = 'openai' | 'anthropic' | 'gemini';
export type SimEndpoint = 'chat' | 'stream' | 'models' | 'embeddings';

export interface SimulatorOptions {
  /** Default 0 (ephemeral). */
  port?: number;
  /** Default '127.0.0.1'. */
  host?: string;
  /** Seeds the PRNG behind fault `rate`s, so tests are deterministic. */
  seed?: number;
  /** Delay before response headers, default 0. */
  latencyMs?: number;
  /** Delay between stream content chunks, default 0. Wins over tokensPerSecond when both are set. */
  chunkDelayMs?: number;
  /** Alternative to chunkDelayMs: chunkDelayMs = 1000 / tokensPerSecond. */
  tokensPerSecond?: number;
  /** Natural completion length in tokens; max_tokens and friends can only shorten it. Default 24. */
  outputTokens?: number;
  models?: { openai?: string[]; anthropic?: string[]; gemini?: string[] };
  /** Hidden quality (1-5) per model: a grading request ("Score: N") about that model's reply gets this grade. */
  modelQualities?: Record<string, number>;
  /**
   * Hidden quality per model and routing cell (a cell is marked by text in the prompt), which may
   * change from a time on (`from`, on `now`'s clock): the last matching entry whose time has come
   * wins. An answer carries the quality it was given with ("[quality 4.40]") and a grading request
   * about it gets that quality, plus `gradeNoise`, rounded to 1-5.
   */
  cellQualities?: CellQuality[];
  /** Standard deviation of the judge's grades around the hidden quality (seeded by `seed`). Default 0. */
  gradeNoise?: number;
  /** The simulator's clock for `cellQualities[].from` (in process only; default Date.now). */
  now?: () => number;
  /**
   * Scripted embeddings: an input containing `whenContains` embeds to a vector whose cosine
   * similarity with the embedding of `anchor` is exactly `similarity` (first match wins), so a test
   * controls how alike two texts look. Other inputs embed to a pseudo-random unit vector of their text.
   */
  embeddingSimilarities?: Array<{ whenContains: string; anchor: string; similarity: number }>;
  /** Scripted replies: a request whose last message contains `whenContains` is answered with `reply`. */
  replies?: Array<{ whenContains: string; reply: string }>;
  faults?: FaultRule[];
}

export interface FaultRule {
  /** Match on wire format; omitted = any. */
  format?: SimFormat;
  /** Match on the requested model; omitted = any. */
  model?: string;
  /** Omitted = chat and stream (only stream for a rule whose sole purpose is cutStreamAfterChunks). */
  endpoint?: SimEndpoint;
  /** Probability 0..1 that a matching rule fires (default 1). */
  rate?: number;
  /** Fire at most this many times, then the rule is spent. */
  times?: number;
  /** Respond with this HTTP status and the provider's own error body. */
  status?: number;
  /** Adds a Retry-After header to a status response. */
  retryAfterSeconds?: number;
  /** Destroy the socket without any response. */
  resetConnection?: boolean;
  /**
   * Streaming: send at most N content-bearing chunks (text pieces, or tool-call parts: the frame
   * that opens a call with its id and name counts as one), then destroy the socket (never the
   * terminal event). 0 cuts before any content.
   */
  cutStreamAfterChunks?: number;
  /** Streaming: send the head and the opening frames at once, then wait this long before the first content (a model slow to start). */
  firstContentDelayMs?: number;
  /** Extra delay before headers for matching requests. */
  latencyMs?: number;
  /** Never respond (until the client aborts). */
  hang?: boolean;
  /**
   * Answer 200 with a broken body instead of the completion, as a misbehaving proxy or provider
   * might: `not-json` sends text that is not JSON (on a stream, an SSE data frame that is not
   * JSON), `no-choices` a JSON object with no answer in it (on a stream, one such chunk, then the
   * end), `empty-choices` one whose `choices` is `[]`, `no-message` one whose only choice has no
   * `message` (no `delta` on a stream). The same in every wire format.
   */
  malformedAnswer?: 'not-json' | 'no-choices' | 'empty-choices' | 'no-message';
  /**
   * Answer without any token usage, as some OpenAI-compatible servers and proxies do: no `usage`
   * (and no usage chunk in a stream), no Gemini `usageMetadata`, no Anthropic `usage`.
   */
  omitUsage?: boolean;
  /**
   * Report this usage, in the provider's own fields, instead of the counted one (the answer itself
   * is unchanged): how tests script prompt caching, long prompts and service tiers per request.
   */
  usage?: ScriptedUsage;
}

/**
 * Usage a rule makes the simulator report. Each wire format says it as its provider does: OpenAI
 * `prompt_tokens` (cached included), `prompt_tokens_details.cached_tokens` and a top-level
 * `service_tier` (on every chunk of a stream); Anthropic `input_tokens` (only what is neither read
 * from nor written to the cache), `cache_read_input_tokens`, `cache_creation_input_tokens` with its
 * `cache_creation.ephemeral_5m_input_tokens` / `ephemeral_1h_input_tokens` split, and
 * `usage.service_tier`; Gemini `promptTokenCount` (cached included) and `cachedContentTokenCount`.
 */
export interface ScriptedUsage {
  /** Every input token of the prompt, cache reads and writes included. Default: the counted prompt. */
  promptTokens?: number;
  /** Of them, read from the prompt cache. */
  cachedTokens?: number;
  /** Of them, written to the cache for 5 minutes (Anthropic only). */
  cacheWrite5mTokens?: number;
  /** Of them, written to the cache for 1 hour (Anthropic only). */
  cacheWrite1hTokens?: number;
  /** The service tier reported (OpenAI: `default`, `flex`, `priority`; Anthropic: `standard`, `priority`). */
  serviceTier?: string;
}

export interface RecordedRequest {
  format: SimFormat;
  endpoint: string;
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  at: number;
}

export interface Simulator {
  /** http://HOST:PORT */
  url: string;
  baseUrls: { openai: string; anthropic: string; gemini: string };
  /** Bounded ring of the most recent provider requests (oldest first). */
  requests: RecordedRequest[];
  setFaults(rules: FaultRule[]): void;
  clearFaults(): void;
  configure(patch: Partial<Omit<SimulatorOptions, 'port' | 'host'>>): void;
  resetRequests(): void;
  close(): Promise<void>;
}
