import { SPEND_LIMIT_PERIODS } from '../../db/schema/api-tokens.js';
import { MAX_ID_CHARS } from '../../lib/ids.js';
import { z } from 'zod';
import { rest } from '../../trpc/meta.js';
import { displayName } from '../../lib/display-name.js';

const SpendLimitPeriod = z
  .enum(SPEND_LIMIT_PERIODS)
  .describe('What spendLimitUsd counts: all_time (default), or monthly: the UTC calendar month, from 0 at its start');

export const ApiToken = z.object({
  id: z.string().describe('Token id (tok_...)'),
  name: z.string(),
  prefix: z.string().describe('First characters of the secret, for recognising it in listings'),
  enabled: z.boolean().describe('Disabled tokens are refused with 401 auth_error'),
  admin: z.boolean().describe('Admin tokens may manage tokens and workspace configuration'),
  userId: z
    .string()
    .nullable()
    .describe("The member the token belongs to (made by a signed-in member); null for the workspace's own tokens"),
  spendLimitUsd: z
    .number()
    .nullable()
    .describe(
      'Spend cap in USD for calls made with this token, over spendLimitPeriod; once reached, chat and embeddings calls get 402 spend_limit_error. null for none',
    ),
  spendLimitPeriod: SpendLimitPeriod,
  spentUsd: z.number().describe('USD spent by calls made with this token, all time (the sum of their cost rows)'),
  rateLimitPerMinute: z.number().int().nullable().describe('Requests per minute for this token; null for none'),
  createdAt: z.string().describe('ISO 8601 timestamp'),
  lastUsedAt: z
    .string()
    .nullable()
    .describe('ISO 8601 timestamp of the last authenticated call (updated every few seconds)'),
});

export const CreatedApiToken = ApiToken.extend({
  token: z.string().describe('The secret. Shown only in this response; store it now.'),
});

/** The column keeps 4 decimals (1/100 of a cent): a smaller limit would be stored as 0. */
const SpendLimit = z.number().min(0.0001).max(1e9).describe('USD, at least 0.0001');

export const TokenIdInput = z.object({ id: z.string().min(1).max(MAX_ID_CHARS).describe('Token id') }).strict();

export const CreateTokenInput = z
  .object({
    name: displayName(100),
    admin: z.boolean().default(false),
    spendLimitUsd: SpendLimit.nullish(),
    spendLimitPeriod: SpendLimitPeriod.optional(),
    rateLimitPerMinute: z.number().int().positive().max(1e7).nullish(),
  })
  .strict();

// Strict: `admin` (fixed at creation) or a misspelt field is a 400, never silently ignored.
export const UpdateTokenInput = TokenIdInput.extend({
  name: displayName(100).optional(),
  enabled: z.boolean().optional(),
  spendLimitUsd: SpendLimit.nullable().optional().describe('null removes the limit'),
  spendLimitPeriod: SpendLimitPeriod.optional(),
  rateLimitPerMinute: z.number().int().positive().max(1e7).nullable().optional().describe('null removes the limit'),
}).strict();

export const ListTokensInput = z
  .object({ userId: z.string().min(1).max(MAX_ID_CHARS).optional().describe("Only this member's tokens") })
  .strict()
  .optional();

export const TokenList = z.object({ items: z.array(ApiToken) });
export const Deleted = z.object({ id: z.string(), deleted: z.literal(true) });

const tag = 'API tokens';
export const tokenMeta = {
  list: rest('GET', '/v1/admin/tokens', tag, 'List API tokens', { admin: true }),
  create: rest('POST', '/v1/admin/tokens', tag, 'Create an API token (the response alone carries the secret)', {
    admin: true,
  }),
  update: rest('PATCH', '/v1/admin/tokens/{id}', tag, 'Rename, enable, disable or change limits of a token', {
    admin: true,
    errors: [409],
    description:
      'Whether a token is an admin token is fixed when it is created: `admin` is refused here (400). Disabling the last enabled admin token is a 409.',
  }),
  remove: rest('DELETE', '/v1/admin/tokens/{id}', tag, 'Delete a token; it is refused at once', {
    admin: true,
    errors: [409],
    description: 'Deleting the last enabled admin token is a 409.',
  }),
};
