import { z } from 'zod';
import { TIERS, type Tier } from '../config.js';
import { GatewayError } from '../lib/errors.js';
import { t } from './init.js';
import { toTrpcError } from './errors.js';

// Named builders carry the auth level. The tenant always comes from the credential, never input.

/** GatewayErrors thrown by services keep their HTTP status on both transports. */
const errorBoundary = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof GatewayError) throw toTrpcError(result.error.cause);
  return result;
});

/**
 * PostgreSQL text cannot hold U+0000, so a NUL anywhere in the input would reach the database only
 * to be refused there. One walk over the raw input, before any schema runs, answers 400 naming the
 * field instead, for every procedure at once.
 */
const rejectNulCharacters = t.middleware(async ({ getRawInput, next }) => {
  const field = findNulCharacter(await getRawInput());
  if (field !== undefined) throw new GatewayError('invalid_request_error', `${field || 'input'}: must not contain NUL characters (\\u0000)`);
  return next();
});

/** The dotted path of the first string (or field name) holding U+0000, or undefined. Iterative: input depth is the client's choice. */
export function findNulCharacter(input: unknown): string | undefined {
  const pending: Array<[unknown, string]> = [[input, '']];
  for (let entry = pending.pop(); entry; entry = pending.pop()) {
    const [value, path] = entry;
    if (typeof value === 'string') {
      if (value.includes('\0')) return path;
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) pending.push([value[i], join(path, String(i))]);
    } else if (isPlainObject(value)) {
      for (const [key, child] of Object.entries(value)) {
        if (key.includes('\0')) return join(path, JSON.stringify(key).slice(1, -1));
        pending.push([child, join(path, key)]);
      }
    }
  }
  return undefined;
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

const authenticated = t.middleware(async ({ ctx, next }) => {
  const principal = await ctx.authenticate();
  return next({ ctx: { principal, tenantId: principal.tenantId } });
});

const base = t.procedure.use(errorBoundary);

export const publicProcedure = base.use(rejectNulCharacters);

// Authentication first, so an anonymous caller learns nothing about its input (401 before 400).
export const tenantProcedure = base.use(authenticated).use(rejectNulCharacters);

export const adminProcedure = base
  .use(authenticated)
  .use(({ ctx, next }) => {
    if (!ctx.principal.admin) throw new GatewayError('permission_error', 'This operation needs an admin token');
    return next();
  })
  .use(rejectNulCharacters);

/** The input of a procedure that takes none: an unknown query parameter or body field is a 400. */
export const noInput = z.object({}).strict().optional();

export function tierIncludes(current: Tier, required: Tier): boolean {
  return TIERS.indexOf(current) >= TIERS.indexOf(required);
}

/** 402 insufficient_tier with an upgrade payload when the workspace's tier is below `required`. */
export function requireTier(required: Tier) {
  return t.middleware(({ ctx, next }) => {
    const principal = (ctx as { principal?: { tier: Tier } }).principal;
    const current = principal?.tier ?? 'free';
    if (!tierIncludes(current, required)) {
      throw new GatewayError('insufficient_tier', `This feature needs the ${required} tier or above (current: ${current})`, {
        details: { upgrade: { requiredTier: required, currentTier: current, tiers: TIERS } },
      });
    }
    return next();
  });
}
