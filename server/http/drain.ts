import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { GatewayError } from '../lib/errors.js';
import { sendError } from './errors.js';

// Graceful drain of the HTTP server on SIGTERM. Requests already in flight finish (streams
// included); their responses say `Connection: close` where the head is not out yet, and each
// connection closes once its response is over. A request that comes after, on a connection kept
// alive, gets 503 service_unavailable with `Connection: close`. New connections are refused
// (server.close()) and idle ones dropped at once, so the server closes as soon as the last response
// is done, not at the shutdown timeout.

const SHUTTING_DOWN = new GatewayError('service_unavailable', 'The gateway is shutting down');

export class Drain {
  /** Read by the request listener on every request: one boolean test, nothing else on the hot path. */
  draining = false;
  /** Open connections; kept per connection (not per request) so start() can find the responses in flight. */
  private readonly sockets = new Set<Socket>();

  /** Follows the server's connections. Call before it listens. */
  watch(server: Server): void {
    const sockets = this.sockets;
    function forget(this: Socket): void {
      sockets.delete(this);
    }
    server.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.on('close', forget);
    });
  }

  /** Starts the drain; resolves when the server has closed (every connection gone). */
  start(server: Server): Promise<void> {
    this.draining = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    for (const socket of this.sockets) closeAfterResponse(socket);
    return closed;
  }
}

/** The answer to a request that arrives while draining (the request listener calls it). Not a call: not logged. */
export function refuseWhileDraining(res: ServerResponse): void {
  // Node closes the connection once this response is sent.
  res.setHeader('connection', 'close');
  sendError(res, SHUTTING_DOWN);
}

/**
 * Closes the connection once the response it is carrying ends. A head not sent yet gets
 * `Connection: close` (Node then closes after the response); a head already out said keep-alive,
 * so the socket is closed here when the response has finished.
 */
function closeAfterResponse(socket: Socket): void {
  const res = responseOn(socket);
  if (!res) return; // idle (closeIdleConnections) or a request still arriving (it will be refused)
  if (!res.headersSent) {
    res.setHeader('connection', 'close');
    return;
  }
  res.once('finish', () => {
    // Node has detached the response by now. A pipelined request's response may have taken the
    // socket: it closes it in turn (refused ones say Connection: close).
    if (responseOn(socket)) closeAfterResponse(socket);
    else socket.destroySoon();
  });
}

/**
 * The response the connection is sending (or about to), if any. `_httpMessage` is Node's own link
 * from a server socket to its current response (server.closeIdleConnections() reads it too); there
 * is no public equivalent.
 */
function responseOn(socket: Socket): ServerResponse | null {
  return (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage ?? null;
}
