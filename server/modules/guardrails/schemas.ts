import { z } from 'zod';
import { displayName } from '../../lib/display-name.js';
import { MAX_ID_CHARS } from '../../lib/ids.js';
import { MAX_PATTERN_CHARS } from '../../gateway/guardrails/patterns.js';
import { rest } from '../../trpc/meta.js';

const tag = 'Guardrails';

export const GuardrailAction = z
  .enum(['block', 'flag'])
  .describe('block: the call is refused with 400 guardrail_error; flag: the call goes on and the violation is logged');

export const GuardrailRule = z.object({
  id: z.string().describe('Rule id (grd_...)'),
  name: z.string(),
  group: z.string().describe("'Jailbreak Detection' for the built-in rules"),
  type: z.enum(['builtin', 'regex']).describe('builtin: one of the four jailbreak rules; regex: a custom rule'),
  pattern: z.string().describe('Regular expression matched case-insensitively against the text the model would read'),
  action: GuardrailAction,
  enabled: z.boolean(),
  engine: z
    .enum(['js', 're2'])
    .describe(
      "js: proved free of catastrophic backtracking, runs on V8's engine; re2: runs on a linear-time engine (RE2)",
    ),
  createdAt: z.string().describe('ISO 8601 timestamp'),
  updatedAt: z.string().describe('ISO 8601 timestamp'),
});

const Pattern = z
  .string()
  .min(1)
  .max(MAX_PATTERN_CHARS)
  .describe(
    `Regular expression (JavaScript syntax, matched case-insensitively; at most ${MAX_PATTERN_CHARS} characters). A pattern that does not compile, matches empty text, or can backtrack catastrophically and needs backreferences or lookaround is refused with 400.`,
  );

export const GuardrailIdInput = z.strictObject({ id: z.string().min(1).max(MAX_ID_CHARS) });

export const CreateGuardrailInput = z.strictObject({
  type: z.literal('regex').default('regex').describe('Custom rules are regex rules'),
  name: displayName(100),
  pattern: Pattern,
  action: GuardrailAction.default('block'),
  enabled: z.boolean().default(true),
  group: displayName(100).default('Custom'),
});

export const UpdateGuardrailInput = z.strictObject({
  ...GuardrailIdInput.shape,
  enabled: z.boolean().optional(),
  action: GuardrailAction.optional(),
  pattern: Pattern.optional(),
  name: displayName(100).optional(),
});

export const GuardrailList = z.object({ items: z.array(GuardrailRule) });
export const GuardrailDeleted = z.object({ id: z.string(), deleted: z.literal(true) });

export const GuardrailLogEntry = z.object({
  id: z.string(),
  ruleId: z.string(),
  ruleName: z.string(),
  action: GuardrailAction,
  snippet: z.string().describe('The matched text (at most 200 characters)'),
  requestId: z.string().describe('X-Gateway-Request-Id of the call'),
  endpoint: z.enum(['chat', 'embeddings']),
  createdAt: z.string().describe('ISO 8601 timestamp'),
});

export const ListGuardrailLogsInput = z
  .strictObject({
    limit: z.coerce.number().int().min(1).max(500).default(50).describe('Page size (1-500, default 50)'),
    cursor: z.string().max(300).optional().describe('nextCursor of the previous page'),
    ruleId: z.string().min(1).max(MAX_ID_CHARS).optional().describe('Only this rule'),
  })
  .optional();

export const GuardrailLogPage = z.object({
  items: z.array(GuardrailLogEntry),
  nextCursor: z.string().nullable().describe('Pass as cursor for the next page; null at the end'),
});

export const guardrailMeta = {
  list: rest('GET', '/v1/guardrails', tag, "List the workspace's guardrail rules", {
    description:
      'The first call seeds the four built-in jailbreak rules (group Jailbreak Detection, disabled, action block).',
  }),
  create: rest('POST', '/v1/guardrails', tag, 'Create a custom regex rule', {
    admin: true,
    errors: [409],
    description: 'A workspace holds at most 100 custom rules (409 past that).',
  }),
  update: rest('PUT', '/v1/guardrails/{id}', tag, 'Enable or disable a rule, change its action, edit its pattern', {
    admin: true,
  }),
  remove: rest('DELETE', '/v1/guardrails/{id}', tag, 'Delete a custom rule', {
    admin: true,
    errors: [409],
    description: 'Built-in rules cannot be deleted (409): disable them, or reset them.',
  }),
  reset: rest('POST', '/v1/guardrails/{id}/reset', tag, 'Reset a built-in rule to its shipped pattern and action', {
    admin: true,
    errors: [409],
    description: 'Restores the name, pattern and action (block); enabled is left as it is. Custom rules answer 409.',
  }),
  logs: rest('GET', '/v1/guardrails/logs', tag, 'Recent guardrail violations, newest first'),
};
