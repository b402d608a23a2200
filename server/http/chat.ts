import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { ClientClosedError } from '../gateway/attempts.js';
import type { DataPlane } from '../gateway/data-plane.js';
import { RateLimiter } from '../gateway/limits/rate-limiter.js';
import type { ChatCall } from '../gateway/types.js';
import { parseChatBody } from '../gateway/validate.js';
import { Cancellation } from '../lib/cancel-signal.js';
import { GatewayError } from '../lib/errors.js';
import type { Principal } from '../modules/tokens/authenticator.js';
import type { Services } from '../services.js';
import { reportError, sendError } from './errors.js';
import { gatewayHeaders, jsonWithGateway } from './gateway-meta.js';
import { readJsonBody } from './read-body.js';
import { reserveRequestId } from './request-id.js';
import { sseSink } from './sse-sink.js';

// POST /v1/chat/completions: the OpenAI wire format in and out. It is served on the plain node
// request listener, ahead of Express (see app.ts): the hot path pays for no router or middleware
// chain. Authenticate (cached), limit, read and validate the body, then hand the call to the core,
// which logs it.

export const CHAT_PATH = '/v1/chat/completions';

export function chatHandler(services: Services, dataPlane: DataPlane) {
  const limiter = new RateLimiter();
  const maxBody = services.config.GATEWAY_MAX_BODY_BYTES;

  /** Token rate limit: headers on every response of a limited token, 429 when exhausted. */
  const checkRate = (principal: Principal, res: ServerResponse): void => {
    if (!principal.rateLimitPerMinute) return;
    const rate = limiter.take(principal.tokenId, principal.rateLimitPerMinute);
    res.setHeader('x-ratelimit-limit', String(rate.limit));
    res.setHeader('x-ratelimit-remaining', String(rate.remaining));
    if (!rate.allowed) {
      res.setHeader('retry-after', String(rate.retryAfterSeconds));
      throw new GatewayError('rate_limit_error', `Rate limit of ${rate.limit} requests per minute reached for this token`);
    }
  };

  /** Token spend limit: 402 once the token has spent it (the call that crosses it completes). */
  const checkSpend = (principal: Principal): void => {
    const limit = principal.spendLimitUsd;
    if (limit === null || principal.spentUsd < limit) return;
    throw new GatewayError('spend_limit_error', `This token has spent $${principal.spentUsd.toFixed(4)} of its $${limit} spend limit`);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, requestId: string) => {
    const startedAt = performance.now();
    const principal = await services.auth.authenticate(req.headers.authorization);
    checkRate(principal, res);
    checkSpend(principal);
    const body = parseChatBody(await readJsonBody(req, maxBody));
    // The client going away aborts the upstream call.
    const clientGone = new Cancellation();
    res.on('close', () => {
      if (!res.writableFinished) clientGone.abort();
    });
    const call: ChatCall = {
      requestId,
      tenantId: principal.tenantId,
      tokenId: principal.tokenId,
      body,
      messages: body.messages as ChatCall['messages'],
      headerHints: {
        taskType: header(req, 'x-gateway-task-type'),
        complexity: header(req, 'x-gateway-complexity'),
        noCache: header(req, 'x-gateway-no-cache'),
      },
      signal: clientGone,
      startedAt,
      createdAt: new Date(),
      // Every cost row of the call counts against the token here at once: failed attempts that
      // cost something, the classifier's call, a stream that broke after its first byte.
      onCost: (usd) => services.auth.addSpend(principal, usd),
    };

    if (body.stream) {
      await dataPlane.pipeline.stream(call, sseSink(res, startedAt));
      return;
    }
    const { completion, meta } = await dataPlane.pipeline.complete(call);
    const payload = jsonWithGateway(completion, meta);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...gatewayHeaders(meta, performance.now() - startedAt) });
    res.end(payload);
  };

  return (req: IncomingMessage, res: ServerResponse): void => {
    // Its header leaves with the response head (gatewayHeaders) or the error (sendError).
    const requestId = reserveRequestId(res);
    handle(req, res, requestId).catch((err: unknown) => {
      if (err instanceof ClientClosedError) return;
      if (res.headersSent) {
        res.end();
        return;
      }
      if (err instanceof GatewayError) return sendError(res, err);
      reportError(services.logger, res, err);
    });
  };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}
