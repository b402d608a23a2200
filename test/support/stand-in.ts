import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// Local HTTP servers that stand in for something that is not a working gateway (one that never
// answers, a proxy's error page, a web page), for the SDK's and the CLI's failure tests.

export class StandIns {
  private readonly servers: Server[] = [];

  /** A server answering every request with `handler`; its base URL. */
  async start(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
    const server = createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.servers.push(server);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  /** A server answering every request with `handler`, given the request's JSON body once it is in. */
  startJson(
    handler: (body: Record<string, unknown>, req: IncomingMessage, res: ServerResponse) => void,
  ): Promise<string> {
    return this.start((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c));
      req.on('end', () => handler(JSON.parse(text) as Record<string, unknown>, req, res));
    });
  }

  async closeAll(): Promise<void> {
    for (const s of this.servers.splice(0)) {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
  }
}
