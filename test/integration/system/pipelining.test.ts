import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEnv, type TestEnv } from '../../support/harness.js';

// HTTP pipelining: answered in order, as Node does, but a connection may not queue more than a
// few answers the client has not taken.

let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv();
});
afterAll(() => env.close());

function pipeline(count: number, read: boolean): Promise<{ text: string; closedEarly: boolean }> {
  const url = new URL(env.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      if (!read) socket.pause();
      socket.write(`GET /health HTTP/1.1\r\nHost: x\r\n\r\n`.repeat(count));
    });
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      text += d;
      if ((text.match(/HTTP\/1\.1 200/g) ?? []).length === count) {
        socket.end();
        resolve({ text, closedEarly: false });
      }
    });
    socket.on('close', () => resolve({ text, closedEarly: true }));
    socket.on('error', reject);
  });
}

describe('pipelined requests', () => {
  it('are answered in order when the client reads', async () => {
    const { text, closedEarly } = await pipeline(10, true);
    expect(closedEarly).toBe(false);
    expect((text.match(/HTTP\/1\.1 200/g) ?? []).length).toBe(10);
  });

  it('close the connection when more than 16 answers wait for a client that does not read', async () => {
    const { closedEarly } = await pipeline(200, false);
    expect(closedEarly).toBe(true);
  });
});
