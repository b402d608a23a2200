import type { ChatMessage } from '../types.js';

/**
 * The messages as an OpenAI-format provider takes them, copied only when something changes:
 * - tool calls lose `extra_content`, the Gemini thought signature the gateway adds to Gemini's tool
 *   calls. A routed conversation can have had an earlier turn answered by Gemini; other providers
 *   do not know the field, and strict ones refuse the request over it.
 * - `developer` messages, OpenAI's name for system instructions since its reasoning models, go as
 *   `system` to a provider that does not know the role (`keepDeveloper` false). OpenAI treats the
 *   two alike; other servers may refuse the role (Mistral does) or template it away.
 */
export function forOpenAIFormat(messages: ChatMessage[], keepDeveloper: boolean): ChatMessage[] {
  let out: ChatMessage[] | undefined;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    const renamed = !keepDeveloper && m.role === 'developer';
    const signed = m.tool_calls?.some((t) => t.extra_content !== undefined) === true;
    if (!renamed && !signed) continue;
    out ??= messages.slice();
    const copy: ChatMessage = Object.assign({}, m);
    if (renamed) copy.role = 'system';
    if (signed) copy.tool_calls = m.tool_calls!.map(({ extra_content: _dropped, ...call }) => call);
    out[i] = copy;
  }
  return out ?? messages;
}
