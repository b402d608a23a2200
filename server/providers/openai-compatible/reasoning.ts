import type { ChatRequest } from '../types.js';
import { refuser, stopList } from '../util.js';

// OpenAI's reasoning models (o1, o3, o4-mini, the GPT-5 family but its -chat variants) refuse parts
// of a Chat Completions request that other models take: `max_tokens` (they take
// `max_completion_tokens`, which also bounds their hidden reasoning), sampling settings other than
// the defaults, `stop` and `logprobs`. Callers keep sending those (SDK defaults, code written for
// gpt-4o), and the router may pick such a model for a request that has them.

const REASONING_MODEL = /^(?:o\d|gpt-5)(?![\w.-]*-chat)/;

/** Whether an OpenAI model id names a reasoning model. */
export function isOpenAIReasoningModel(model: string): boolean {
  return REASONING_MODEL.test(model);
}

/** Sampling settings such a model takes only at their defaults: hints it cannot follow, so left out. */
const SAMPLING_HINTS = new Set(['temperature', 'top_p', 'presence_penalty', 'frequency_penalty', 'logit_bias']);
/** Sent under another name, or refused when set (below). */
const REPLACED = new Set(['max_tokens', 'stop', 'logprobs', 'top_logprobs']);

/**
 * `body` as a reasoning model takes it, in a copy. `stop` and `logprobs` are refused before anything
 * is sent: without them the caller would get another answer than asked for (one that runs past
 * where it should stop, or one without its log probabilities).
 */
export function forReasoningModel(body: ChatRequest, provider: string): ChatRequest {
  const refuse = refuser(provider);
  if (stopList(body.stop)) refuse(`stop: ${body.model} is a reasoning model and does not take stop sequences`);
  if (body['logprobs'] === true) refuse(`logprobs: ${body.model} is a reasoning model and does not return log probabilities`);
  // Key by key, not a spread: see upstreamBody in gateway/pipeline.ts.
  const out = {} as ChatRequest;
  for (const key in body) if (!SAMPLING_HINTS.has(key) && !REPLACED.has(key)) out[key] = body[key];
  const max = body.max_completion_tokens ?? body.max_tokens;
  if (typeof max === 'number') out.max_completion_tokens = max;
  return out;
}
