import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { connectDatabase, type DbHandle } from '../../../server/db/client.js';
import { MIGRATIONS_DIR, runMigrations } from '../../../server/db/migrate.js';
import { randomId } from '../../../server/lib/ids.js';
import { withDatabase } from '../../support/global-setup.js';

// Upgrading a database that already holds data: the token_spend migration (0006) fills the new
// table from the cost rows logged before it, through their request rows; the cost-row key (0007)
// numbers the cost rows already logged so that its unique index can be built.

const adminUrl = inject('adminDatabaseUrl');
const created: Array<{ name: string; handle: DbHandle; migrations: string }> = [];

/** A fresh database, and a copy of the migrations that stops before `tag`. */
async function databaseBefore(tag: string): Promise<{ handle: DbHandle; oldMigrations: string }> {
  const name = `migrations_${randomId(6).toLowerCase()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const handle = connectDatabase(withDatabase(adminUrl, name), 2);
  const oldMigrations = await mkdtemp(path.join(tmpdir(), 'gateway-migrations-'));
  created.push({ name, handle, migrations: oldMigrations });
  await cp(MIGRATIONS_DIR, oldMigrations, { recursive: true });
  const journalPath = path.join(oldMigrations, 'meta', '_journal.json');
  const journal = JSON.parse(await readFile(journalPath, 'utf8')) as { entries: Array<{ tag: string }> };
  journal.entries = journal.entries.filter((e) => e.tag < tag);
  await writeFile(journalPath, JSON.stringify(journal));
  return { handle, oldMigrations };
}

let handle: DbHandle;
let oldMigrations: string;

beforeAll(async () => {
  ({ handle, oldMigrations } = await databaseBefore('0006'));
}, 60_000);

afterAll(async () => {
  for (const db of created) {
    await db.handle.close();
    await rm(db.migrations, { recursive: true, force: true });
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`drop database if exists ${db.name} with (force)`);
    await admin.end();
  }
});

describe('migration 0006_token_spend', () => {
  it('counts the spend logged before it, and every cost row after it', async () => {
    await migrate(handle.db, { migrationsFolder: oldMigrations });
    const q = (sql: string, params: unknown[] = []) => handle.pool.query(sql, params);
    await q(`insert into tenants (id, name, tier) values ('ten_m', 'm', 'team')`);
    for (const id of ['tok_a', 'tok_b'])
      await q(`insert into api_tokens (id, tenant_id, name, prefix, hash) values ($1, 'ten_m', $1, 'gw_', $1)`, [id]);
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
      Object.fromEntries(
        (await q(`select token_id, spent_usd::float8 as usd, calls::int from token_spend order by token_id`)).rows.map(
          (r) => [r.token_id, [r.usd, r.calls]],
        ),
      );
    expect(await spend()).toEqual({ tok_a: [0.75, 3], tok_b: [1, 1] });

    // From now on the trigger counts each new cost row that names its token.
    await q(
      `insert into cost_logs (tenant_id, request_id, token_id, provider, model, input_tokens, output_tokens, cost, created_at) values ('ten_m', 'req_5', 'tok_b', 'openai', 'gpt-4o', 1, 1, 0.5, now())`,
    );
    expect(await spend()).toEqual({ tok_a: [0.75, 3], tok_b: [1.5, 2] });
  });
});

describe('migration 0007_cost_log_idempotency', () => {
  it('numbers the cost rows already logged per request, so the key is unique, and keys rows from then on', async () => {
    const { handle: db, oldMigrations: before } = await databaseBefore('0007');
    await migrate(db.db, { migrationsFolder: before });
    const q = (sql: string, params: unknown[] = []) => db.pool.query(sql, params);
    await q(`insert into tenants (id, name, tier) values ('ten_m', 'm', 'team'), ('ten_n', 'n', 'team')`);
    const cost = (tenant: string, requestId: string, createdAt: string, usd: number) =>
      q(
        `insert into cost_logs (tenant_id, request_id, provider, model, input_tokens, output_tokens, cost, created_at) values ($1, $2, 'openai', 'gpt-4o', 1, 1, $3, $4)`,
        [tenant, requestId, usd, createdAt],
      );
    // req_1: three calls, two of them logged in the same millisecond; req_2: one call; the same
    // request id in another workspace; and a batch that was stored twice (what this fixes).
    await cost('ten_m', 'req_1', '2026-01-01T00:00:00.000Z', 0.1);
    await cost('ten_m', 'req_1', '2026-01-01T00:00:00.000Z', 0.2);
    await cost('ten_m', 'req_1', '2026-01-01T00:00:01.000Z', 0.3);
    await cost('ten_m', 'req_2', '2026-01-01T00:00:00.000Z', 0.4);
    await cost('ten_n', 'req_1', '2026-01-01T00:00:00.000Z', 0.5);
    await cost('ten_n', 'req_1', '2026-01-01T00:00:00.000Z', 0.5);
    const totals = async () =>
      (await q(`select tenant_id, calls::int, cost::float8 from analytics_cost_totals order by tenant_id`)).rows;
    const totalsBefore = await totals();

    await runMigrations(db);
    const { rows } = await q(`select tenant_id, request_id, seq from cost_logs order by id`);
    expect(rows.map((r) => `${r.tenant_id}/${r.request_id}/${r.seq}`)).toEqual([
      'ten_m/req_1/0',
      'ten_m/req_1/1',
      'ten_m/req_1/2',
      'ten_m/req_2/0',
      'ten_n/req_1/0',
      'ten_n/req_1/1',
    ]);
    // The rows themselves, and so the rollups, are unchanged.
    expect(await totals()).toEqual(totalsBefore);

    // From now on a row sent again under its key is skipped, and the triggers do not count it.
    const keyed = `insert into cost_logs (tenant_id, request_id, provider, model, input_tokens, output_tokens, cost, created_at, seq)
      values ('ten_m', 'req_3', 'openai', 'gpt-4o', 1, 1, 0.25, '2026-01-02T00:00:00.000Z', 0)
      on conflict (tenant_id, request_id, created_at, seq) do nothing`;
    expect((await q(keyed)).rowCount).toBe(1);
    expect((await q(keyed)).rowCount).toBe(0);
    expect((await totals()).find((r) => r.tenant_id === 'ten_m')).toEqual({ tenant_id: 'ten_m', calls: 5, cost: 1.25 });
  });
});

describe('migration 0009_embeddings_endpoint', () => {
  it('takes the embeddings calls logged before it out of the chat analytics, with their feedback, and keeps chat rows as they were', async () => {
    const { handle: db, oldMigrations: before } = await databaseBefore('0009');
    await migrate(db.db, { migrationsFolder: before });
    const q = (sql: string, params: unknown[] = []) => db.pool.query(sql, params);
    await q(`insert into tenants (id, name, tier) values ('ten_m', 'm', 'team')`);
    const request = (id: string, model: string, latency: number, outputTokens: number) =>
      q(
        `insert into requests (id, tenant_id, created_at, latency_ms, routed_by, provider, model, input_tokens, output_tokens, status)
         values ($1, 'ten_m', '2026-01-01T00:10:00Z', $2, 'user-override', 'openai', $3, 10, $4, 'ok')`,
        [id, latency, model, outputTokens],
      );
    await request('req_chat', 'gpt-4o-mini', 100, 20);
    await request('req_emb', 'text-embedding-3-small', 900, 0);
    await q(
      `insert into feedback (id, tenant_id, request_id, score, source) values ('fb_1', 'ten_m', 'req_chat', 4, 'user'), ('fb_2', 'ten_m', 'req_emb', 1, 'user')`,
    );
    const hourly = async () =>
      (
        await q(
          `select model, requests::int, latency_max, feedback_count::int from analytics_request_hourly order by model`,
        )
      ).rows;
    expect(await hourly()).toHaveLength(2);

    await runMigrations(db);
    expect((await q(`select id, endpoint from requests order by id`)).rows).toEqual([
      { id: 'req_chat', endpoint: 'chat' },
      { id: 'req_emb', endpoint: 'embeddings' },
    ]);
    expect((await q(`select id from feedback`)).rows).toEqual([{ id: 'fb_1' }]);
    expect(await hourly()).toEqual([{ model: 'gpt-4o-mini', requests: 1, latency_max: 100, feedback_count: 1 }]);
    expect((await q(`select sum(requests)::int as n from analytics_request_totals`)).rows[0].n).toBe(1);

    // From now on embeddings rows are not counted, whether added or removed.
    await q(`insert into requests (id, tenant_id, created_at, latency_ms, routed_by, provider, model, status, endpoint)
             values ('req_emb2', 'ten_m', '2026-01-01T00:20:00Z', 5000, 'user-override', 'openai', 'text-embedding-3-large', 'ok', 'embeddings')`);
    expect(await hourly()).toEqual([{ model: 'gpt-4o-mini', requests: 1, latency_max: 100, feedback_count: 1 }]);
    await q(`delete from requests where id in ('req_emb', 'req_emb2')`);
    expect(await hourly()).toEqual([{ model: 'gpt-4o-mini', requests: 1, latency_max: 100, feedback_count: 1 }]);
  });
});
