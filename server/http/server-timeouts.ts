import type { ServerOptions } from 'node:http';
import type { Config } from '../config.js';

// Bounds on how long a client may take to send its request. Without them Node allows 300 s for a
// body, so a client dripping a byte every few seconds holds a connection (and its socket) for five
// minutes. requestTimeout covers receiving the request only: a long streamed answer is not cut.

/** createServer options: headers and whole-request timeouts (0 = no limit, as in Node). */
export function requestTimeoutOptions(
  config: Pick<Config, 'GATEWAY_HEADERS_TIMEOUT_MS' | 'GATEWAY_REQUEST_TIMEOUT_MS'>,
): ServerOptions {
  const requestTimeout = config.GATEWAY_REQUEST_TIMEOUT_MS;
  // Node refuses a headers timeout longer than the request timeout: the request bound covers both.
  const headersTimeout =
    requestTimeout > 0 && config.GATEWAY_HEADERS_TIMEOUT_MS > requestTimeout
      ? requestTimeout
      : config.GATEWAY_HEADERS_TIMEOUT_MS;
  return {
    requestTimeout,
    headersTimeout,
    connectionsCheckingInterval: checkingInterval(headersTimeout, requestTimeout),
  };
}

/**
 * Node enforces both timeouts by sweeping the open connections, by default every 30 s: a bound of
 * 15 s would really be up to 45 s. A sweep a quarter of the shorter bound apart keeps the overshoot
 * small; it is a walk over the connection list, cheap at 1 s or more.
 */
function checkingInterval(headersTimeout: number, requestTimeout: number): number {
  const bounds = [headersTimeout, requestTimeout].filter((t) => t > 0);
  if (bounds.length === 0) return 30_000;
  return Math.min(5_000, Math.max(50, Math.floor(Math.min(...bounds) / 4)));
}
