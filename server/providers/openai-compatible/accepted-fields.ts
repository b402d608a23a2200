import type { ChatMessage, ChatRequest } from '../types.js';
import { refuser } from '../util.js';

// Some OpenAI-format APIs validate strictly: Mistral answers 422 "Extra inputs are not permitted"
// for any field it does not define, at the top level and inside messages. Clients send plenty of
// those (`max_completion_tokens` from current OpenAI SDKs, `store`, `user`, `seed`, and assistant
// messages echoed back with `refusal` and `annotations`), and the router may pick such a provider
// for any request. For these providers a request keeps only the fields the API takes.

/** The request fields an OpenAI-format API takes. */
export interface AcceptedFields {
  /** Top-level fields taken as they are; any other is left out, as a hint the API lacks. */
  top: ReadonlySet<string>;
  /** OpenAI field -> the API's name for it (sent under that name unless the caller set it too). */
  renamed: Readonly<Record<string, string>>;
  /** Message fields taken, by role; any other is left out. */
  message: Readonly<Record<string, ReadonlySet<string>>>;
  /** Roles the API knows by another name. */
  roles: Readonly<Record<string, string>>;
}

/** Mistral's chat completions request (its API reference). */
export const MISTRAL_FIELDS: AcceptedFields = {
  top: new Set([
    'model', 'messages', 'temperature', 'top_p', 'max_tokens', 'stream', 'stop', 'random_seed', 'response_format', 'tools',
    'tool_choice', 'presence_penalty', 'frequency_penalty', 'n', 'prediction', 'parallel_tool_calls', 'prompt_mode', 'safe_prompt',
  ]),
  renamed: { max_completion_tokens: 'max_tokens', seed: 'random_seed' },
  message: {
    system: new Set(['role', 'content']),
    user: new Set(['role', 'content']),
    assistant: new Set(['role', 'content', 'tool_calls', 'prefix']),
    tool: new Set(['role', 'content', 'tool_call_id', 'name']),
  },
  // OpenAI's name for system instructions to its reasoning models.
  roles: { developer: 'system' },
};

/**
 * `body` with only the fields `accepted` lists, in a copy. `logprobs: true` is refused when the API
 * does not take it: the answer would lack what was asked for.
 */
export function withAcceptedFields(body: ChatRequest, accepted: AcceptedFields, provider: string): ChatRequest {
  if (body['logprobs'] === true && !accepted.top.has('logprobs')) refuser(provider)(`logprobs: ${provider} does not return log probabilities`);
  // Key by key, not a spread: see upstreamBody in gateway/pipeline.ts.
  const out = {} as ChatRequest;
  for (const key in body) {
    const value = body[key];
    if (value === undefined) continue;
    if (accepted.top.has(key)) out[key] = value;
    else {
      const name = accepted.renamed[key];
      if (name !== undefined && body[name] == null) out[name] = value;
    }
  }
  out.messages = body.messages.map((m) => onlyAccepted(m, accepted));
  return out;
}

function onlyAccepted(m: ChatMessage, accepted: AcceptedFields): ChatMessage {
  const role = accepted.roles[m.role] ?? m.role;
  const fields = accepted.message[role];
  if (!fields) return m;
  let changed = role !== m.role;
  for (const key in m) if (!fields.has(key)) changed = true;
  if (!changed) return m;
  const out = { role } as ChatMessage;
  for (const key in m) if (key !== 'role' && fields.has(key)) (out as Record<string, unknown>)[key] = (m as Record<string, unknown>)[key];
  return out;
}
