import type { IncomingMessage, ServerResponse } from 'node:http';
import { GatewayError } from '../lib/errors.js';
import type { Principal } from '../modules/tokens/authenticator.js';
import type { Services } from '../services.js';
import { clientAddress } from './client-address.js';

// What every data-plane call (chat completions, embeddings) passes before its body is read: the
// client address's rate limit (GATEWAY_IP_RATE_LIMIT_PER_MINUTE, before authentication, so a flood
// of bad tokens is refused cheaply too), the token (cached), its spend limit and its rate limit. The services' one rate limiter counts all of
// a token's calls whatever the endpoint (and, with REDIS_URL, whatever the node).

export type CallGate = (req: IncomingMessage, res: ServerResponse) => Promise<Principal>;

/**
 * The X-RateLimit headers of the limit nearest to refusing the call: with both an address and a
 * token limit, the one with fewer requests left (a client slows down by what binds first).
 */
function advertise(res: ServerResponse, rate: { limit: number; remaining: number }): void {
  const shown = res.getHeader('x-ratelimit-remaining');
  if (shown !== undefined && Number(shown) <= rate.remaining) return;
  res.setHeader('x-ratelimit-limit', String(rate.limit));
  res.setHeader('x-ratelimit-remaining', String(rate.remaining));
}

export function callGate(services: Services): CallGate {
  const limiter = services.rateLimits;

  /** Token rate limit: headers on every response of a limited token, 429 when exhausted. */
  const checkRate = (principal: Principal, res: ServerResponse): void => {
    if (!principal.rateLimitPerMinute) return;
    const rate = limiter.take(principal.tokenId, principal.rateLimitPerMinute);
    advertise(res, rate);
    if (!rate.allowed) {
      res.setHeader('retry-after', String(rate.retryAfterSeconds));
      throw new GatewayError(
        'rate_limit_error',
        `Rate limit of ${rate.limit} requests per minute reached for this token`,
      );
    }
  };

  /** Token spend limit: 402 once the token has spent it (the call that crosses it completes). */
  const checkSpend = (principal: Principal): void => {
    const limit = principal.spendLimitUsd;
    if (limit === null) return;
    const spent = services.auth.spentOf(principal);
    if (spent < limit) return;
    throw new GatewayError(
      'spend_limit_error',
      principal.spendLimitPeriod === 'monthly'
        ? `This token has spent $${spent.toFixed(4)} of its $${limit} monthly spend limit this month (it starts again on the 1st, UTC)`
        : `This token has spent $${spent.toFixed(4)} of its $${limit} spend limit`,
    );
  };

  const ipLimit = services.config.GATEWAY_IP_RATE_LIMIT_PER_MINUTE;
  const hops = services.config.GATEWAY_TRUSTED_PROXY_HOPS;
  /** Client address rate limit: counted in the same limiter (shared through Redis with REDIS_URL), keyed ip:<address>. */
  const checkAddress = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const key = `ip:${clientAddress(req, hops)}`;
    const ready = limiter.ready?.(key);
    if (ready) await ready;
    const rate = limiter.take(key, ipLimit);
    advertise(res, rate);
    if (!rate.allowed) {
      res.setHeader('retry-after', String(rate.retryAfterSeconds));
      throw new GatewayError(
        'rate_limit_error',
        `Rate limit of ${rate.limit} requests per minute reached for this client address`,
      );
    }
  };

  return async (req, res) => {
    if (ipLimit > 0) await checkAddress(req, res);
    const principal = await services.signIn.requestAuth.authenticate(req);
    // Spend first: a call refused for its spend limit must not use up one of the token's
    // rate-limit slots (nor wait for the shared rate store).
    checkSpend(principal);
    services.budgets.gate.check(principal.tenantId);
    if (principal.tier === 'free') {
      const quotaReady = services.quota.ready(principal.tenantId);
      if (quotaReady) await quotaReady;
    }
    if (principal.rateLimitPerMinute) {
      const ready = limiter.ready?.(principal.tokenId);
      if (ready) await ready;
    }
    checkRate(principal, res);
    // Last: a call another limit refused does not use up the month's quota.
    if (principal.tier === 'free') services.quota.take(principal.tenantId);
    return principal;
  };
}
