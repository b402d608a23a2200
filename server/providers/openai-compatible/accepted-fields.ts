import type { ChatMessage, ChatRequest } from '../types.js';
import { refuser } from '../util.js';

// Some OpenAI-format APIs refuse fields they do not take. Mistral answers 422 "Extra inputs are not
// permitted" for any field it does not define, at the top level and inside messages; Groq answers
// 400 to a few OpenAI fields it lacks. Clients send plenty of those (`max_completion_tokens` from
// current OpenAI SDKs, `store`, `user`, `seed`, message `name`s, assistant messages echoed back with
// `refusal` and `annotations`), and the router may pick such a provider for any request. For these
// providers a request keeps only the fields the API takes.

/** Which fields of a set an API takes: only the listed ones, or all but the listed ones. */
export type FieldSet = { only: ReadonlySet<string> } | { except: ReadonlySet<string> };

/** The request fields an OpenAI-format API takes. */
export interface AcceptedFields {
  /** Top-level fields taken as they are; any other is left out, as a hint the API lacks. */
  top: FieldSet;
  /** OpenAI field -> the API's name for it (sent under that name unless the caller set it too). */
  renamed: Readonly<Record<string, string>>;
  /** Message fields taken, by role (`*`: every role); any other is left out. */
  message: Readonly<Record<string, FieldSet>>;
  /** The most choices (`n`) it returns; asking for more is refused. */
  maxChoices?: number;
}

const takes = (set: FieldSet, key: string): boolean => ('only' in set ? set.only.has(key) : !set.except.has(key));

/** Mistral's chat completions request (its API reference). */
export const MISTRAL_FIELDS: AcceptedFields = {
  top: {
    only: new Set([
      'model', 'messages', 'temperature', 'top_p', 'max_tokens', 'stream', 'stop', 'random_seed', 'response_format', 'tools',
      'tool_choice', 'presence_penalty', 'frequency_penalty', 'n', 'prediction', 'parallel_tool_calls', 'prompt_mode', 'safe_prompt',
    ]),
  },
  renamed: { max_completion_tokens: 'max_tokens', seed: 'random_seed' },
  message: {
    system: { only: new Set(['role', 'content']) },
    user: { only: new Set(['role', 'content']) },
    assistant: { only: new Set(['role', 'content', 'tool_calls', 'prefix']) },
    tool: { only: new Set(['role', 'content', 'tool_call_id', 'name']) },
  },
};

/** Groq: every OpenAI field but the few its compatibility notes list as a 400. */
export const GROQ_FIELDS: AcceptedFields = {
  top: { except: new Set(['logprobs', 'top_logprobs', 'logit_bias']) },
  renamed: {},
  message: { '*': { except: new Set(['name']) } },
  maxChoices: 1,
};

/**
 * `body` with only the fields `accepted` allows, in a copy. What would change the answer is refused
 * before anything is sent: `logprobs: true` when the API cannot return them, `n` above its maximum.
 */
export function withAcceptedFields(body: ChatRequest, accepted: AcceptedFields, provider: string): ChatRequest {
  const refuse = refuser(provider);
  if (body['logprobs'] === true && !takes(accepted.top, 'logprobs')) refuse(`logprobs: ${provider} does not return log probabilities`);
  const n = body['n'];
  if (accepted.maxChoices !== undefined && typeof n === 'number' && n > accepted.maxChoices) {
    refuse(`n: ${provider} returns at most ${accepted.maxChoices} choice${accepted.maxChoices === 1 ? '' : 's'} per request`);
  }
  // Key by key, not a spread: see upstreamBody in gateway/pipeline.ts.
  const out = {} as ChatRequest;
  for (const key in body) {
    const value = body[key];
    if (value === undefined) continue;
    const name = accepted.renamed[key];
    if (name !== undefined) {
      if (body[name] == null) out[name] = value;
    } else if (takes(accepted.top, key)) {
      out[key] = value;
    }
  }
  out.messages = body.messages.map((m) => onlyAccepted(m, accepted));
  return out;
}

function onlyAccepted(m: ChatMessage, accepted: AcceptedFields): ChatMessage {
  const fields = accepted.message[m.role] ?? accepted.message['*'];
  if (!fields) return m;
  let extra = false;
  for (const key in m) if (!takes(fields, key)) extra = true;
  if (!extra) return m;
  const out = {} as ChatMessage;
  for (const key in m) if (takes(fields, key)) (out as Record<string, unknown>)[key] = (m as Record<string, unknown>)[key];
  return out;
}
