import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connectDatabase, type DbHandle } from '../../server/db/client.js';
import { freePort, startEmbeddedPostgres, type EmbeddedDatabase } from '../../server/db/embedded.js';
import { runMigrations } from '../../server/db/migrate.js';

/**
 * A migrated PostgreSQL of a test file's own, for tests that stop and restart the database (the
 * shared one serves every other file). The pool survives a restart: it reconnects on the same port.
 */
export interface OwnPostgres {
  handle: DbHandle;
  stop(): Promise<void>;
  restart(): Promise<void>;
  /** Closes the pool, stops the server and removes its files. */
  close(): Promise<void>;
}

export async function startOwnPostgres(name: string): Promise<OwnPostgres> {
  const dir = await mkdtemp(path.join(tmpdir(), `gateway-${name}-`));
  const port = await freePort();
  let server: EmbeddedDatabase | undefined = await startEmbeddedPostgres(dir, { port });
  const handle = connectDatabase(server.url, 4);
  await runMigrations(handle);
  return {
    handle,
    async stop() {
      await server?.stop();
      server = undefined;
    },
    async restart() {
      server ??= await startEmbeddedPostgres(dir, { port });
    },
    async close() {
      await handle.close();
      await server?.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
