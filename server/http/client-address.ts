import type { IncomingMessage } from 'node:http';

// The client's address, for per-address rate limits. With no trusted proxy it is the socket's peer.
// Behind `hops` trusted proxies, each appends the address it received the request from to
// X-Forwarded-For, so the client is the entry `hops` places from the right of the chain (the
// socket's peer being the last): entries further left are whatever the client chose to send.

export function clientAddress(req: IncomingMessage, hops: number): string {
  const peer = normalise(req.socket.remoteAddress ?? 'unknown');
  if (hops <= 0) return peer;
  const header = req.headers['x-forwarded-for'];
  const forwarded = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const chain = [...forwarded.map(normalise), peer];
  return chain[Math.max(0, chain.length - 1 - hops)]!;
}

/** 1.2.3.4 and ::ffff:1.2.3.4 are one client. */
function normalise(address: string): string {
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}
