import type { ChatBody } from './chat-body-schema.js';

// The chat body's common shape, checked without zod. ChatBodySchema (chat-body-schema.ts) stays the
// definition: this accepts only bodies it accepts and returns what it returns (the same values,
// in the same message key order; only the order of top-level keys differs, which nothing reads),
// and answers undefined for everything else, which zod then checks and explains.
// Why: on a cold core, with requests a few milliseconds apart, zod's parse of a two-message body
// took about 0.13 ms of the 0.6 ms a streamed request spends before its upstream call.

/** Every top-level field of ChatBodySchema (a unit test keeps the two lists equal). */
export const CHAT_BODY_SCHEMA_KEYS: ReadonlySet<string> = new Set([
  'model',
  'messages',
  'stream',
  'temperature',
  'top_p',
  'max_tokens',
  'max_completion_tokens',
  'n',
  'stop',
  'tools',
  'response_format',
  'stream_options',
  'cache',
  'routing_hint',
  'complexity_hint',
  'requires_structured_output',
  'prompt_version_id',
]);

/**
 * How many levels of objects and arrays a chat body may nest, the body itself being the first.
 * Real bodies (JSON schemas in tools and response_format included) stay far below it; a deeper
 * one would overflow the stack when it is serialised for the upstream call.
 */
export const MAX_BODY_DEPTH = 64;

/**
 * Whether the object or array `v` (1 level) nests objects or arrays more than `levels` deep.
 * The recursion stops at `levels`, so it cannot itself overflow on a hostile body; scalars are
 * skipped without a call, as most values are.
 */
export function nestsDeeperThan(v: object, levels: number): boolean {
  if (levels <= 0) return true;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const item: unknown = v[i];
      if (typeof item === 'object' && item !== null && nestsDeeperThan(item, levels - 1)) return true;
    }
    return false;
  }
  const o = v as Record<string, unknown>;
  for (const key in o) {
    const item = o[key];
    if (typeof item === 'object' && item !== null && nestsDeeperThan(item, levels - 1)) return true;
  }
  return false;
}

/** Roles this path takes; a tool message needs its tool_call_id, which zod checks. */
const SIMPLE_ROLES: ReadonlySet<string> = new Set(['system', 'developer', 'user', 'assistant']);

/** `raw` (a parsed JSON object) as a ChatBody when it has the common shape; otherwise undefined. */
export function fastChatBody(raw: Record<string, unknown>): ChatBody | undefined {
  let hasMessages = false;
  for (const key in raw) {
    const v = raw[key];
    switch (key) {
      case 'model':
        if (typeof v !== 'string') return undefined;
        break;
      case 'messages':
        if (!simpleMessages(v)) return undefined;
        hasMessages = true;
        break;
      case 'stream':
      case 'cache':
        if (typeof v !== 'boolean') return undefined;
        break;
      case 'temperature':
        if (v !== null && !inRange(v, 0, 2)) return undefined;
        break;
      case 'top_p':
        if (v !== null && !inRange(v, 0, 1)) return undefined;
        break;
      case 'max_tokens':
      case 'max_completion_tokens':
        if (v !== null && !positiveInt(v, Number.MAX_SAFE_INTEGER)) return undefined;
        break;
      case 'n':
        if (v !== null && !positiveInt(v, 16)) return undefined;
        break;
      default:
        // Other schema fields are zod's to check; any other field passes through as it does there,
        // unless it nests too deep to be sent upstream (validate.ts refuses the body then). The
        // fields checked above are scalars or flat messages, so only these need the depth walk.
        if (CHAT_BODY_SCHEMA_KEYS.has(key) || key === '__proto__') return undefined;
        if (typeof v === 'object' && v !== null && nestsDeeperThan(v, MAX_BODY_DEPTH - 1)) return undefined;
    }
  }
  if (!hasMessages) return undefined;
  if (raw['model'] === undefined) raw['model'] = '';
  return raw as ChatBody;
}

/** Messages of exactly `{role, content}` or `{role, content, name}`, in that order, content a string. */
function simpleMessages(v: unknown): boolean {
  if (!Array.isArray(v) || v.length === 0) return false;
  for (const m of v as unknown[]) {
    if (typeof m !== 'object' || m === null || Array.isArray(m)) return false;
    const msg = m as Record<string, unknown>;
    let i = 0;
    for (const key in msg) {
      if (key !== (i === 0 ? 'role' : i === 1 ? 'content' : i === 2 ? 'name' : undefined)) return false;
      i++;
    }
    if (i < 2 || typeof msg['content'] !== 'string') return false;
    if (typeof msg['role'] !== 'string' || !SIMPLE_ROLES.has(msg['role'])) return false;
    if (i === 3 && typeof msg['name'] !== 'string') return false;
  }
  return true;
}

function inRange(v: unknown, min: number, max: number): boolean {
  return typeof v === 'number' && v >= min && v <= max;
}

function positiveInt(v: unknown, max: number): boolean {
  return typeof v === 'number' && Number.isSafeInteger(v) && v > 0 && v <= max;
}
