import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerClientErrors } from '../../../server/http/client-errors.js';

// What Node's HTTP parser refuses before any handler runs still gets a typed JSON error body.

let server: Server;
let port: number;
beforeAll(async () => {
  server = createServer((_req, res) => res.end('ok'));
  answerClientErrors(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

/** Sends raw bytes and returns everything the server wrote before closing. */
function exchange(raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(raw));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (text += d));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}

function parse(text: string): {
  status: number;
  type: string | undefined;
  requestId: string | undefined;
  sameRequestId: string | undefined;
  body: { error: { type: string; message: string } };
} {
  const [head, body] = text.split('\r\n\r\n');
  return {
    status: Number(head!.split(' ')[1]),
    type: /content-type: ([^\r]+)/i.exec(head!)?.[1],
    requestId: /x-gateway-request-id: ([^\r]+)/i.exec(head!)?.[1],
    sameRequestId: /x-request-id: ([^\r]+)/i.exec(head!)?.[1],
    body: JSON.parse(body!),
  };
}

describe('requests the HTTP parser refuses', () => {
  it('a malformed request: 400 with a typed body', async () => {
    const res = parse(await exchange('NOT HTTP AT ALL\r\n\r\n'));
    expect(res.status).toBe(400);
    expect(res.type).toMatch(/^application\/json/);
    expect(res.body).toEqual({ error: { type: 'invalid_request_error', message: 'Malformed HTTP request' } });
    expect(res.requestId).toMatch(/^req_/);
    expect(res.sameRequestId).toBe(res.requestId);
  });

  it('an Expect other than 100-continue: 417 with a typed body', async () => {
    const res = parse(
      await exchange(
        'POST /v1/feedback HTTP/1.1\r\nHost: x\r\nExpect: something-else\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}',
      ),
    );
    expect(res.status).toBe(417);
    expect(res.type).toMatch(/^application\/json/);
    expect(res.body.error).toMatchObject({
      type: 'invalid_request_error',
      message: expect.stringContaining('something-else'),
    });
    expect(res.requestId).toMatch(/^req_/);
  });

  it('headers over 16 KB (a long URL): 431 with a typed body', async () => {
    const res = parse(await exchange(`GET /v1/analytics/requests?q=${'x'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`));
    expect(res.status).toBe(431);
    expect(res.requestId).toMatch(/^req_/);
    expect(res.body.error).toMatchObject({
      type: 'invalid_request_error',
      message: expect.stringMatching(/too large/),
    });
  });

  it('a request not received in time: 408 with a typed body', async () => {
    const slow = createServer(
      { requestTimeout: 300, headersTimeout: 300, connectionsCheckingInterval: 50 },
      (_req, res) => res.end('ok'),
    );
    answerClientErrors(slow);
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    try {
      const text = await new Promise<string>((resolve, reject) => {
        const socket = net.connect((slow.address() as AddressInfo).port, '127.0.0.1', () =>
          socket.write('POST /v1/feedback HTTP/1.1\r\nHost: x\r\n'),
        );
        let received = '';
        socket.setEncoding('utf8');
        socket.on('data', (d: string) => (received += d));
        socket.on('end', () => resolve(received));
        socket.on('error', reject);
      });
      const res = parse(text);
      expect(res.status).toBe(408);
      expect(res.body.error).toMatchObject({
        type: 'invalid_request_error',
        message: 'The request was not received in time',
      });
    } finally {
      slow.closeAllConnections();
      await new Promise((resolve) => slow.close(resolve));
    }
  });

  it('leaves a good request alone', async () => {
    expect(await exchange('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).toMatch(
      /^HTTP\/1\.1 200 OK[\s\S]*ok$/,
    );
  });
});
