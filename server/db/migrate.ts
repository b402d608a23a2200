import path from 'node:path';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import { PROJECT_ROOT } from '../lib/paths.js';
import type { DbHandle } from './client.js';

export const MIGRATIONS_DIR = path.join(PROJECT_ROOT, 'migrations');

// Several gateway nodes may start at once against one database: an advisory lock serialises them.
const MIGRATION_LOCK = 727_401;

export async function runMigrations(handle: DbHandle): Promise<void> {
  const client = await handle.pool.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await migrate(handle.db, { migrationsFolder: MIGRATIONS_DIR });
  } finally {
    await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    client.release();
  }
}
