import type { Socket } from 'node:net';
import type pg from 'pg';

// pg sends a parameterised query as four separate socket writes (Bind, Describe, Execute, Sync;
// plus Parse the first time). Each write is a system call that also wakes the database server, so
// on a busy gateway a batch insert blocked the event loop for about half a millisecond. Corking the
// connection's socket while pg submits the query sends the messages in one write.

/**
 * A parameterised query on a pool connection, its protocol messages sent in one write.
 * `query_timeout` (pg's, in ms): the query fails when unanswered by then, and its connection is
 * dropped rather than reused.
 */
export async function corkedQuery<R extends pg.QueryResultRow = pg.QueryResultRow>(
  pool: pg.Pool,
  config: pg.QueryConfig & { query_timeout?: number },
): Promise<pg.QueryResult<R>> {
  const client = await pool.connect();
  let result: pg.QueryResult<R>;
  try {
    // An idle client submits synchronously inside query(), so the writes land between cork and uncork.
    const socket = (client as unknown as { connection?: { stream?: Partial<Socket> } }).connection?.stream;
    socket?.cork?.();
    const pending = client.query<R>(config);
    socket?.uncork?.();
    result = await pending;
  } catch (err) {
    // A connection that failed mid-query must not go back to the pool.
    client.release(err as Error);
    throw err;
  }
  client.release();
  return result;
}
