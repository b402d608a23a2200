import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, type DbHandle } from '../../../server/db/client.js';
import {
  LogWriter,
  type CommittedRequest,
  type CostLogRow,
  type RequestLogRow,
} from '../../../server/gateway/log-writer.js';
import { newId, newTimeOrderedId } from '../../../server/lib/ids.js';
import { createLogger } from '../../../server/lib/logger.js';
import { createTestDatabase } from '../../support/database.js';

// A log batch whose COMMIT went through but whose acknowledgement was lost is sent again by the
// log writer. Its rows must not be stored twice: not the request rows, not the cost rows, and so
// not the cost rollups or a token's spend that the cost rows' insert trigger adds up.

let database: { url: string; drop(): Promise<void> };
let handle: DbHandle;

beforeAll(async () => {
  database = await createTestDatabase();
  handle = connectDatabase(database.url, 4);
});

afterAll(async () => {
  await handle?.close();
  await database?.drop();
});

/**
 * The pool of a gateway whose connection drops right after the database committed the first log
 * batch: the batch is stored, and the writer is told it failed.
 */
function poolLosingFirstAcknowledgement(pool: pg.Pool): { pool: pg.Pool; lost: () => boolean } {
  let lost = false;
  const connect = async () => {
    const client = await pool.connect();
    return new Proxy(client, {
      get(target, prop, receiver) {
        if (prop !== 'query') {
          const value = Reflect.get(target, prop, receiver);
          return typeof value === 'function' ? value.bind(target) : value;
        }
        return async (config: pg.QueryConfig) => {
          const result = await target.query(config);
          if (!lost && config.name?.startsWith('gateway_log_batch')) {
            lost = true;
            throw new Error('Connection terminated unexpectedly');
          }
          return result;
        };
      },
    });
  };
  return { pool: { connect } as unknown as pg.Pool, lost: () => lost };
}

function requestRow(tenantId: string, tokenId: string | null, createdAt: Date, cached = false): RequestLogRow {
  return {
    id: newTimeOrderedId('req'),
    tenantId,
    createdAt,
    tokenId,
    latencyMs: cached ? 0 : 40,
    taskType: null,
    complexity: null,
    routedBy: 'user-override',
    provider: 'openai',
    model: 'gpt-4o-mini',
    usedFallback: !cached,
    usedLlmFallback: false,
    cached,
    cacheType: cached ? 'exact' : null,
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
  };
}

function costRow(
  tenantId: string,
  requestId: string,
  tokenId: string | null,
  cost: number,
  createdAt: Date,
  status: 'ok' | 'error' = 'ok',
): CostLogRow {
  return {
    tenantId,
    requestId,
    tokenId,
    provider: 'openai',
    model: 'gpt-4o-mini',
    inputTokens: 10,
    outputTokens: 20,
    cachedInputTokens: 0,
    cacheWrite5mTokens: 0,
    cacheWrite1hTokens: 0,
    serviceTier: null,
    cost,
    status,
    createdAt,
  };
}

async function query<T extends pg.QueryResultRow = any>(text: string, values: unknown[] = []): Promise<T[]> {
  return (await handle.pool.query<T>(text, values)).rows;
}

describe('cost rows are idempotent', () => {
  it('a batch retried after its commit was acknowledged too late stores each row once and adds each cost once', async () => {
    const tenantId = newId('ten');
    const tokenId = newId('tok');
    const lossy = poolLosingFirstAcknowledgement(handle.pool);
    const committed: CommittedRequest[] = [];
    const writer = new LogWriter({
      pool: lossy.pool,
      logger: createLogger('silent'),
      flushIntervalMs: 5,
      maxBuffered: 1_000,
      onCommitted: (rows) => committed.push(...rows),
    });

    // A fallback: the failed attempt and the answer logged in the same millisecond (only seq tells
    // them apart), a plain call, a cache hit, and a judge call that has no request row.
    const now = new Date();
    const fallback = requestRow(tenantId, tokenId, now);
    const plain = requestRow(tenantId, tokenId, now);
    const cached = requestRow(tenantId, tokenId, now, true);
    writer.write(fallback, [
      costRow(tenantId, fallback.id, tokenId, 0.001, now, 'error'),
      costRow(tenantId, fallback.id, tokenId, 0.002, now),
    ]);
    writer.write(plain, [costRow(tenantId, plain.id, tokenId, 0.004, now)]);
    writer.write(cached, []);
    writer.writeCosts([costRow(tenantId, `judge-${plain.id}`, null, 0.008, now)]);
    await writer.drain();

    expect(lossy.lost()).toBe(true);
    expect(writer.stats.failedFlushes).toBe(1);
    const perRequest = await query<{ request_id: string; seqs: number[] }>(
      'select request_id, array_agg(seq order by seq) as seqs from cost_logs where tenant_id = $1 group by request_id',
      [tenantId],
    );
    expect(Object.fromEntries(perRequest.map((r) => [r.request_id, r.seqs]))).toEqual({
      [fallback.id]: [0, 1],
      [plain.id]: [0],
      [`judge-${plain.id}`]: [0],
    });
    expect(await query('select count(*)::int as n from requests where tenant_id = $1', [tenantId])).toEqual([{ n: 3 }]);
    // token_spend and the cost rollups, kept by the insert triggers, saw each row once.
    expect(
      await query('select spent_usd::float8 as usd, calls::int from token_spend where token_id = $1', [tokenId]),
    ).toEqual([{ usd: 0.007, calls: 3 }]);
    expect(
      await query('select calls::int, errors::int, cost::float8 from analytics_cost_totals where tenant_id = $1', [
        tenantId,
      ]),
    ).toEqual([{ calls: 4, errors: 1, cost: 0.015 }]);
    expect(
      await query('select sum(calls)::int as calls from analytics_cost_hourly where tenant_id = $1', [tenantId]),
    ).toEqual([{ calls: 4 }]);
    // The live tap hears of each request once, with its cost.
    expect(committed.map((c) => c.row.id).sort()).toEqual([fallback.id, plain.id, cached.id].sort());
    expect(committed.find((c) => c.row.id === fallback.id)?.costUsd).toBeCloseTo(0.003, 12);
  });

  it('keeps the rows of every call that reuses a request id (a judge sample graded again)', async () => {
    const tenantId = newId('ten');
    const writer = new LogWriter({
      pool: handle.pool,
      logger: createLogger('silent'),
      flushIntervalMs: 5,
      maxBuffered: 1_000,
    });
    const requestId = `judge-${newTimeOrderedId('req')}`;
    const first = new Date(Date.now() - 60_000);
    writer.writeCosts([costRow(tenantId, requestId, null, 0, first, 'error')]);
    await writer.drain();
    const again = new LogWriter({
      pool: handle.pool,
      logger: createLogger('silent'),
      flushIntervalMs: 5,
      maxBuffered: 1_000,
    });
    again.writeCosts([costRow(tenantId, requestId, null, 0.001, new Date())]);
    await again.drain();
    expect(
      await query('select status, seq from cost_logs where tenant_id = $1 order by created_at', [tenantId]),
    ).toEqual([
      { status: 'error', seq: 0 },
      { status: 'ok', seq: 0 },
    ]);
  });
});
