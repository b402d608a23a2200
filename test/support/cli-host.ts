import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';

// Runs gatewayctl commands one after the other in this one process, for a test that runs dozens
// (the README's examples): each command as `gatewayctl` would run it (the same commander program,
// SDK and output), without a process start and a module load per command. A client posts
// `{ args, env }` (env: the GATEWAY_* variables it has) and gets `{ code, stdout, stderr }`.
//
// Started as `node --import tsx test/support/cli-host.ts <path of cli/index.ts>`; prints its port.

const entry = process.argv[2];
if (!entry) throw new Error('usage: cli-host.ts <cli entry>');

const realStdout = process.stdout.write.bind(process.stdout);
let stdout = '';
let stderr = '';
const capture =
  (into: (text: string) => void) =>
  (chunk: unknown, ...rest: unknown[]): boolean => {
    into(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
    const callback = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    callback?.();
    return true;
  };
process.stdout.write = capture((t) => (stdout += t)) as typeof process.stdout.write;
process.stderr.write = capture((t) => (stderr += t)) as typeof process.stderr.write;

// The entry runs its own main() when imported: let it print its version, into the void.
process.argv = [process.argv[0]!, 'gatewayctl', '--version'];
const cli = (await import(pathToFileURL(entry).href)) as { main(argv: string[]): Promise<void> };

const VARIABLES = ['GATEWAY_URL', 'GATEWAY_TOKEN', 'GATEWAY_TIMEOUT'] as const;
let queue: Promise<void> = Promise.resolve();

async function run(args: string[], env: Record<string, string | undefined>) {
  for (const name of VARIABLES) {
    const value = env[name];
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  stdout = '';
  stderr = '';
  process.exitCode = undefined;
  try {
    await cli.main(['node', 'gatewayctl', ...args]);
  } catch (err) {
    stderr += `${String(err)}\n`;
    process.exitCode = 1;
  }
  const code = Number(process.exitCode ?? 0);
  process.exitCode = undefined;
  return { code, stdout, stderr };
}

const server = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (d: string) => (body += d));
  req.on('end', () => {
    const { args, env } = JSON.parse(body) as { args: string[]; env: Record<string, string | undefined> };
    queue = queue.then(async () => {
      const result = await run(args, env);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(result));
    });
  });
});
server.listen(0, '127.0.0.1', () => {
  realStdout(`cli host listening on ${(server.address() as AddressInfo).port}\n`);
});
