import pg from 'pg';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { settleWithin } from '../lib/settle-within.js';
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
  // TCP keepalive: a connection the network dropped without a word is found out, not kept forever.
  const pool = new pg.Pool({
    connectionString: url,
    max,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 5_000,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  });
  // A client losing its connection (database restart, network cut) must not crash the process:
  // an idle one reports it on the pool, a checked-out one on itself (its query is rejected anyway).
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  const db = drizzle(pool, { schema });
  return { url, pool, db, close: () => pool.end() };
}

/** Whether the database answers `select 1` within `timeoutMs` (a health check must answer quickly either way). */
export async function isDatabaseReachable(pool: pg.Pool, timeoutMs = 1_000): Promise<boolean> {
  return (await settleWithin(pool.query('select 1'), timeoutMs)).ok;
}
