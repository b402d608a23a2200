import type { ChatRequest } from '../types.js';
import type { AcceptedFields } from './accepted-fields.js';

// Reasoning models behind OpenAI-format APIs refuse parts of a Chat Completions request that other
// models take, each provider its own set. Their rules are accepted-field sets, applied per model;
// each vendor's own rules sit in its file under vendors/, built from the pieces here.

/** Sampling settings a reasoning model takes only at their defaults: left out, as hints it cannot follow. */
export const SAMPLING = ['temperature', 'top_p', 'presence_penalty', 'frequency_penalty', 'logit_bias'];
export const PENALTIES = ['presence_penalty', 'frequency_penalty'];
export const LOGPROBS = ['logprobs', 'top_logprobs'];

const reasoningModel = (model: string) => `${model} is a reasoning model and`;
/** The rules of a reasoning model that refuses `fields` (and takes some under another name). */
export const refusing = (fields: string[], renamed?: Record<string, string>): AcceptedFields => ({
  top: { except: new Set(fields) },
  renamed,
  who: reasoningModel,
});

/**
 * `body` with `reasoning_effort` set to `sent`, or without it when `sent` is undefined; `body`
 * itself when that is what it has. The providers' effort rules below share it.
 */
export function withEffort(body: ChatRequest, sent: string | undefined): ChatRequest {
  if (sent === body['reasoning_effort']) return body;
  if (sent !== undefined) return Object.assign({}, body, { reasoning_effort: sent });
  const { reasoning_effort: _left, ...rest } = body;
  return rest as ChatRequest;
}
