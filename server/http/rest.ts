import type { NextFunction, Request, Response } from 'express';
import { createOpenApiNodeHttpHandler } from 'trpc-to-openapi';
import { errorBody } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import type { Services } from '../services.js';
import { makeContextFactory } from '../trpc/context.js';
import { toGatewayError } from '../trpc/errors.js';
import { existingRequestId } from './request-id.js';
import { appRouter } from '../trpc/router.js';

// The REST face of the tRPC procedures. The library's error body is fixed ({message, code, issues}),
// so the error it reports through onError is kept per request and the body rewritten on the way out.
const FAILURE = Symbol('restFailure');
type WithFailure = Request & { [FAILURE]?: unknown };
/** Procedures that start background work and answer 202 Accepted. */
const ACCEPTED = new Set(['evals.createRun']);

export function restHandler(services: Services, logger: Logger) {
  const handler = createOpenApiNodeHttpHandler({
    router: appRouter,
    createContext: makeContextFactory(services),
    maxBodySize: services.config.GATEWAY_MAX_BODY_BYTES,
    onError: ({ error, req }) => {
      (req as WithFailure)[FAILURE] = error;
    },
    responseMeta: ({ errors, paths }) =>
      errors[0]
        ? { status: toGatewayError(errors[0]).status }
        : paths?.[0] && ACCEPTED.has(paths[0])
          ? { status: 202 }
          : {},
  });

  return (req: Request, res: Response, next: NextFunction) => {
    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    (res as { end: unknown }).end = (...args: unknown[]) => {
      const failure = (req as WithFailure)[FAILURE];
      if (failure !== undefined) {
        const err = toGatewayError(failure);
        if (err.status >= 500)
          logger.error({ err: err.cause ?? err, requestId: existingRequestId(res) }, 'request failed');
        return end(JSON.stringify(errorBody(err)));
      }
      return end(...args);
    };
    return handler(req, res, next);
  };
}
