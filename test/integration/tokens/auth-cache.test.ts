import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, type DbHandle } from '../../../server/db/client.js';
import { hashToken } from '../../../server/lib/crypto.js';
import { PgListener } from '../../../server/db/listener.js';
import { createLogger } from '../../../server/lib/logger.js';
import { Authenticator } from '../../../server/modules/tokens/authenticator.js';
import { startOwnPostgres, type OwnPostgres } from '../../support/own-postgres.js';
import { startTcpRelay } from '../../support/tcp-relay.js';

// The token cache: refreshed by a timer, all tokens in use in one query, and serving the tokens it
// knows while the database is unreachable. This file runs its own PostgreSQL so it can stop it.

let db: OwnPostgres;
let handle: DbHandle;

beforeAll(async () => {
  db = await startOwnPostgres('auth');
  handle = db.handle;
  await handle.pool.query(`insert into tenants (id, name, tier) values ('ten_a', 'a', 'team')`);
}, 120_000);

afterAll(() => db?.close());

let n = 0;
async function token(): Promise<{ id: string; secret: string }> {
  const id = `tok_${++n}`;
  const secret = `gw_secret_${n}_${Date.now()}`;
  await handle.pool.query(
    `insert into api_tokens (id, tenant_id, name, prefix, hash, spend_limit_usd) values ($1, 'ten_a', $1, 'gw_', $2, 1)`,
    [id, hashToken(secret)],
  );
  return { id, secret };
}

async function until(check: () => Promise<boolean>, timeoutMs = 4_000): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await sleep(50);
  }
  return Date.now() - started;
}

describe('token cache', () => {
  it('sees changes made elsewhere within about a second, without a request asking for them', async () => {
    const auth = new Authenticator({ db: handle.db });
    try {
      const a = await token();
      const b = await token();
      expect((await auth.authenticate(`Bearer ${a.secret}`)).spentUsd).toBe(0);
      expect((await auth.authenticate(`Bearer ${b.secret}`)).tokenId).toBe(b.id);

      // Another node's log writer commits a cost row for a, and another node disables b.
      await handle.pool.query(
        `insert into token_spend (token_id, tenant_id, spent_usd, calls) values ($1, 'ten_a', 0.25, 1)`,
        [a.id],
      );
      await handle.pool.query(`update api_tokens set enabled = false where id = $1`, [b.id]);
      const waited = await until(async () => (await auth.authenticate(`Bearer ${a.secret}`)).spentUsd === 0.25);
      expect(waited).toBeLessThan(2_500);
      await expect(auth.authenticate(`Bearer ${b.secret}`)).rejects.toMatchObject({ type: 'auth_error' });
    } finally {
      await auth.close();
    }
  });

  it('answers each spelling of a header as its token, and refuses a malformed one every time (the header-to-hash memo)', async () => {
    const auth = new Authenticator({ db: handle.db });
    try {
      const a = await token();
      for (const header of [`Bearer ${a.secret}`, `bearer   ${a.secret} `, `Bearer ${a.secret}`]) {
        expect((await auth.authenticate(header)).tokenId).toBe(a.id);
      }
      for (let i = 0; i < 2; i++) {
        await expect(auth.authenticate(`Token ${a.secret}`)).rejects.toMatchObject({
          type: 'auth_error',
          message: expect.stringContaining('Malformed'),
        });
        await expect(auth.authenticate(`Bearer ${a.secret}x`)).rejects.toMatchObject({
          type: 'auth_error',
          message: expect.stringContaining('Invalid'),
        });
      }
    } finally {
      await auth.close();
    }
  });

  it("keeps counting its own calls' spend across a refresh that read the database before their cost rows reached it", async () => {
    const auth = new Authenticator({ db: handle.db });
    try {
      const a = await token();
      const first = await auth.authenticate(`Bearer ${a.secret}`);
      auth.addSpend(first, 0.7);
      // The timer re-reads the token (spend limit 1) and finds nothing spent: the call's cost row
      // has not been committed yet.
      const refreshed = await until(async () => (await auth.authenticate(`Bearer ${a.secret}`)) !== first);
      expect(refreshed).toBeLessThan(2_500);
      const current = await auth.authenticate(`Bearer ${a.secret}`);
      expect(current.spentUsd).toBe(0);
      expect(auth.spentOf(current)).toBeCloseTo(0.7, 10);
      // A call that started before the refresh ends with the old principal in hand: still counted.
      auth.addSpend(first, 0.5);
      expect(auth.spentOf(current)).toBeCloseTo(1.2, 10);
      // Once committed, the database's figure is the same or larger, and the larger one counts.
      await handle.pool.query(
        `insert into token_spend (token_id, tenant_id, spent_usd, calls) values ($1, 'ten_a', 1.5, 3)`,
        [a.id],
      );
      await until(async () => (await auth.authenticate(`Bearer ${a.secret}`)).spentUsd === 1.5);
      expect(auth.spentOf(await auth.authenticate(`Bearer ${a.secret}`))).toBe(1.5);
    } finally {
      await auth.close();
    }
  });

  it("keeps a limited token's own spend however long the database takes to show it (an outage holding the cost rows back)", async () => {
    let offset = 0;
    const auth = new Authenticator({ db: handle.db, now: () => Date.now() + offset });
    try {
      const a = await token();
      const p = await auth.authenticate(`Bearer ${a.secret}`);
      auth.addSpend(p, 1.5);
      // Two minutes on, its cost rows still not in the database: the spend still counts.
      offset = 120_000;
      const refreshedAt = Date.now();
      await until(async () => Date.now() - refreshedAt > 1_500);
      expect(auth.spentOf(await auth.authenticate(`Bearer ${a.secret}`))).toBeCloseTo(1.5, 10);
      // Once the database shows as much, its figure is the one used.
      await handle.pool.query(
        `insert into token_spend (token_id, tenant_id, spent_usd, calls) values ($1, 'ten_a', 1.5, 1)`,
        [a.id],
      );
      await until(async () => (await auth.authenticate(`Bearer ${a.secret}`)).spentUsd === 1.5);
      expect(auth.spentOf(await auth.authenticate(`Bearer ${a.secret}`))).toBe(1.5);
    } finally {
      await auth.close();
    }
  });

  it('does not hold calls with a known token while the database stops answering without refusing (a partition)', async () => {
    const relay = await startTcpRelay(handle.url);
    const viaRelay = connectDatabase(relay.url, 2);
    const auth = new Authenticator({ db: viaRelay.db });
    const known = await token();
    try {
      expect((await auth.authenticate(`Bearer ${known.secret}`)).tokenId).toBe(known.id);
      relay.silence();
      // Past the point where a cached answer (a token with a spend limit) is read again on the request path.
      await sleep(2_200);
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        const started = Date.now();
        expect((await auth.authenticate(`Bearer ${known.secret}`)).tokenId).toBe(known.id);
        times.push(Date.now() - started);
      }
      // One short wait for the re-read at most, not the database's silence (pool: 5 s to connect, no bound on a query).
      expect(times.filter((t) => t > 200)).toHaveLength(1);
      expect(Math.max(...times)).toBeLessThan(1_000);
    } finally {
      await auth.close().catch(() => undefined);
      relay.close();
      await viaRelay.close().catch(() => undefined);
    }
  }, 30_000);

  it('keeps serving a known token through a partition that follows a reconnect of its LISTEN connection; an unknown one gets 503 in bounded time', async () => {
    const relay = await startTcpRelay(handle.url);
    const viaRelay = connectDatabase(relay.url, 2);
    const listener = new PgListener(handle.url, createLogger('silent'), 100);
    await listener.start();
    const auth = new Authenticator({ db: viaRelay.db, listener });
    await auth.start();
    const known = await token();
    const unknown = await token();
    try {
      expect((await auth.authenticate(`Bearer ${known.secret}`)).tokenId).toBe(known.id);
      // The LISTEN connection drops and comes back (announcements may have been missed)...
      const { rows } = await handle.pool.query(
        `select pg_terminate_backend(pid) as ended from pg_stat_activity where pid <> pg_backend_pid() and query ilike 'listen%'`,
      );
      expect(rows.length).toBeGreaterThan(0);
      await sleep(600);
      // ...then the database stops answering.
      relay.silence();
      let started = Date.now();
      expect((await auth.authenticate(`Bearer ${known.secret}`)).tokenId).toBe(known.id);
      expect(Date.now() - started).toBeLessThan(1_000);
      started = Date.now();
      await expect(auth.authenticate(`Bearer ${unknown.secret}`)).rejects.toMatchObject({
        type: 'service_unavailable',
      });
      expect(Date.now() - started).toBeLessThan(7_000);
      // The database answers again: the token works at once, not after the silenced read gives up.
      relay.resume();
      expect((await auth.authenticate(`Bearer ${unknown.secret}`)).tokenId).toBe(unknown.id);
    } finally {
      await auth.close().catch(() => undefined);
      await listener.close().catch(() => undefined);
      relay.close();
      await viaRelay.close().catch(() => undefined);
    }
  }, 30_000);

  it('serves the tokens it knows while the database is down; unknown tokens fail without a 401', async () => {
    const auth = new Authenticator({ db: handle.db });
    const known = await token();
    const unknown = await token();
    try {
      expect((await auth.authenticate(`Bearer ${known.secret}`)).tokenId).toBe(known.id);
      await db.stop();
      // Past the point where a cached answer is read again on the request path.
      await sleep(2_500);
      expect((await auth.authenticate(`Bearer ${known.secret}`)).tokenId).toBe(known.id);
      // Not a refusal of the token: the database could not be asked (503).
      await expect(auth.authenticate(`Bearer ${unknown.secret}`)).rejects.toMatchObject({
        type: 'service_unavailable',
      });
    } finally {
      await db.restart();
      await auth.close();
    }
    const after = new Authenticator({ db: handle.db });
    try {
      await until(
        async () => (await after.authenticate(`Bearer ${unknown.secret}`).catch(() => null))?.tokenId === unknown.id,
        10_000,
      );
    } finally {
      await after.close();
    }
  }, 30_000);
});
