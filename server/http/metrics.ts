import { timingSafeEqual } from 'node:crypto';
import type { Express } from 'express';
import { hashToken } from '../lib/crypto.js';
import { GatewayError } from '../lib/errors.js';
import { parseBearer } from '../modules/tokens/authenticator.js';
import type { Services } from '../services.js';
import { reportError, sendError } from './errors.js';

// GET /metrics: the Prometheus exposition of services.metrics. Open like /health unless
// GATEWAY_METRICS_TOKEN is set, then that bearer token is required. Absent (404) with
// GATEWAY_METRICS=off. Labels carry providers, models, statuses and error types, never a tenant.

export function mountMetrics(app: Express, services: Services): void {
  const { metrics, config, logger } = services;
  if (!metrics) return;
  // Compared as hashes: equal lengths for timingSafeEqual, and no early exit on the first wrong byte.
  const expected = config.GATEWAY_METRICS_TOKEN ? Buffer.from(hashToken(config.GATEWAY_METRICS_TOKEN)) : null;
  app.get('/metrics', (req, res) => {
    if (expected) {
      let given: string;
      try {
        given = parseBearer(req.headers.authorization);
      } catch (err) {
        return sendError(res, err as GatewayError);
      }
      if (!timingSafeEqual(Buffer.from(hashToken(given)), expected)) {
        return sendError(
          res,
          new GatewayError('auth_error', 'GET /metrics needs the GATEWAY_METRICS_TOKEN bearer token'),
        );
      }
    }
    metrics.render().then(
      ({ contentType, body }) => {
        res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
        res.end(body);
      },
      (err: unknown) => reportError(logger, res, err),
    );
  });
  // Another method on a known path: 405 with Allow, as on every other path (HEAD is GET's).
  app.all('/metrics', (req, res) => {
    res.setHeader('Allow', 'GET');
    sendError(
      res,
      new GatewayError('invalid_request_error', `Method ${req.method} is not allowed on /metrics (allowed: GET)`, {
        status: 405,
      }),
    );
  });
}
