import { mkdtemp, readFile, rm, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { startEmbeddedPostgres } from '../../../server/db/embedded.js';

// The embedded PostgreSQL's superuser password: random for a new data directory, and replaced for
// one made before the password file (which used a fixed one).

async function logsIn(port: number, password: string): Promise<boolean> {
  const client = new pg.Client({
    connectionString: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`,
  });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

describe('embedded PostgreSQL', () => {
  it('gets a random superuser password, and replaces the fixed one of an older data directory', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'gateway-embedded-'));
    try {
      let db = await startEmbeddedPostgres(dir, { database: 'postgres' });
      const password = (await readFile(path.join(dir, 'pg-password'), 'utf8')).trim();
      expect(password.length).toBeGreaterThanOrEqual(32);
      expect(await logsIn(db.port, password)).toBe(true);
      expect(await logsIn(db.port, 'gateway')).toBe(false);

      // As a data directory made before the password file: the fixed password, no file.
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      await client.query(`ALTER USER postgres WITH PASSWORD 'gateway'`);
      await client.end();
      await db.stop();
      await unlink(path.join(dir, 'pg-password'));

      db = await startEmbeddedPostgres(dir, { database: 'postgres' });
      const replaced = (await readFile(path.join(dir, 'pg-password'), 'utf8')).trim();
      expect(replaced).not.toBe('gateway');
      expect(await logsIn(db.port, replaced)).toBe(true);
      expect(await logsIn(db.port, 'gateway')).toBe(false);
      await db.stop();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
