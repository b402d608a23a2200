import { z } from 'zod';
import { GatewayError } from '../lib/errors.js';
import { describeZodError } from '../lib/zod-errors.js';
import { COMPLEXITIES } from './types.js';
import { fastChatBody, MAX_BODY_DEPTH, nestsDeeperThan } from './chat-body-fast.js';

// The chat request body: SPEC.md's chat request table on top of the OpenAI body. Unknown fields
// are kept and passed through to providers that support them.

const TextPart = z.looseObject({ type: z.literal('text'), text: z.string() });
const ImagePart = z.looseObject({ type: z.literal('image_url'), image_url: z.looseObject({ url: z.string().min(1) }) });
const OtherPart = z.looseObject({ type: z.string().min(1) });
const ContentPart = z.union([TextPart, ImagePart, OtherPart]);

const ToolCall = z.looseObject({
  id: z.string(),
  type: z.literal('function'),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});

const Message = z.looseObject({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
  content: z.union([z.string(), z.array(ContentPart), z.null()]).optional(),
  name: z.string().optional(),
  // null or []: an answer sent back as it came (Mistral's answers carry `tool_calls: null`; the
  // OpenAI Python SDK's message objects dump it so; some clients keep an empty list), read as no
  // calls and not sent on (parseChatBody): OpenAI refuses an empty list.
  tool_calls: z.array(ToolCall).nullish(),
  tool_call_id: z.string().optional(),
});

const Tool = z.looseObject({
  type: z.literal('function'),
  function: z.looseObject({
    name: z.string().min(1),
    description: z.string().optional(),
    parameters: z.unknown().optional(),
  }),
});

export const ROUTING_HINTS = ['coding', 'creative', 'summarization', 'qa', 'general'] as const;

export const ChatBodySchema = z.looseObject({
  model: z.string().optional().default(''),
  messages: z.array(Message).min(1, 'messages must contain at least one message'),
  stream: z.boolean().optional(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
  n: z.number().int().positive().max(16).nullish(),
  stop: z.union([z.string(), z.array(z.string()).max(4)]).nullish(),
  tools: z.array(Tool).optional(),
  response_format: z.looseObject({ type: z.enum(['text', 'json_object', 'json_schema']) }).optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
  cache: z.boolean().optional(),
  routing_hint: z.enum(ROUTING_HINTS).optional(),
  complexity_hint: z.enum(COMPLEXITIES).optional(),
  requires_structured_output: z.boolean().optional(),
  // The only free client string stored in the request row: a control character (NUL above all,
  // which PostgreSQL text cannot hold) or a lone surrogate (no UTF-8 encoding) would make the log
  // batch fail.
  prompt_version_id: z
    .string()
    .min(1)
    .max(200)
    .refine((s) => !CONTROL_CHARS.test(s), 'must not contain control characters')
    .refine((s) => s.isWellFormed(), 'must be valid Unicode text (a lone surrogate such as \\ud800 is not a character)')
    .optional(),
});

export type ChatBody = z.infer<typeof ChatBodySchema>;

const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

/** Gateway-only fields, stripped before the body goes upstream. */
export const GATEWAY_FIELDS = [
  'cache',
  'routing_hint',
  'complexity_hint',
  'requires_structured_output',
  'prompt_version_id',
] as const;

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
