import type { ChatMessage } from '../types.js';

/**
 * The messages as an OpenAI-format provider takes them: tool calls without `extra_content`, the
 * Gemini thought signature the gateway adds to Gemini's tool calls. A routed conversation can have
 * had an earlier turn answered by Gemini; other providers do not know the field, and strict ones
 * refuse the request over it. The array is copied only when some tool call carries the field.
 */
export function withoutExtraContent(messages: ChatMessage[]): ChatMessage[] {
  let out: ChatMessage[] | undefined;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (!m.tool_calls?.some((t) => t.extra_content !== undefined)) continue;
    out ??= messages.slice();
    out[i] = { ...m, tool_calls: m.tool_calls.map(({ extra_content: _dropped, ...call }) => call) };
  }
  return out ?? messages;
}
