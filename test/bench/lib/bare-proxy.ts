// Reference point for the gateway benchmark: the thinnest Node HTTP proxy, started like the gateway
// (same core, same runtime). It reads the request body, forwards it unchanged to UPSTREAM_URL over
// a keep-alive pool and copies the response back chunk by chunk: no routing, parsing, validation
// or logging. Gateway minus bare proxy is what the gateway's own work costs; bare proxy minus
// direct is the floor any Node proxy pays in this layout (an extra HTTP hop and a core switch).
//
// Env: UPSTREAM_URL (the simulator's chat completions URL), PORT (default 0), HOST (default 127.0.0.1).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';

const upstream = new URL(process.env.UPSTREAM_URL ?? '');
const pool = new Pool(upstream.origin, {
  connections: 1024,
  pipelining: 1,
  keepAliveTimeout: 60_000,
  keepAliveMaxTimeout: 600_000,
});
const upstreamPath = upstream.pathname;

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (req.headers.authorization) headers.authorization = req.headers.authorization;
    pool
      .request({ path: upstreamPath, method: 'POST', headers, body })
      .then(
        async (up) => {
          res.writeHead(up.statusCode, { 'content-type': String(up.headers['content-type'] ?? 'application/json') });
          for await (const chunk of up.body) res.write(chunk);
          res.end();
        },
        () => {
          if (!res.headersSent) res.writeHead(502);
          res.end();
        },
      )
      .catch(() => res.destroy());
  });
});
server.keepAliveTimeout = 65_000;

server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`bare proxy listening on http://127.0.0.1:${port}\n`);
});

const stop = (): void => {
  server.close(() => void pool.close().finally(() => process.exit(0)));
  server.closeAllConnections();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
