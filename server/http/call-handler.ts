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
export function serveCalls(logger: Logger, handle: CallHandler, countError?: (type: string) => void): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    // Its header leaves with the response head (gatewayHeaders) or the error (sendError).
    const requestId = reserveRequestId(res);
    handle(req, res, requestId).catch((err: unknown) => {
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
    });
  };
}
