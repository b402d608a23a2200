// Write-path benchmark for the analytics rollups: times the log writer's group commit (one
// transaction with N request rows and their cost rows) against a database, so the cost the
// rollup triggers add to every batch can be compared with and without them.
//
//   DATABASE_URL=postgres://... npx tsx test/bench/analytics-write.bench.ts
//
// Without DATABASE_URL an embedded PostgreSQL is started in a temporary directory and migrated.
// BENCH_BATCHES (default 40) batches of BENCH_BATCH_ROWS (default 1000) requests are written, each
// request with one cost row; rows go to a fresh tenant id and are deleted afterwards.

import { performance } from 'node:perf_hooks';
import { connectDatabase } from '../../server/db/client.js';
import { runMigrations } from '../../server/db/migrate.js';
import { LogWriter, type CostLogRow, type RequestLogRow } from '../../server/gateway/log-writer.js';
import { newId } from '../../server/lib/ids.js';
import { createLogger } from '../../server/lib/logger.js';
import { cleanup, installCleanupHandlers, startDatabase } from './lib/processes.js';

const BATCHES = Number(process.env.BENCH_BATCHES ?? 40);
const ROWS = Number(process.env.BENCH_BATCH_ROWS ?? 1000);
const log = (line: string) => process.stdout.write(`${line}\n`);

const MODELS: Array<[string, string]> = [
  ['openai', 'gpt-4o-mini'],
  ['openai', 'gpt-4o'],
  ['anthropic', 'claude-3-5-haiku-20241022'],
  ['gemini', 'gemini-2.0-flash'],
];
const ROUTED_BY = ['classification', 'routing-hint', 'user-override', 'ab-test', 'adaptive', 'exploration'];
const TASKS = ['coding', 'creative', 'summarization', 'qa', 'general'];

function rows(tenantId: string, i: number): [RequestLogRow, CostLogRow[]] {
  const id = newId('req');
  const now = new Date();
  const [provider, model] = MODELS[i % MODELS.length]!;
  const routedBy = ROUTED_BY[i % ROUTED_BY.length]!;
  const bypass = routedBy === 'user-override' || routedBy === 'ab-test';
  const cached = i % 5 === 0;
  const request: RequestLogRow = {
    id, tenantId, createdAt: now, tokenId: null, latencyMs: cached ? 0 : 100 + (i % 900), taskType: bypass ? null : TASKS[i % TASKS.length]!, complexity: bypass ? null : 'simple',
    routedBy, provider, model, usedFallback: i % 20 === 0, usedLlmFallback: false, cached, cacheType: cached ? 'exact' : null,
    tokensSavedInput: cached ? 40 : 0, tokensSavedOutput: cached ? 60 : 0, inputTokens: cached ? 0 : 40, outputTokens: cached ? 0 : 60,
    streamed: false, status: 'ok', errorType: null, abTestId: null, variant: null, promptVersionId: null,
  };
  const costs: CostLogRow[] = cached ? [] : [{ tenantId, requestId: id, provider, model, inputTokens: 40, outputTokens: 60, cost: 0.0000426, status: 'ok', createdAt: now }];
  return [request, costs];
}

async function main(): Promise<void> {
  installCleanupHandlers(10 * 60_000);
  let url = process.env.DATABASE_URL;
  if (!url) url = (await startDatabase()).url;
  const handle = connectDatabase(url, 4);
  try {
    await runMigrations(handle);
    const { rows: triggers } = await handle.pool.query<{ n: string }>(
      `select count(*) n from pg_trigger where not tgisinternal and tgrelid in ('requests'::regclass, 'cost_logs'::regclass)`,
    );
    log(`database: ${url.replace(/:[^:@/]*@/, ':***@')}; triggers on requests/cost_logs: ${triggers[0]?.n ?? 0}`);
    const tenantId = newId('ten');
    const writer = new LogWriter({ pool: handle.pool, logger: createLogger('silent'), flushIntervalMs: 60_000, batchSize: Number.MAX_SAFE_INTEGER, maxBuffered: 10 * ROWS * 4 });
    const times: number[] = [];
    let costRows = 0;
    // Warm-up batch (plans, caches), not counted.
    for (let b = -2; b < BATCHES; b++) {
      // A fresh writer per batch: drain() closes the writer it runs on.
      const w = b < 0 ? writer : new LogWriter({ pool: handle.pool, logger: createLogger('silent'), flushIntervalMs: 60_000, batchSize: Number.MAX_SAFE_INTEGER, maxBuffered: 10 * ROWS * 4 });
      for (let i = 0; i < ROWS; i++) {
        const [r, c] = rows(tenantId, (b + 2) * ROWS + i);
        if (b >= 0) costRows += c.length;
        w.write(r, c);
      }
      const started = performance.now();
      await w.drain();
      if (b >= 0) times.push(performance.now() - started);
    }
    times.sort((a, c) => a - c);
    const total = times.reduce((a, c) => a + c, 0);
    const p = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
    log(`batches: ${BATCHES} x ${ROWS} requests (+${Math.round(costRows / BATCHES)} cost rows each)`);
    log(`per batch: p50 ${p(0.5).toFixed(1)} ms, p90 ${p(0.9).toFixed(1)} ms, max ${times[times.length - 1]!.toFixed(1)} ms`);
    log(`throughput: ${Math.round((BATCHES * ROWS) / (total / 1000)).toLocaleString('en-US')} request rows/s`);
    await handle.pool.query('delete from cost_logs where tenant_id = $1', [tenantId]);
    await handle.pool.query('delete from requests where tenant_id = $1', [tenantId]);
  } finally {
    await handle.close();
    await cleanup();
  }
}

await main();
