import { connect as connectTcp, createServer, type Server, type Socket } from 'node:net';

// A TCP relay to a server that can go silent for the connections it carries, as a NAT or firewall
// that forgot them would (a network partition): nothing is forwarded, nothing is closed.

export interface SilentRelay {
  /** `url` with its host and port replaced by the relay's. */
  url: string;
  /** Stops forwarding on the connections open now; new connections are relayed again after resume(). */
  silence(): void;
  resume(): void;
  close(): void;
}

export async function startSilentRelay(targetUrl: string): Promise<SilentRelay> {
  const target = new URL(targetUrl);
  const relayed: Socket[] = [];
  let silent = false;
  const relay: Server = createServer((inbound) => {
    const outbound = connectTcp(Number(target.port || 5432), target.hostname);
    relayed.push(inbound, outbound);
    inbound.on('data', (d) => silent || outbound.write(d));
    outbound.on('data', (d) => silent || inbound.write(d));
    inbound.on('error', () => outbound.destroy());
    outbound.on('error', () => inbound.destroy());
    inbound.on('close', () => outbound.destroy());
    outbound.on('close', () => inbound.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const url = new URL(targetUrl);
  url.hostname = '127.0.0.1';
  url.port = String((relay.address() as { port: number }).port);
  return {
    url: url.toString(),
    silence: () => (silent = true),
    resume: () => (silent = false),
    close() {
      for (const s of relayed) s.destroy();
      relay.close();
    },
  };
}
