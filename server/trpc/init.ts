import { initTRPC } from '@trpc/server';
import superjson from 'superjson';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { errorBody } from '../lib/errors.js';
import type { Context } from './context.js';
import { toGatewayError } from './errors.js';

export const t = initTRPC
  .context<Context>()
  .meta<OpenApiMeta>()
  .create({
    transformer: superjson,
    // The tRPC (SDK) side carries the same typed error as REST under data.gatewayError.
    errorFormatter({ shape, error }) {
      const gatewayError = errorBody(toGatewayError(error)).error;
      return {
        ...shape,
        message: String(gatewayError.message),
        data: { ...shape.data, stack: undefined, gatewayError },
      };
    },
  });

export const router = t.router;
export const middleware = t.middleware;
