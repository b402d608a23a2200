import type { Server } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { errorBody, GatewayError } from '../lib/errors.js';
import { newTimeOrderedId } from '../lib/ids.js';
import { setRequestIdHeaders } from './request-id.js';

// Requests Node's HTTP parser refuses before any handler runs (malformed request lines or headers,
// headers over Node's 16 KB limit, a request not received in time) get the same typed JSON error
// body as every other refusal, instead of Node's bare status line.

/** Answers a client error on `server` with a typed error body, where Node would answer at all. */
export function answerClientErrors(server: Server): void {
  // An `Expect` other than 100-continue: Node would answer a bare 417.
  server.on('checkExpectation', (req, res) => {
    setRequestIdHeaders(res, newTimeOrderedId('req'));
    res.setHeader('connection', 'close');
    const body = JSON.stringify(
      errorBody(
        new GatewayError(
          'invalid_request_error',
          `Expectation not supported: ${String(req.headers.expect).slice(0, 100)} (only 100-continue is)`,
          { status: 417 },
        ),
      ),
    );
    res.writeHead(417, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    // As Node's own handler: answer only a connection nothing was written to yet (a half-written
    // response cannot be followed by another), and only one still open.
    if (err.code === 'ECONNRESET' || !socket.writable || socket.bytesWritten > 0) {
      socket.destroy(err);
      return;
    }
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const message =
      status === 431
        ? 'Request headers (the URL included) are too large'
        : status === 408
          ? 'The request was not received in time'
          : 'Malformed HTTP request';
    const body = JSON.stringify(errorBody(new GatewayError('invalid_request_error', message, { status })));
    const id = newTimeOrderedId('req');
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Gateway-Request-Id: ${id}\r\nX-Request-Id: ${id}\r\nConnection: close\r\n\r\n${body}`,
    );
    // Closed at once, as Node does: a client still sending (a dripping body) must not keep it open.
    socket.destroy(err);
  });
}
