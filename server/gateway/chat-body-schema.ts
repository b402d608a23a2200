import { z } from 'zod';
import { COMPLEXITIES } from './labels.js';
import { ROUTING_HINTS } from '../../contracts/routing.js';

// The chat request body: SPEC.md's chat request table on top of the OpenAI body. Unknown fields
// are kept and passed through to providers that support them. Parsing lives in validate.ts; the
// schema sits here, apart, so the zod-free fast path (chat-body-fast.ts) can name its type
// without importing the parser that calls it.

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

/** The task types a client may pre-label (contracts/routing.ts). */
export { ROUTING_HINTS };

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
