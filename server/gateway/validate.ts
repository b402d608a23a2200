import { GatewayError } from '../lib/errors.js';
import { describeZodError } from '../lib/zod-errors.js';
import { fastChatBody, MAX_BODY_DEPTH, nestsDeeperThan } from './chat-body-fast.js';
import { ChatBodySchema, type ChatBody } from './chat-body-schema.js';

// Parsing the chat request body (the schema is in chat-body-schema.ts, re-exported here for the
// HTTP layer and the OpenAPI document).

export { ChatBodySchema, GATEWAY_FIELDS, ROUTING_HINTS, type ChatBody } from './chat-body-schema.js';

export function parseChatBody(raw: unknown): ChatBody {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new GatewayError('invalid_request_error', 'Request body must be a JSON object');
  }
  const common = fastChatBody(raw as Record<string, unknown>);
  if (common) return common;
  refuseDeepNesting(raw as Record<string, unknown>);
  const parsed = ChatBodySchema.safeParse(raw);
  if (!parsed.success) throw new GatewayError('invalid_request_error', describeZodError(parsed.error));
  for (const [i, m] of parsed.data.messages.entries()) {
    // A function result (OpenAI's deprecated function calling) may be null, as an assistant's content may.
    if (m.role !== 'assistant' && m.role !== 'function' && (m.content === undefined || m.content === null)) {
      throw new GatewayError('invalid_request_error', `messages.${i}.content: required for role ${m.role}`);
    }
    if (m.role === 'tool' && !m.tool_call_id)
      throw new GatewayError('invalid_request_error', `messages.${i}.tool_call_id: required for role tool`);
    if (m.role === 'function' && !m.name)
      throw new GatewayError('invalid_request_error', `messages.${i}.name: required for role function`);
    if (m.tool_calls === null || m.tool_calls?.length === 0) delete m.tool_calls;
  }
  return parsed.data;
}

/**
 * Refuses a body nested deeper than MAX_BODY_DEPTH, naming the top-level field. Such a body
 * cannot be serialised for the upstream call (the stack overflows), which is the request's fault,
 * not the provider's. Only bodies the fast path did not take are walked here.
 */
function refuseDeepNesting(raw: Record<string, unknown>): void {
  for (const key in raw) {
    const v = raw[key];
    if (typeof v === 'object' && v !== null && nestsDeeperThan(v, MAX_BODY_DEPTH - 1)) {
      throw new GatewayError(
        'invalid_request_error',
        `${key}: nested more than ${MAX_BODY_DEPTH} levels deep (objects and arrays, the body included)`,
      );
    }
  }
}

export const TASK_TYPE_HEADER = 'x-gateway-task-type';
export const COMPLEXITY_HEADER = 'x-gateway-complexity';

/**
 * A pre-label header's value, checked against the list its body field allows (routing_hint,
 * complexity_hint): the headers have the same effect as those fields, so a value the body would
 * refuse (`vision`, a typo) is refused here too with 400, pinned model or not, rather than quietly
 * ignored. Case and surrounding blanks are not significant in a header; an empty one counts as absent.
 */
export function parseHintHeader<T extends string>(
  value: string | undefined,
  allowed: readonly T[],
  header: string,
  field: string,
): T | undefined {
  if (value === undefined) return undefined;
  const v = value.trim().toLowerCase();
  if (v === '') return undefined;
  if ((allowed as readonly string[]).includes(v)) return v as T;
  throw new GatewayError(
    'invalid_request_error',
    `${header}: '${value.slice(0, 50)}' is not one of ${allowed.join(', ')} (the values of ${field})`,
  );
}
