import { z } from 'zod';
import { TIERS, type Tier } from '../config.js';
import { GatewayError } from '../lib/errors.js';
import { findUnstorableText, unstorableTextMessage } from '../lib/storable-text.js';
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
 * Strings PostgreSQL cannot store (NUL, lone surrogates) would reach the database only to be
 * refused there. One walk over the raw input, before any schema runs, answers 400 naming the field
 * instead, for every procedure at once.
 */
const rejectUnstorableText = t.middleware(async ({ getRawInput, next }) => {
  const found = findUnstorableText(await getRawInput());
  if (found) throw new GatewayError('invalid_request_error', unstorableTextMessage(found));
  return next();
});

const authenticated = t.middleware(async ({ ctx, next }) => {
  const principal = await ctx.authenticate();
  return next({ ctx: { principal, tenantId: principal.tenantId } });
});

const base = t.procedure.use(errorBoundary);

export const publicProcedure = base.use(rejectUnstorableText);

// Authentication first, so an anonymous caller learns nothing about its input (401 before 400).
export const tenantProcedure = base.use(authenticated).use(rejectUnstorableText);

export const adminProcedure = base
  .use(authenticated)
  .use(({ ctx, next }) => {
    if (!ctx.principal.admin) throw new GatewayError('permission_error', 'This operation needs an admin token');
    return next();
  })
  .use(rejectUnstorableText);

/** The input of a procedure that takes none: an unknown query parameter or body field is a 400. */
export const noInput = z.object({}).strict().optional();

export function tierIncludes(current: Tier, required: Tier): boolean {
  return TIERS.indexOf(current) >= TIERS.indexOf(required);
}

/** 402 insufficient_tier with an upgrade payload: the tier a feature needs and the tiers there are. */
export function insufficientTier(required: Tier, current: Tier): GatewayError {
  return new GatewayError(
    'insufficient_tier',
    `This feature needs the ${required} tier or above (current: ${current})`,
    {
      details: {
        upgrade: {
          requiredTier: required,
          currentTier: current,
          tiers: TIERS,
          // Where a workspace buys the tier (multi mode; a single-mode gateway sets GATEWAY_TIER).
          checkout: { method: 'POST', path: '/v1/billing/checkout-session', body: { tier: required } },
        },
      },
    },
  );
}

/** 402 insufficient_tier with an upgrade payload when the workspace's tier is below `required`. */
export function requireTier(required: Tier) {
  return t.middleware(({ ctx, next }) => {
    const principal = (ctx as { principal?: { tier: Tier } }).principal;
    const current = principal?.tier ?? 'free';
    if (!tierIncludes(current, required)) throw insufficientTier(required, current);
    return next();
  });
}
