import type { Config } from '../config.js';
import { connectDatabase, type DbHandle } from './client.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './embedded.js';
import { runMigrations } from './migrate.js';

export interface DatabaseSetup {
  handle: DbHandle;
  embedded?: EmbeddedDatabase;
  url: string;
  stop(): Promise<void>;
}

/** DATABASE_URL when set, else an embedded PostgreSQL in GATEWAY_DATA_DIR; migrations run either way. */
export async function setupDatabase(config: Config): Promise<DatabaseSetup> {
  const embedded = config.DATABASE_URL ? undefined : await startEmbeddedPostgres(config.GATEWAY_DATA_DIR);
  const url = config.DATABASE_URL ?? embedded!.url;
  const handle = connectDatabase(url, 20);
  try {
    await runMigrations(handle);
  } catch (err) {
    await handle.close();
    await embedded?.stop();
    throw err;
  }
  return {
    handle,
    embedded,
    url,
    async stop() {
      await handle.close().catch(() => undefined);
      await embedded?.stop();
    },
  };
}
