import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { createExpressMiddleware } from '@trpc/server/adapters/express';
import type { Services } from './services.js';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { callGate } from './http/call-gate.js';
import { Drain, refuseWhileDraining } from './http/drain.js';
import { mountMetrics } from './http/metrics.js';
import { CHAT_PATH, chatHandler } from './http/chat.js';
import { EMBEDDINGS_PATH, embeddingsHandler } from './http/embeddings.js';
import './http/chat-openapi.js';
import './http/embeddings-openapi.js';
import { errorHandler, notFoundHandler } from './http/errors.js';
import { mountLive } from './http/live.js';
import { mountAuthRoutes } from './http/auth-routes.js';
import './http/auth-openapi.js';
import { mountSpendExport } from './http/spend-export.js';
import './http/spend-export-openapi.js';
import { mountStripeWebhook } from './http/stripe-webhook.js';
import './http/stripe-webhook-openapi.js';
import { requestIdMiddleware } from './http/request-id.js';
import { checkParsedBody, emptyBodyAsJson, jsonBodyParser, lowerCaseMediaType } from './http/rest-body.js';
import { restHandler } from './http/rest.js';
import { makeContextFactory } from './trpc/context.js';
import { openApiDocument } from './trpc/openapi.js';
import { appRouter } from './trpc/router.js';

/**
 * The request listener main.ts serves and tests mount on port 0: chat completions and embeddings on
 * a fast path straight off the node server (no router, no middleware chain), everything else through
 * Express. Once `drain` has started (shutdown), every new request, /health included, is refused with
 * 503 service_unavailable and `Connection: close`.
 */
export function createRequestListener(services: Services, drain: Drain = new Drain()): RequestListener {
  const app = createApp(services);
  const admit = callGate(services);
  const chat = chatHandler(services, services.dataPlane, admit);
  const embeddings = embeddingsHandler(services, services.dataPlane, admit);
  return (req, res) => {
    if (drain.draining) return refuseWhileDraining(res);
    // A response not yet given its socket is queued behind an earlier one: the client pipelines.
    if (res.socket === null && tooDeeplyPipelined(req, res)) return;
    if (req.method === 'POST') {
      if (req.url === CHAT_PATH || req.url?.startsWith(`${CHAT_PATH}?`)) return chat(req, res);
      if (req.url === EMBEDDINGS_PATH || req.url?.startsWith(`${EMBEDDINGS_PATH}?`)) return embeddings(req, res);
    }
    app(req, res);
  };
}

/**
 * Node answers pipelined requests in order and holds the responses of the later ones until the
 * earlier ones are sent: a client that pipelines without reading made the gateway hold every
 * answer (1.5 GB from 200 connections). Beyond MAX_PIPELINED responses waiting on one connection,
 * the connection is closed. Clients that do not pipeline (nearly all) pay one property read.
 */
const MAX_PIPELINED = 16;
const QUEUED = Symbol('queued responses');

function tooDeeplyPipelined(req: IncomingMessage, res: ServerResponse): boolean {
  const socket = req.socket as Socket & { [QUEUED]?: number };
  const queued = (socket[QUEUED] ?? 0) + 1;
  if (queued > MAX_PIPELINED) {
    socket.destroy();
    return true;
  }
  socket[QUEUED] = queued;
  res.once('finish', () => {
    socket[QUEUED] = (socket[QUEUED] ?? 1) - 1;
  });
  return false;
}

/** The Express app (control plane, health, OpenAPI document), without the chat fast path. */
export function createApp(services: Services): Express {
  const { logger } = services;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestIdMiddleware);

  app.get('/openapi.json', (_req, res) => {
    res.json(openApiDocument());
  });

  // The live tap (SSE), hand-written like chat completions.
  mountLive(app, services);
  // Prometheus metrics.
  mountMetrics(app, services);
  // The spend export (CSV or JSON download).
  mountSpendExport(app, services);
  // Sign-in and sessions under /auth (multi-tenant mode only).
  mountAuthRoutes(app, services);
  // The payment provider's webhook (raw body: its signature covers the exact bytes).
  mountStripeWebhook(app, services);

  // Typed SDK transport (superjson).
  // A batch is bounded: one HTTP request of some hundred procedure calls made one token's request
  // weigh as much as hundreds (the SDK sends one call per request).
  app.use(
    '/trpc',
    createExpressMiddleware({
      router: appRouter,
      createContext: makeContextFactory(services),
      maxBodySize: services.config.GATEWAY_MAX_BODY_BYTES,
      maxBatchSize: TRPC_MAX_BATCH,
    }),
  );

  // Generated REST for every procedure with OpenAPI metadata; unknown paths fall through to 404.
  app.use(lowerCaseMediaType);
  app.use(emptyBodyAsJson);
  app.use(jsonBodyParser(services.config.GATEWAY_MAX_BODY_BYTES));
  app.use(checkParsedBody);
  app.use(modelIdAsOneSegment);
  app.use(restHandler(services, logger));
  app.use(notFoundHandler);
  app.use(errorHandler(logger));
  return app;
}

/** Procedure calls one /trpc request may carry. */
const TRPC_MAX_BATCH = 20;

// Not /v1/models/pricing/overrides, a path of its own (negotiated prices).
const MODEL_PATH_WITH_SLASHES = /^\/v1\/models\/(?!pricing\/overrides(?:\?|$))([^/?]+\/[^?]+)(\?.*)?$/;

/**
 * `GET /v1/models/openai/gpt-4o`, as a curl user writes it, to the REST route's one-segment form
 * (`/v1/models/openai%2Fgpt-4o`, what the OpenAI SDKs send).
 */
function modelIdAsOneSegment(req: Request, _res: Response, next: NextFunction): void {
  const m = req.method === 'GET' ? MODEL_PATH_WITH_SLASHES.exec(req.url) : null;
  if (m) req.url = `/v1/models/${m[1]!.replaceAll('/', '%2F')}${m[2] ?? ''}`;
  next();
}
