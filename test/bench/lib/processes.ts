import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../../server/db/embedded.js';

// The benchmark's own processes: the gateway and the simulator as pinned child processes, the
// embedded PostgreSQL, and a cleanup list that runs on success, failure and signals alike.

export interface ChildHandle {
  name: string;
  child: ChildProcess;
  pid: number;
  output(): string;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  stop(timeoutMs?: number): Promise<void>;
}

const OUTPUT_KEEP = 64 * 1024;

/** The V8 flags of `npm start` and `npm run start:prod` (young-generation size and old-generation growth: see the README's Performance section). */
export const GATEWAY_NODE_ARGS = ['--max-semi-space-size=16', '--heap-growing-percent=75'];

/**
 * V8 flags for the benchmark's own processes (simulator, bare proxy; the load generator gets them from
 * its npm script). V8's memory reducer runs full collections, on several threads, a while after a
 * process goes quiet: the idle bare proxy then collects during the gateway's block, on the gateway's
 * core. With an idle bare proxy beside the gateway at 500 req/s, three paired runs gave a p99 of
 * 4.17 / 4.47 / 4.90 ms with the reducer and 3.21 / 3.27 / 2.85 ms without. The gateway keeps its
 * production flags.
 */
export const HARNESS_NODE_ARGS = ['--no-memory-reducer'];

/** Space-separated command-line flags from a setting such as BENCH_NODE_ARGS (none when unset). */
export function flagList(spec: string | undefined): string[] {
  return (spec ?? '').split(/\s+/).filter(Boolean);
}

/**
 * Runs `node --import tsx <entry>` (or plain `node <entry>` for compiled JavaScript) with exactly
 * `env` (plus PATH and HOME), under `taskset -c <core>` when a core is given.
 */
export function spawnNode(
  name: string,
  entry: string,
  env: Record<string, string>,
  opts: { core?: number; nodeArgs?: string[]; compiled?: boolean } = {},
): ChildHandle {
  const nodeArgs = [...(opts.nodeArgs ?? []), ...(opts.compiled ? [] : ['--import', 'tsx']), entry];
  const [cmd, args] =
    opts.core === undefined
      ? [process.execPath, nodeArgs]
      : ['taskset', ['-c', String(opts.core), process.execPath, ...nodeArgs]];
  const childEnv: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? os.tmpdir(),
    ...env,
  };
  const child = spawn(cmd, args, { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  if (child.pid === undefined) throw new Error(`${name}: spawn failed`);
  let out = '';
  const append = (d: Buffer) => {
    out += d.toString('utf8');
    if (out.length > OUTPUT_KEEP) out = out.slice(-OUTPUT_KEEP);
  };
  child.stdout!.on('data', append);
  child.stderr!.on('data', append);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const handle: ChildHandle = {
    name,
    child,
    // taskset execs the command, so this is the node process's pid either way.
    pid: child.pid,
    output: () => out,
    waitFor(pattern, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const started = Date.now();
        const tick = () => {
          const m = out.match(pattern);
          if (m) return resolve(m);
          if (child.exitCode !== null || child.signalCode !== null) {
            return reject(
              new Error(`${name} exited (${child.exitCode ?? child.signalCode}) before printing ${pattern}:\n${out}`),
            );
          }
          if (Date.now() - started > timeoutMs)
            return reject(new Error(`${name}: timed out waiting for ${pattern}:\n${out}`));
          setTimeout(tick, 25);
        };
        tick();
      });
    },
    async stop(timeoutMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      await exited;
      clearTimeout(timer);
    },
  };
  children.add(handle);
  void exited.then(() => children.delete(handle));
  return handle;
}

export interface BenchDatabase extends EmbeddedDatabase {
  dir: string;
  /** The postmaster's pid (first line of postmaster.pid), once the server runs. */
  postmasterPid(): number;
}

/** A fresh embedded PostgreSQL in a temporary directory that cleanup removes. */
export async function startDatabase(): Promise<BenchDatabase> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gateway-bench-'));
  tempDirs.add(dir);
  const db = await startEmbeddedPostgres(dir, { database: 'gateway' });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await db.stop();
  };
  databases.add({ dir, stop });
  return { ...db, dir, stop, postmasterPid: () => postmasterPid(dir) };
}

// --- cleanup -------------------------------------------------------------------------------

const children = new Set<ChildHandle>();
const databases = new Set<{ dir: string; stop(): Promise<void> }>();
const tempDirs = new Set<string>();
let cleaning: Promise<void> | undefined;
let interrupted = false;

/** True once a signal or the run deadline started the cleanup: errors after that are its echo. */
export function isInterrupted(): boolean {
  return interrupted;
}

/**
 * Stops the children (SIGTERM, then SIGKILL after `graceMs`), then PostgreSQL, then removes the
 * temporary directories.
 */
export function cleanup(graceMs = 10_000): Promise<void> {
  cleaning ??= (async () => {
    await Promise.all([...children].map((c) => c.stop(graceMs).catch(() => undefined)));
    for (const db of databases) await withTimeout(db.stop(), 15_000).catch(() => undefined);
    databases.clear();
    for (const dir of tempDirs) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    tempDirs.clear();
  })();
  return cleaning;
}

function postmasterPid(dir: string): number {
  return Number(readFileSync(path.join(dir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
}

/** Last resort when the process exits without cleanup(): synchronous kills and removal. */
function cleanupSync(): void {
  for (const c of children) {
    try {
      c.child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
  for (const db of databases) {
    try {
      // SIGQUIT is PostgreSQL's immediate shutdown.
      const pid = postmasterPid(db.dir);
      if (pid > 0) process.kill(pid, 'SIGQUIT');
    } catch {
      // not running
    }
  }
  for (const dir of tempDirs) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // best effort
    }
  }
}

let installed = false;

/** Cleanup on normal exit, on SIGINT/SIGTERM, and on a hard deadline for the whole run. */
export function installCleanupHandlers(deadlineMs: number): void {
  if (installed) return;
  installed = true;
  process.on('exit', cleanupSync);
  const onSignal = (signal: NodeJS.Signals) => {
    interrupted = true;
    process.stderr.write(`\n${signal}: stopping the benchmark\n`);
    // Load may still be running: no long graceful drain.
    void cleanup(2_000).finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const deadline = setTimeout(() => {
    interrupted = true;
    process.stderr.write(`\nbenchmark exceeded its ${Math.round(deadlineMs / 1000)} s limit: stopping\n`);
    void cleanup(2_000).finally(() => process.exit(2));
  }, deadlineMs);
  deadline.unref();
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('timeout')), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(t);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
