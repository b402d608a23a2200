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

export const publicProcedure = t.procedure.use(errorBoundary);

export const tenantProcedure = publicProcedure.use(async ({ ctx, next }) => {
  const principal = await ctx.authenticate();
  return next({ ctx: { principal, tenantId: principal.tenantId } });
});

export const adminProcedure = tenantProcedure.use(({ ctx, next }) => {
  if (!ctx.principal.admin) throw new GatewayError('permission_error', 'This operation needs an admin token');
  return next();
});

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
