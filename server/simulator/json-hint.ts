// JSON asked for in words. Providers without a JSON mode that works together with tools (Anthropic,
// and Gemini, which refuses a JSON mime type with function calling) are sent a system instruction
// instead: "... reply with a single valid JSON object[ matching this JSON schema: <schema>], and
// nothing else ...". A model follows it in its final text answer, so the simulator does too.
import type { GenRequest } from './text.js';

const ASK = 'reply with a single valid JSON object';
const SCHEMA_LEAD = ' matching this JSON schema: ';

/** The JSON the instruction asks for (with its schema when it gives one), or undefined without one. */
export function jsonFromHint(system: string): GenRequest['json'] {
  const at = system.indexOf(ASK);
  if (at < 0) return undefined;
  const rest = system.slice(at + ASK.length);
  if (!rest.startsWith(SCHEMA_LEAD)) return {};
  const schema = leadingObject(rest.slice(SCHEMA_LEAD.length));
  return schema !== undefined ? { schema } : {};
}

/**
 * The JSON object at the start of `s`, which goes on with other text. The end is found by
 * counting braces outside strings, since the text after it may hold braces or commas of its own.
 */
function leadingObject(s: string): unknown {
  if (!s.startsWith('{')) return undefined;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
    } else if (c === '{') {
      depth++;
    } else if (c === '}' && --depth === 0) {
      try {
        return JSON.parse(s.slice(0, i + 1));
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}
