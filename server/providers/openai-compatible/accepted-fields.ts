import type { ChatMessage, ChatRequest } from '../types.js';
import { legacyFunctionField, refuser, stopList } from '../util.js';

// Some OpenAI-format APIs and models refuse fields they do not take. Mistral answers 422 "Extra
// inputs are not permitted" for any field it does not define, at the top level and inside
// messages; Groq answers 400 to a few OpenAI fields it lacks; reasoning models refuse sampling
// settings, `max_tokens` or `stop` (reasoning-rules.ts). Clients send plenty of those
// (`max_completion_tokens` from current OpenAI SDKs, `store`, `user`, `seed`, message `name`s,
// assistant messages echoed back with `refusal` and `annotations`), and the router may pick such a
// target for any request. So a request keeps only the fields its target takes: what only renames
// or hints is adapted, and what would change the answer is refused before anything is sent.

/** Which fields of a set an API takes: only the listed ones, or all but the listed ones. */
export type FieldSet = { only: ReadonlySet<string> } | { except: ReadonlySet<string> };

/** The request fields an OpenAI-format API or model takes. */
export interface AcceptedFields {
  /**
   * Top-level fields taken as they are. Any other is left out, as a hint the target lacks, except
   * those that would change the answer, which are refused when set: a non-empty `stop` (the answer
   * would run past where the caller meant it to stop) and `logprobs: true` (it would lack them).
   */
  top: FieldSet;
  /** OpenAI field -> the target's name for it (sent under that name unless the caller set it too). */
  renamed?: Readonly<Record<string, string>>;
  /** Message fields taken, by role (`*`: every role); any other is left out. Unset: messages as they are. */
  message?: Readonly<Record<string, FieldSet>>;
  /** The most choices (`n`) it returns; asking for more is refused. */
  maxChoices?: number;
  /** How a refusal names what refuses, given the model id; the provider when unset. */
  who?: (model: string) => string;
  /** The target's form of a tool-call id, for ids it would refuse (the same id always maps alike). */
  toolCallId?: (id: string) => string;
}

/** The fields a target takes for a model id, or undefined when the model takes requests as they are. */
export type AcceptedFieldsFor = (model: string) => AcceptedFields | undefined;

// Each vendor's own sets sit in its file under vendors/ (Mistral's, Groq's, the reasoning models').

const takes = (set: FieldSet, key: string): boolean => ('only' in set ? set.only.has(key) : !set.except.has(key));

/** `body` with only the fields `accepted` allows, in a copy; refused (a 'request' ProviderError) when it cannot be. */
export function withAcceptedFields(body: ChatRequest, accepted: AcceptedFields, provider: string): ChatRequest {
  const refuse = refuser(provider);
  const who = accepted.who ? accepted.who(body.model) : provider;
  if (stopList(body.stop) && !takes(accepted.top, 'stop')) refuse(`stop: ${who} does not take stop sequences`);
  if (body['logprobs'] === true && !takes(accepted.top, 'logprobs'))
    refuse(`logprobs: ${who} does not return log probabilities`);
  // OpenAI's deprecated function calling: left out, the model would answer in text instead of calling.
  const legacy = legacyFunctionField(body);
  if (legacy && !takes(accepted.top, legacy))
    refuse(
      `${legacy}: ${who} does not take OpenAI's deprecated function calling; send ${legacy === 'functions' ? 'tools' : 'tool_choice'} instead`,
    );
  const n = body['n'];
  if (accepted.maxChoices !== undefined && typeof n === 'number' && n > accepted.maxChoices) {
    refuse(
      `n: ${who} returns at most ${accepted.maxChoices} choice${accepted.maxChoices === 1 ? '' : 's'} per request`,
    );
  }
  // Key by key, not a spread: see upstreamBody in gateway/pipeline.ts.
  const out = {} as ChatRequest;
  for (const key in body) {
    const value = body[key];
    if (value === undefined) continue;
    const name = accepted.renamed?.[key];
    if (name !== undefined) {
      if (body[name] == null) out[name] = value;
    } else if (takes(accepted.top, key)) {
      out[key] = value;
    }
  }
  const message = accepted.message;
  if (message) {
    out.messages = body.messages.map((m, i) => {
      const fields = message[m.role] ?? message['*'];
      const kept = fields
        ? onlyAccepted(m, fields)
        : refuse(`messages.${i}.role: ${who} does not take '${m.role}' messages`);
      return accepted.toolCallId ? withToolCallIds(kept, accepted.toolCallId) : kept;
    });
  }
  return out;
}

/** `m` with its tool-call ids (an assistant's calls, a tool result's) in the target's form; `m` itself when they are already. */
function withToolCallIds(m: ChatMessage, form: (id: string) => string): ChatMessage {
  if (m.role === 'tool' && typeof m.tool_call_id === 'string') {
    const id = form(m.tool_call_id);
    return id === m.tool_call_id ? m : { ...m, tool_call_id: id };
  }
  const calls = m.tool_calls;
  if (m.role !== 'assistant' || !calls?.length || calls.every((c) => form(c.id) === c.id)) return m;
  return { ...m, tool_calls: calls.map((c) => ({ ...c, id: form(c.id) })) };
}

/**
 * `m` with only the fields the target takes. An optional field sent as null (the Python SDK's
 * dumps: `function_call: null`) is absent in OpenAI's format, and is left out too. An assistant
 * turn that holds only a refusal (`content: null, refusal: "..."`, OpenAI's shape for a refused
 * answer) keeps it as its content: without it the turn would be empty, which strict APIs refuse.
 */
function onlyAccepted(m: ChatMessage, fields: FieldSet): ChatMessage {
  const source = m as Record<string, unknown>;
  let extra = false;
  for (const key in m) if (!takes(fields, key) || (source[key] === null && key !== 'content')) extra = true;
  if (!extra) return m;
  const out = {} as Record<string, unknown>;
  for (const key in m) if (takes(fields, key) && (source[key] !== null || key === 'content')) out[key] = source[key];
  const refusal = source['refusal'];
  if (
    m.role === 'assistant' &&
    !takes(fields, 'refusal') &&
    typeof refusal === 'string' &&
    (m.content == null || m.content === '') &&
    !m.tool_calls?.length
  ) {
    out['content'] = refusal;
  }
  return out as ChatMessage;
}
