import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LISTENER_APPLICATION_NAME, listenersPresent, notify, PgListener } from '../../../server/db/listener.js';
import { createLogger } from '../../../server/lib/logger.js';
import { ROUTING_CHANNEL } from '../../../server/gateway/routing/state.js';
import { TOKENS_CHANNEL } from '../../../server/modules/tokens/repository.js';
import { createTestDatabase } from '../../support/database.js';
import { startTestEnv, type TestEnv } from '../../support/harness.js';
import { startTcpRelay } from '../../support/tcp-relay.js';

// The process's one LISTEN connection: every channel on it, each to its own subscriber, and all of
// them back (with a reload signal) after the connection drops.

const logger = createLogger('silent');
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await sleep(20);
  }
}

async function listenerBackends(): Promise<number[]> {
  const { rows } = await pool.query<{ pid: number }>(
    'select pid from pg_stat_activity where datname = current_database() and application_name = $1',
    [LISTENER_APPLICATION_NAME],
  );
  return rows.map((r) => r.pid);
}

function recorder() {
  const got: string[] = [];
  let reconnects = 0;
  return { got, onMessage: (p: string) => got.push(p), onReconnect: () => reconnects++, reconnects: () => reconnects };
}

describe('PgListener', () => {
  it('hears several channels on one connection, each at its own subscriber, and again after the connection drops', async () => {
    const listener = new PgListener(database.url, logger, 100);
    const a = recorder();
    const b = recorder();
    await listener.listen('test_a', a.onMessage, a.onReconnect);
    await listener.start();
    await listener.listen('test_b', b.onMessage, b.onReconnect);
    try {
      expect(await listenerBackends()).toHaveLength(1);
      expect(listener.listening('test_a') && listener.listening('test_b')).toBe(true);
      expect(listener.listening('test_c')).toBe(false);

      await notify(pool, 'test_a', 'one');
      await notify(pool, 'test_b', 'two');
      await notify(pool, 'test_c', 'nobody');
      await until(() => a.got.length === 1 && b.got.length === 1);
      expect(a.got).toEqual(['one']);
      expect(b.got).toEqual(['two']);

      const [pid] = await listenerBackends();
      await pool.query('select pg_terminate_backend($1)', [pid]);
      await until(() => !listener.listening('test_a'));
      // A channel added while the connection is down is LISTENed when it comes back.
      const c = recorder();
      await listener.listen('test_c', c.onMessage, c.onReconnect);
      await until(() => listener.listening('test_a'));
      expect([a.reconnects(), b.reconnects(), c.reconnects()]).toEqual([1, 1, 1]);
      const backends = await listenerBackends();
      expect(backends).toHaveLength(1);
      expect(backends[0]).not.toBe(pid);

      await notify(pool, 'test_a', 'three');
      await notify(pool, 'test_b', 'four');
      await notify(pool, 'test_c', 'five');
      await until(() => a.got.length === 2 && b.got.length === 2 && c.got.length === 1);
      expect([a.got[1], b.got[1], c.got[0]]).toEqual(['three', 'four', 'five']);
    } finally {
      await listener.close();
    }
    await until(async () => (await listenerBackends()).length === 0);
    expect(listener.listening('test_a')).toBe(false);
  });

  it('replaces a connection that stopped answering without closing (a partition), and hears again', async () => {
    const relay = await startTcpRelay(database.url);
    const listener = new PgListener(relay.url, logger, 50, { everyMs: 100, timeoutMs: 300 });
    const a = recorder();
    await listener.listen('test_silent', a.onMessage, a.onReconnect);
    await listener.start();
    try {
      await notify(pool, 'test_silent', 'before');
      await until(() => a.got.length === 1);
      // The current connection goes silent; new ones pass again once it has been given up.
      relay.silence();
      await until(() => !listener.listening('test_silent'), 3_000);
      relay.resume();
      await until(() => listener.listening('test_silent') && a.reconnects() === 1, 3_000);
      await notify(pool, 'test_silent', 'after');
      await until(() => a.got.includes('after'));
    } finally {
      await listener.close();
      relay.close();
    }
  });

  it('gives a channel several subscribers, and UNLISTENs it when the last one leaves', async () => {
    const listener = new PgListener(database.url, logger);
    await listener.start();
    const a = recorder();
    const b = recorder();
    try {
      const offA = await listener.listen('test_shared', a.onMessage);
      const offB = await listener.listen('test_shared', b.onMessage);
      await notify(pool, 'test_shared', 'both');
      await until(() => a.got.length === 1 && b.got.length === 1);
      await offA();
      expect(listener.listening('test_shared')).toBe(true);
      await notify(pool, 'test_shared', 'b only');
      await until(() => b.got.length === 2);
      expect(a.got).toEqual(['both']);
      await offB();
      expect(listener.listening('test_shared')).toBe(false);
    } finally {
      await listener.close();
    }
  });

  it('advertises a channel to other processes while it is listened', async () => {
    const listener = new PgListener(database.url, logger);
    await listener.start();
    try {
      expect(await listenersPresent(pool, 'test_advertised')).toBe(false);
      const off = await listener.listen('test_advertised', () => undefined, undefined, { advertise: true });
      const plain = await listener.listen('test_plain', () => undefined);
      expect(await listenersPresent(pool, 'test_advertised')).toBe(true);
      expect(await listenersPresent(pool, 'test_plain')).toBe(false);
      await off();
      await plain();
      expect(await listenersPresent(pool, 'test_advertised')).toBe(false);
      // And again on a connection that came back.
      await listener.listen('test_advertised', () => undefined, undefined, { advertise: true });
      const [pid] = await listenerBackends();
      await pool.query('select pg_terminate_backend($1)', [pid]);
      await until(
        async () => (await listenerBackends()).some((p) => p !== pid) && listener.listening('test_advertised'),
      );
      expect(await listenersPresent(pool, 'test_advertised')).toBe(true);
    } finally {
      await listener.close();
    }
    await until(async () => !(await listenersPresent(pool, 'test_advertised')));
  });

  it('fails to start when the database cannot be reached', async () => {
    const listener = new PgListener('postgres://127.0.0.1:9/none', logger, 100);
    await expect(listener.start()).rejects.toThrow();
    await listener.close();
  });
});

describe('a gateway process', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await startTestEnv();
  }, 60_000);
  afterAll(() => env?.close());

  it('holds one LISTEN connection, and hears token changes made elsewhere through it after it drops', async () => {
    const backends = async () =>
      (
        await pool.query<{ pid: number }>(
          'select pid from pg_stat_activity where datname = $1 and application_name = $2',
          [new URL(env.databaseUrl).pathname.slice(1), LISTENER_APPLICATION_NAME],
        )
      ).rows.map((r) => r.pid);
    const [pid, ...more] = await backends();
    expect(pid).toBeDefined();
    expect(more).toEqual([]);
    await pool.query('select pg_terminate_backend($1)', [pid]);
    await until(async () => {
      const now = await backends();
      return now.length === 1 && now[0] !== pid;
    });
    await until(
      () => env.services.listener.listening(TOKENS_CHANNEL) && env.services.listener.listening(ROUTING_CHANNEL),
    );

    const owner = await env.createTenant();
    const created = await env.http('POST', '/v1/admin/tokens', {
      token: owner.token,
      body: { name: 'listened', admin: true },
    });
    const status = () => env.http('GET', '/v1/admin/tokens', { token: created.body.token }).then((r) => r.status);
    expect(await status()).toBe(200);
    // Disabled by "another process": straight in the database, announced on the tokens channel.
    const other = new pg.Client({ connectionString: env.databaseUrl });
    await other.connect();
    try {
      await other.query('update api_tokens set enabled = false where id = $1', [created.body.id]);
      await other.query('select pg_notify($1, $2)', [TOKENS_CHANNEL, created.body.id]);
    } finally {
      await other.end();
    }
    const started = Date.now();
    await until(async () => (await status()) === 401, 5_000);
    // Without the announcement, a token without a spend limit is re-read only every 30 s.
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
