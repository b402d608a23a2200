import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { connectDatabase, type DbHandle } from '../../server/db/client.js';
import { MIGRATIONS_DIR, runMigrations } from '../../server/db/migrate.js';
import { randomId } from '../../server/lib/ids.js';
import { withDatabase } from '../support/global-setup.js';

// Upgrading a database that already holds data: the token_spend migration (0006) fills the new
// table from the cost rows logged before it, through their request rows.

const adminUrl = inject('adminDatabaseUrl');
const name = `migrations_${randomId(6).toLowerCase()}`;
let handle: DbHandle;
let oldMigrations: string;

beforeAll(async () => {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  handle = connectDatabase(withDatabase(adminUrl, name), 2);
  // The migrations as they were before token_spend.
  oldMigrations = await mkdtemp(path.join(tmpdir(), 'gateway-migrations-'));
  await cp(MIGRATIONS_DIR, oldMigrations, { recursive: true });
  const journalPath = path.join(oldMigrations, 'meta', '_journal.json');
  const journal = JSON.parse(await readFile(journalPath, 'utf8')) as { entries: Array<{ tag: string }> };
  journal.entries = journal.entries.filter((e) => e.tag < '0006');
  await writeFile(journalPath, JSON.stringify(journal));
}, 60_000);

afterAll(async () => {
  await handle?.close();
  await rm(oldMigrations, { recursive: true, force: true });
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.end();
});

describe('migration 0006_token_spend', () => {
  it('counts the spend logged before it, and every cost row after it', async () => {
    await migrate(handle.db, { migrationsFolder: oldMigrations });
    const q = (sql: string, params: unknown[] = []) => handle.pool.query(sql, params);
    await q(`insert into tenants (id, name, tier) values ('ten_m', 'm', 'team')`);
    for (const id of ['tok_a', 'tok_b']) await q(`insert into api_tokens (id, tenant_id, name, prefix, hash) values ($1, 'ten_m', $1, 'gw_', $1)`, [id]);
    const call = async (requestId: string, tokenId: string | null, costs: number[]) => {
      await q(
        `insert into requests (id, tenant_id, created_at, token_id, latency_ms, routed_by, status) values ($1, 'ten_m', now(), $2, 10, 'user-override', 'ok')`,
        [requestId, tokenId],
      );
      for (const cost of costs) {
        await q(
          `insert into cost_logs (tenant_id, request_id, provider, model, input_tokens, output_tokens, cost, created_at) values ('ten_m', $1, 'openai', 'gpt-4o', 1, 1, $2, now())`,
          [requestId, cost],
        );
      }
    };
    await call('req_1', 'tok_a', [0.5]);
    await call('req_2', 'tok_a', [0, 0.25]); // a failed attempt, then the fallback that answered
    await call('req_3', 'tok_b', [1]);
    await call('req_4', null, [2]);

    await runMigrations(handle);
    const spend = async () =>
      Object.fromEntries((await q(`select token_id, spent_usd::float8 as usd, calls::int from token_spend order by token_id`)).rows.map((r) => [r.token_id, [r.usd, r.calls]]));
    expect(await spend()).toEqual({ tok_a: [0.75, 3], tok_b: [1, 1] });

    // From now on the trigger counts each new cost row that names its token.
    await q(`insert into cost_logs (tenant_id, request_id, token_id, provider, model, input_tokens, output_tokens, cost, created_at) values ('ten_m', 'req_5', 'tok_b', 'openai', 'gpt-4o', 1, 1, 0.5, now())`);
    expect(await spend()).toEqual({ tok_a: [0.75, 3], tok_b: [1.5, 2] });
  });
});
