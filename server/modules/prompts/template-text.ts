import { GatewayError } from '../../lib/errors.js';
import { parseChatBody } from '../../gateway/validate.js';

// A prompt version's messages: chat messages whose text holds {{variables}}.

const VARIABLE = /\{\{\s*([A-Za-z_][A-Za-z0-9_.-]{0,63})\s*\}\}/g;

/** Checks the messages as a chat call would (400 naming the message), and lists their variables in order. */
export function checkMessages(messages: unknown[]): string[] {
  try {
    parseChatBody({ model: '', messages });
  } catch (err) {
    throw new GatewayError('invalid_request_error', (err as Error).message);
  }
  const names = new Set<string>();
  for (const text of texts(messages)) for (const m of text.matchAll(VARIABLE)) names.add(m[1]!);
  return [...names];
}

function texts(messages: unknown[]): string[] {
  const out: string[] = [];
  for (const m of messages as Array<{ content?: unknown }>) {
    if (typeof m.content === 'string') out.push(m.content);
    else if (Array.isArray(m.content))
      for (const p of m.content as Array<{ type?: string; text?: unknown }>)
        if (p.type === 'text' && typeof p.text === 'string') out.push(p.text);
  }
  return out;
}

/** The messages with {{name}} replaced by the given values; variables without a value stay as written. */
export function render(messages: unknown[], values: Record<string, string> | undefined): unknown[] {
  if (!values || Object.keys(values).length === 0) return messages;
  const fill = (text: string) =>
    text.replace(VARIABLE, (whole, name: string) => (Object.hasOwn(values, name) ? values[name]! : whole));
  return (messages as Array<Record<string, unknown>>).map((m) => {
    if (typeof m.content === 'string') return { ...m, content: fill(m.content) };
    if (Array.isArray(m.content))
      return {
        ...m,
        content: (m.content as Array<Record<string, unknown>>).map((p) =>
          p.type === 'text' && typeof p.text === 'string' ? { ...p, text: fill(p.text) } : p,
        ),
      };
    return m;
  });
}
