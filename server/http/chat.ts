import { performance } from 'node:perf_hooks';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { ClientClosedError } from '../gateway/attempts.js';
import type { DataPlane } from '../gateway/data-plane.js';
import { RateLimiter } from '../gateway/limits/rate-limiter.js';
import type { ChatCall } from '../gateway/types.js';
import { parseChatBody } from '../gateway/validate.js';
import { GatewayError } from '../lib/errors.js';
import type { Principal } from '../modules/tokens/authenticator.js';
import type { Services } from '../services.js';
import { reportError, sendError } from './errors.js';
import { gatewayHeaders, gatewayMeta } from './gateway-meta.js';
import { requestIdOf } from './request-id.js';
import { sseSink } from './sse-sink.js';

// POST /v1/chat/completions: the OpenAI wire format in and out. Authenticate (cached), limit,
// validate, then hand the call to the core; the core logs it.

type Authed = Request & { principal?: Principal };

export function mountChat(app: Express, services: Services, dataPlane: DataPlane): void {
  const limiter = new RateLimiter();

  const authenticate = (req: Authed, res: Response, next: NextFunction) => {
    services.auth.authenticate(req.headers.authorization).then(
      (principal) => {
        if (principal.rateLimitPerMinute) {
          const rate = limiter.take(principal.tokenId, principal.rateLimitPerMinute);
          res.setHeader('x-ratelimit-limit', String(rate.limit));
          res.setHeader('x-ratelimit-remaining', String(rate.remaining));
          if (!rate.allowed) {
            res.setHeader('retry-after', String(rate.retryAfterSeconds));
            return sendError(res, new GatewayError('rate_limit_error', `Rate limit of ${rate.limit} requests per minute reached for this token`));
          }
        }
        req.principal = principal;
        next();
      },
      (err: unknown) => reportError(services.logger, res, err),
    );
  };

  const handle = async (req: Authed, res: Response) => {
    const startedAt = performance.now();
    const principal = req.principal!;
    const body = parseChatBody(req.body);
    const abort = new AbortController();
    // The client going away aborts the upstream call.
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    const call: ChatCall = {
      requestId: requestIdOf(res),
      tenantId: principal.tenantId,
      tokenId: principal.tokenId,
      body,
      messages: body.messages as ChatCall['messages'],
      headerHints: {
        taskType: header(req, 'x-gateway-task-type'),
        complexity: header(req, 'x-gateway-complexity'),
        noCache: header(req, 'x-gateway-no-cache'),
      },
      signal: abort.signal,
      startedAt,
      createdAt: new Date(),
    };

    if (body.stream) {
      await dataPlane.pipeline.stream(call, sseSink(res));
      return;
    }
    const { completion, meta } = await dataPlane.pipeline.complete(call);
    const payload = JSON.stringify({ ...completion, _gateway: gatewayMeta(meta) });
    res.writeHead(200, { 'content-type': 'application/json', ...gatewayHeaders(meta) });
    res.end(payload);
  };

  app.post(
    '/v1/chat/completions',
    authenticate,
    express.json({ limit: services.config.GATEWAY_MAX_BODY_BYTES, type: () => true }),
    (req: Authed, res: Response) => {
      handle(req, res).catch((err: unknown) => {
        if (err instanceof ClientClosedError) return;
        if (res.headersSent) {
          res.end();
          return;
        }
        reportError(services.logger, res, err);
      });
    },
  );
}

function header(req: Request, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}
