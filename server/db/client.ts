import pg from 'pg';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import * as schema from './schema/index.js';

export type Database = NodePgDatabase<typeof schema>;
/** A database handle or an open transaction: repositories accept either. */
export type Executor = Database | Parameters<Parameters<Database['transaction']>[0]>[0];

export interface DbHandle {
  url: string;
  pool: pg.Pool;
  db: Database;
  close(): Promise<void>;
}

export function connectDatabase(url: string, max = 10): DbHandle {
  const pool = new pg.Pool({ connectionString: url, max, idleTimeoutMillis: 30_000, connectionTimeoutMillis: 5_000 });
  // A client losing its connection (database restart, network cut) must not crash the process:
  // an idle one reports it on the pool, a checked-out one on itself (its query is rejected anyway).
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  const db = drizzle(pool, { schema });
  return { url, pool, db, close: () => pool.end() };
}

export async function isDatabaseReachable(pool: pg.Pool): Promise<boolean> {
  try {
    await pool.query('select 1');
    return true;
  } catch {
    return false;
  }
}
