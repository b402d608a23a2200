import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { newTimeOrderedId } from '../../../server/lib/ids.js';

// Request ids key the log's biggest table and index its cost rows: PostgreSQL must sort them by
// time too, under the database's own collation and the common others, so that each logged row is
// appended at the right edge of those indexes.

let client: pg.Client;

beforeAll(async () => {
  client = new pg.Client({ connectionString: inject('adminDatabaseUrl') });
  await client.connect();
});

afterAll(() => client?.end());

describe('time-ordered request ids in PostgreSQL', () => {
  it('sort by time under the default, C and the linguistic collations the server has', async () => {
    const times = [9, 10, 35, 36, 1_295, 1_296, 1e9, Date.UTC(2026, 0, 1), Date.now(), Date.now() + 1_000, 36 ** 9 - 1];
    const ids = times.flatMap((t) => [newTimeOrderedId('req', t), newTimeOrderedId('req', t)]);
    const { rows: collations } = await client.query<{ name: string }>(
      `select collname as name from pg_collation
        where collname in ('C', 'POSIX', 'en_US.utf8', 'en_US', 'C.utf8', 'und-x-icu', 'en-US-x-icu', 'de-DE-x-icu', 'sv-SE-x-icu')
          and collencoding in (-1, (select encoding from pg_database where datname = current_database()))`,
    );
    const names = ['default', ...collations.map((c) => c.name)];
    expect(names).toContain('C');
    const expected = [...times, ...times].sort((a, b) => a - b);
    for (const name of names) {
      const { rows } = await client.query<{ id: string }>(
        `select id from unnest($1::text[]) as id order by id collate "${name}"`,
        [ids],
      );
      expect(
        rows.map((r) => parseInt(r.id.slice(4, 13), 36)),
        `collation ${name}`,
      ).toEqual(expected);
    }
  });
});
