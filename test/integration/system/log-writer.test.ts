import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, type DbHandle } from '../../../server/db/client.js';
import { LogWriter, type CostLogRow, type RequestLogRow } from '../../../server/gateway/log-writer.js';
import { newId } from '../../../server/lib/ids.js';
import { createLogger } from '../../../server/lib/logger.js';
import { startOwnPostgres, type OwnPostgres } from '../../support/own-postgres.js';
import { startTcpRelay } from '../../support/tcp-relay.js';

// The log writer keeps rows while Postgres is down and writes them all once it is back. This file
// runs its own PostgreSQL so it can stop and restart it.

let db: OwnPostgres;
let handle: DbHandle;

beforeAll(async () => {
  db = await startOwnPostgres('logwriter');
  handle = db.handle;
}, 120_000);

afterAll(() => db?.close());

function row(tenantId: string): [RequestLogRow, CostLogRow[]] {
  const id = newId('req');
  const now = new Date();
  return [
    {
      id,
      tenantId,
      createdAt: now,
      tokenId: null,
      latencyMs: 12,
      taskType: null,
      complexity: null,
      routedBy: 'user-override',
      provider: 'openai',
      model: 'gpt-4o-mini',
      usedFallback: false,
      usedLlmFallback: false,
      cached: false,
      cacheType: null,
      tokensSavedInput: 0,
      tokensSavedOutput: 0,
      inputTokens: 10,
      outputTokens: 20,
      streamed: false,
      status: 'ok',
      errorType: null,
      abTestId: null,
      variant: null,
      promptVersionId: null,
      endpoint: 'chat',
    },
    [
      {
        tenantId,
        requestId: id,
        tokenId: null,
        provider: 'openai',
        model: 'gpt-4o-mini',
        inputTokens: 10,
        outputTokens: 20,
        cachedInputTokens: 0,
        cacheWrite5mTokens: 0,
        cacheWrite1hTokens: 0,
        serviceTier: null,
        cost: 0.0000135,
        status: 'ok',
        createdAt: now,
      },
    ],
  ];
}

async function count(table: string, tenantId: string): Promise<number> {
  const { rows } = await handle.pool.query(`select count(*)::int n from ${table} where tenant_id = $1`, [tenantId]);
  return rows[0].n;
}

async function eventually(check: () => Promise<boolean>, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('condition not met in time');
}

/**
 * The test database's pool, except that a log batch statement for which `fails()` says so is lost
 * with its connection (the statements are counted as they come).
 */
function poolFailingBatches(fails: () => boolean): never {
  const connect = async () => {
    const client = await handle.pool.connect();
    return new Proxy(client, {
      get(target, prop, receiver) {
        if (prop !== 'query') {
          const value = Reflect.get(target, prop, receiver);
          return typeof value === 'function' ? value.bind(target) : value;
        }
        return async (config: { name?: string }) => {
          if (config.name?.startsWith('gateway_log_batch') && fails())
            throw new Error('Connection terminated unexpectedly');
          return target.query(config as never);
        };
      },
    });
  };
  return { connect } as never;
}

describe('log writer', () => {
  it('group-commits rows in batches', async () => {
    const committed: number[] = [];
    const writer = new LogWriter({
      pool: handle.pool,
      logger: createLogger('silent'),
      flushIntervalMs: 20,
      maxBuffered: 10_000,
      onCommitted: (rows) => committed.push(rows.length),
    });
    const tenant = newId('ten');
    for (let i = 0; i < 300; i++) writer.write(...row(tenant));
    await writer.drain();
    expect(await count('requests', tenant)).toBe(300);
    expect(await count('cost_logs', tenant)).toBe(300);
    // Far fewer commits than rows.
    expect(committed.length).toBeLessThan(10);
    expect(committed.reduce((a, b) => a + b, 0)).toBe(300);
  });

  it('stores every field as written: text that needs escaping, nulls, booleans, millisecond timestamps, small costs', async () => {
    const tenant = newId('ten');
    const [request, costs] = row(tenant);
    const createdAt = new Date('2026-11-25T07:01:02.345Z');
    Object.assign(request, {
      createdAt,
      tokenId: 'tok_"quoted"\\back',
      taskType: 'code',
      complexity: null,
      routedBy: 'auto-ab',
      model: 'mödel/ünïcode ✓ \n tab\t',
      usedFallback: true,
      cached: true,
      cacheType: 'exact',
      tokensSavedInput: 7,
      latencyMs: 0,
      status: 'error',
      errorType: 'provider_error',
      variant: 'b',
      abTestId: 'ab_1',
    });
    Object.assign(costs[0]!, { createdAt, cost: 2.5e-7, inputTokens: 3, outputTokens: 0, status: 'error' });
    const writer = new LogWriter({
      pool: handle.pool,
      logger: createLogger('silent'),
      flushIntervalMs: 10,
      maxBuffered: 100,
    });
    writer.write(request, costs);
    // Encoded ahead (the next turn) and at flush time must read back the same.
    const [later, laterCosts] = row(tenant);
    await new Promise((r) => setImmediate(r));
    writer.write(later, laterCosts);
    await writer.drain();

    const { rows: stored } = await handle.pool.query(`select * from requests where id = $1`, [request.id]);
    expect(stored[0]).toMatchObject({
      tenant_id: tenant,
      created_at: createdAt,
      token_id: 'tok_"quoted"\\back',
      latency_ms: 0,
      task_type: 'code',
      complexity: null,
      routed_by: 'auto-ab',
      provider: 'openai',
      model: 'mödel/ünïcode ✓ \n tab\t',
      used_fallback: true,
      used_llm_fallback: false,
      cached: true,
      cache_type: 'exact',
      tokens_saved_input: 7,
      tokens_saved_output: 0,
      input_tokens: 10,
      output_tokens: 20,
      streamed: false,
      status: 'error',
      error_type: 'provider_error',
      ab_test_id: 'ab_1',
      variant: 'b',
      prompt_version_id: null,
    });
    const { rows: storedCosts } = await handle.pool.query(
      `select *, cost::text as cost_text from cost_logs where request_id = $1`,
      [request.id],
    );
    expect(storedCosts[0]).toMatchObject({
      tenant_id: tenant,
      token_id: null,
      provider: 'openai',
      model: 'gpt-4o-mini',
      input_tokens: 3,
      output_tokens: 0,
      status: 'error',
      created_at: createdAt,
    });
    expect(Number(storedCosts[0].cost_text)).toBeCloseTo(2.5e-7, 12);
    expect(await count('requests', tenant)).toBe(2);
    const { rows: other } = await handle.pool.query(`select created_at from requests where id = $1`, [later.id]);
    expect(other[0].created_at).toEqual(later.createdAt);
  });

  it('drops only the rows PostgreSQL rejects and commits the rest of their batch', async () => {
    const committed: string[] = [];
    const writer = new LogWriter({
      pool: handle.pool,
      logger: createLogger('silent'),
      flushIntervalMs: 60_000,
      maxBuffered: 10_000,
      onCommitted: (rows) => committed.push(...rows.map((c) => c.row.id)),
    });
    const tenant = newId('ten');
    const rows = Array.from({ length: 9 }, () => row(tenant));
    // A latency beyond int4's range cannot be stored: the whole statement fails with 22003. (Text
    // PostgreSQL cannot hold, such as NUL, is replaced when a row is encoded, so it fails nothing.)
    const [bad, badCosts] = rows[4]!;
    bad.latencyMs = 2 ** 31;
    for (const [r, c] of rows) writer.write(r, c);
    await writer.flushNow();
    expect(await count('requests', tenant)).toBe(8);
    expect(await count('cost_logs', tenant)).toBe(8);
    const { rows: left } = await handle.pool.query('select count(*)::int n from requests where id = $1', [bad.id]);
    expect(left[0].n).toBe(0);
    expect(writer.stats.rejectedRows).toBe(1 + badCosts.length);
    expect(writer.stats.failedFlushes).toBe(0);
    expect(committed).toHaveLength(8);
    expect(committed).not.toContain(bad.id);
    // Logging carries on.
    writer.write(...row(tenant));
    await writer.drain();
    expect(await count('requests', tenant)).toBe(9);
  });

  it('a connection lost while a rejected batch is split still counts and announces the part already committed', async () => {
    // The batch fails for its data, is retried whole, then split: the first half commits and the
    // connection drops before the second half runs. Nothing is announced twice or lost.
    let statements = 0;
    const pool = poolFailingBatches(() => ++statements === 4);
    const committed: string[] = [];
    const writer = new LogWriter({
      pool,
      logger: createLogger('silent'),
      flushIntervalMs: 5,
      maxBuffered: 10_000,
      onCommitted: (rows) => committed.push(...rows.map((c) => c.row.id)),
    });
    const tenant = newId('ten');
    const rows = Array.from({ length: 9 }, () => row(tenant));
    const [bad] = rows[6]!;
    bad.latencyMs = 2 ** 31;
    for (const [r, c] of rows) writer.write(r, c);
    await writer.drain();
    expect(statements).toBeGreaterThan(4);
    expect(writer.stats.failedFlushes).toBe(1);
    expect(await count('requests', tenant)).toBe(8);
    expect(await count('cost_logs', tenant)).toBe(8);
    expect(writer.stats.writtenRequests).toBe(8);
    expect(writer.stats.writtenCosts).toBe(8);
    expect(writer.stats.rejectedRows).toBe(2);
    expect([...committed].sort()).toEqual(
      rows
        .map(([r]) => r.id)
        .filter((id) => id !== bad.id)
        .sort(),
    );
  });

  it('retries a failed flush under steady traffic, not only once the traffic stops', async () => {
    // A full batch asks for a flush at once; after a failure that must still wait out the backoff,
    // not push the retry a backoff further with every write.
    let failures = 1;
    const pool = poolFailingBatches(() => failures-- > 0);
    const writer = new LogWriter({
      pool,
      logger: createLogger('silent'),
      flushIntervalMs: 20,
      maxBuffered: 100_000,
      batchSize: 10,
    });
    const tenant = newId('ten');
    let writing = true;
    const traffic = (async () => {
      while (writing) {
        writer.write(...row(tenant));
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    try {
      await eventually(async () => writer.stats.failedFlushes === 1);
      // Still writing: rows queued after the failure get committed meanwhile.
      await eventually(async () => writer.stats.writtenRequests > 20, 3_000);
    } finally {
      writing = false;
      await traffic;
      await writer.drain();
    }
    expect(writer.stats.dropped).toBe(0);
  });

  it('keeps rows while Postgres is stopped and writes them all after it restarts', async () => {
    const writer = new LogWriter({
      pool: handle.pool,
      logger: createLogger('silent'),
      flushIntervalMs: 20,
      maxBuffered: 10_000,
    });
    const tenant = newId('ten');
    for (let i = 0; i < 50; i++) writer.write(...row(tenant));
    await eventually(async () => (await count('requests', tenant)) === 50);

    await db.stop();
    for (let i = 0; i < 120; i++) writer.write(...row(tenant));
    await eventually(async () => writer.stats.failedFlushes > 0);
    expect(writer.stats.queuedRequests).toBe(120);

    await db.restart();
    await eventually(async () => (await count('requests', tenant)) === 170);
    expect(await count('cost_logs', tenant)).toBe(170);
    expect(writer.stats.dropped).toBe(0);
    await writer.drain();
  }, 60_000);

  it('reports a commit the database leaves unanswered (a partition) as failing, and counts its rows as waiting', async () => {
    const relay = await startTcpRelay(handle.url);
    const viaRelay = connectDatabase(relay.url, 2);
    const writer = new LogWriter({
      pool: viaRelay.pool,
      logger: createLogger('silent'),
      flushIntervalMs: 20,
      maxBuffered: 10_000,
      commitStuckMs: 300,
      commitTimeoutMs: 1_500,
    });
    const tenant = newId('ten');
    try {
      writer.write(...row(tenant));
      await eventually(async () => (await count('requests', tenant)) === 1);
      relay.silence();
      for (let i = 0; i < 3; i++) writer.write(...row(tenant));
      // The commit is sent and never answered (the relay drops what it carries, as a NAT that forgot
      // the connection): no flush fails yet, but nothing is committed either.
      await new Promise((r) => setTimeout(r, 100));
      expect(writer.stats.queuedRequests).toBe(3);
      expect(writer.stats.queuedCosts).toBe(3);
      expect(writer.failingSince).toBeUndefined();
      await new Promise((r) => setTimeout(r, 400));
      expect(writer.stats.failedFlushes).toBe(0);
      expect(writer.failingSince).toBeLessThanOrEqual(Date.now() - 300);
      relay.resume();
      // The lost commit times out, and its rows go again on a new connection.
      await eventually(async () => (await count('requests', tenant)) === 4);
      expect(writer.stats.failedFlushes).toBeGreaterThan(0);
      await eventually(async () => writer.failingSince === undefined && writer.stats.queuedRequests === 0);
    } finally {
      relay.resume();
      await writer.drain(5_000);
      relay.close();
      await viaRelay.close().catch(() => undefined);
    }
  }, 30_000);

  it('bounds memory: past maxBuffered the oldest rows are dropped and counted', async () => {
    const writer = new LogWriter({
      pool: handle.pool,
      logger: createLogger('silent'),
      flushIntervalMs: 60_000,
      maxBuffered: 10,
    });
    const tenant = newId('ten');
    for (let i = 0; i < 8; i++) writer.write(...row(tenant));
    expect(writer.stats.dropped).toBe(6);
    await writer.drain();
  });
});
