import type { IncomingMessage, ServerResponse } from 'node:http';
import { ClientClosedError } from '../gateway/attempts.js';
import { Cancellation } from '../lib/cancel-signal.js';
import { GatewayError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import { reportError, sendError } from './errors.js';
import { reserveRequestId } from './request-id.js';

// What every data-plane handler (chat completions, embeddings) runs inside: a request id before
// anything else, every failure turned into a typed error response (or into the end of a response
// already under way), and a cancellation for when the client goes away.

/** Aborted when the client goes away before its response is finished: the upstream call stops too. */
export function cancelledOnClose(res: ServerResponse): Cancellation {
  const clientGone = new Cancellation();
  res.on('close', () => {
    if (!res.writableFinished) clientGone.abort();
  });
  return clientGone;
}

export type CallHandler = (req: IncomingMessage, res: ServerResponse, requestId: string) => Promise<void>;

/** `countError`: told the type of every error answer (metrics). */
export function serveCalls(
  logger: Logger,
  handle: CallHandler,
  countError?: (type: string) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  const fail = (res: ServerResponse, err: unknown) => {
    if (err instanceof ClientClosedError) return;
    if (res.headersSent) {
      res.end();
      return;
    }
    if (err instanceof GatewayError) {
      countError?.(err.type);
      return sendError(res, err);
    }
    countError?.('internal_error');
    reportError(logger, res, err);
  };
  return (req, res) => {
    // Its header leaves with the response head (gatewayHeaders) or the error (sendError).
    const requestId = reserveRequestId(res);
    callsInFlight++;
    handle(req, res, requestId).then(callSettled, (err: unknown) => {
      try {
        fail(res, err);
      } finally {
        callSettled();
      }
    });
  };
}

// Shutdown closes the connections of calls still running at its deadline; their handlers then
// log the call (client_closed) a few ticks later. Shutdown waits for that before it drains the log
// writer, or those rows would be queued after the drain and lost.

let callsInFlight = 0;
let onAllSettled: Array<() => void> = [];

function callSettled(): void {
  if (--callsInFlight > 0 || onAllSettled.length === 0) return;
  const waiting = onAllSettled;
  onAllSettled = [];
  for (const resolve of waiting) resolve();
}

/** Data-plane calls (chat completions, embeddings) whose handler has not finished yet. */
export function dataPlaneCallsInFlight(): number {
  return callsInFlight;
}

/** Resolves true when no data-plane handler is running, false if some still are after `timeoutMs`. */
export function dataPlaneCallsSettled(timeoutMs: number): Promise<boolean> {
  if (callsInFlight === 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      onAllSettled = onAllSettled.filter((r) => r !== settled);
      resolve(false);
    }, timeoutMs);
    const settled = () => {
      clearTimeout(timer);
      resolve(true);
    };
    onAllSettled.push(settled);
  });
}
