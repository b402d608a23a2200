import express, { type Express } from 'express';
import { createExpressMiddleware } from '@trpc/server/adapters/express';
import type { Services } from './services.js';
import { mountChat } from './http/chat.js';
import { errorHandler, notFoundHandler } from './http/errors.js';
import { requestIdMiddleware } from './http/request-id.js';
import { restHandler } from './http/rest.js';
import { makeContextFactory } from './trpc/context.js';
import { openApiDocument } from './trpc/openapi.js';
import { appRouter } from './trpc/router.js';

/** The Express app without listen(): main.ts serves it, tests mount it on port 0. */
export function createApp(services: Services): Express {
  const { logger } = services;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestIdMiddleware);

  app.get('/openapi.json', (_req, res) => {
    res.json(openApiDocument());
  });

  // Hand-written data-plane routes, before the generic REST layer.
  mountChat(app, services, services.dataPlane);

  // Typed SDK transport (superjson).
  app.use('/trpc', createExpressMiddleware({ router: appRouter, createContext: makeContextFactory(services), maxBodySize: services.config.GATEWAY_MAX_BODY_BYTES }));

  // Generated REST for every procedure with OpenAPI metadata; unknown paths fall through to 404.
  app.use(express.json({ limit: services.config.GATEWAY_MAX_BODY_BYTES }));
  app.use(restHandler(services, logger));
  app.use(notFoundHandler);
  app.use(errorHandler(logger));
  return app;
}
