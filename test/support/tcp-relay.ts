import { connect as connectTcp, createServer, type Server, type Socket } from 'node:net';

// A TCP relay to a server (PostgreSQL, Redis) that a test can cut, as a server gone unreachable
// (connections closed, new ones refused), or silence, as a network partition or a NAT that forgot
// the connections (nothing forwarded, nothing closed).

export interface TcpRelay {
  /** `url` with its host and port replaced by the relay's. */
  url: string;
  /** Stops forwarding, on the connections open now and on new ones, until resume(). */
  silence(): void;
  resume(): void;
  /** Closes every relayed connection and refuses new ones. */
  cut(): Promise<void>;
  close(): void;
}

export async function startTcpRelay(targetUrl: string): Promise<TcpRelay> {
  const target = new URL(targetUrl);
  const sockets = new Set<Socket>();
  let silent = false;
  const relay: Server = createServer((inbound) => {
    const outbound = connectTcp(Number(target.port || 5432), target.hostname);
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on('error', () => s.destroy());
      s.on('close', () => sockets.delete(s));
    }
    inbound.on('data', (d) => silent || outbound.write(d));
    outbound.on('data', (d) => silent || inbound.write(d));
    inbound.on('close', () => outbound.destroy());
    outbound.on('close', () => inbound.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const url = new URL(targetUrl);
  url.hostname = '127.0.0.1';
  url.port = String((relay.address() as { port: number }).port);
  const close = () => {
    for (const s of sockets) s.destroy();
    relay.close();
  };
  return {
    url: url.toString(),
    silence: () => (silent = true),
    resume: () => (silent = false),
    async cut() {
      const closed = new Promise((r) => relay.close(r));
      for (const s of sockets) s.destroy();
      await closed;
    },
    close,
  };
}
