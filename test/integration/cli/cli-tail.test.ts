import { createServer as createTcpServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';
import { lines, runCli } from '../../support/cli.js';

// `gatewayctl tail` as the real binary: the prompt preview of every request of the workspace is
// printed, and prompts are written by any token holder, so they must reach the terminal as text;
// and a gateway restart (connections dropped, the port closed for a moment) is waited out.

/** A TCP relay to `port` that can go down (every connection cut, the port closed) and come back on the same port. */
function relay(port: number) {
  let server: Server | undefined;
  const sockets = new Set<Socket>();
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('error', () => undefined);
    s.on('close', () => sockets.delete(s));
  };
  return {
    async up(listenPort = 0): Promise<number> {
      server = createTcpServer((client) => {
        const upstream = connect(port, '127.0.0.1');
        track(client);
        track(upstream);
        client.pipe(upstream).pipe(client);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      });
      await new Promise<void>((resolve) => server!.listen(listenPort, '127.0.0.1', resolve));
      return (server!.address() as AddressInfo).port;
    },
    async down(): Promise<void> {
      const closed = new Promise((r) => server!.close(r));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}

async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

let c: ChatEnv;
/** Chat calls made so far: a later test waits for all their rows, so no late event reaches its tail. */
let chatsSent = 0;
beforeAll(async () => {
  c = await startChatEnv();
});
afterAll(() => c?.close());

describe('gatewayctl tail', () => {
  it("never prints a prompt's control characters as terminal sequences", async () => {
    const tail = runCli(['tail', '--count', '1'], { url: c.env.baseUrl, token: c.tenant.token });
    // The first subscriber of a quiet cluster is connected about 1.25 s after it asks.
    const prompt = 'hello \u001b]0;owned\u0007\u001b[2J\u009b31m there';
    const deadline = Date.now() + 15_000;
    let out: Awaited<typeof tail> | undefined;
    const settled = tail.then((r) => (out = r));
    while (!out && Date.now() < deadline) {
      await c
        .openai()
        .chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: prompt }] });
      chatsSent++;
      await Promise.race([settled, new Promise((r) => setTimeout(r, 500))]);
    }
    expect(out).toMatchObject({ code: 0, stderr: '' });
    expect(out!.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    // The gateway folds them into spaces in the preview itself (the CLI would escape any left).
    expect(lines(out!.stdout)).toEqual([expect.stringContaining('"hello ]0;owned [2J 31m there"')]);
  });

  it('waits out a gateway restart: reconnects once the port answers again, and goes on printing', async () => {
    const bus = c.env.services.liveBus;
    const gatewayPort = Number(new URL(c.env.baseUrl).port);
    const r = relay(gatewayPort);
    const port = await r.up();
    await c.waitForCount('select count(*) as n from requests where tenant_id = $1', [c.tenant.tenantId], chatsSent);
    await until(() => bus.subscriberCount(c.tenant.tenantId) === 0, 'earlier streams to be released');
    const tail = runCli(['tail', '--count', '1'], { url: `http://127.0.0.1:${port}`, token: c.tenant.token });
    let out: Awaited<typeof tail> | undefined;
    const settled = tail.then((res) => (out = res));
    await until(() => bus.subscriberCount(c.tenant.tenantId) === 1, 'the tail to subscribe');
    // The gateway subscribes once it has sent the stream's head: let the head reach the tail
    // through the relay, or the cut below would come before the tail ever connected (final).
    await new Promise((resolve) => setTimeout(resolve, 300));

    // The "restart": every connection cut, nothing listening for longer than the first retry's wait.
    await r.down();
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    await r.up(port);

    const deadline = Date.now() + 15_000;
    while (!out && Date.now() < deadline) {
      await c.openai().chat.completions.create({
        model: 'openai/gpt-4o-mini',
        messages: [{ role: 'user', content: 'after the restart' }],
      });
      chatsSent++;
      await Promise.race([settled, new Promise((resolve) => setTimeout(resolve, 500))]);
    }
    await r.down();
    expect(out).toMatchObject({ code: 0 });
    expect(lines(out!.stdout)).toEqual([expect.stringContaining('"after the restart"')]);
    // The cut is told apart from a stream the gateway ended, and the closed port from both.
    const waits = lines(out!.stderr);
    expect(waits[0]).toMatch(/^connection to the gateway lost \(.+\); reconnecting in 0\.5 s$/);
    for (const wait of waits.slice(1))
      expect(wait).toMatch(
        new RegExp(
          `^cannot reach gateway at http://127\\.0\\.0\\.1:${port}: .*ECONNREFUSED.*; reconnecting in \\d+ s$`,
        ),
      );
  });
});
