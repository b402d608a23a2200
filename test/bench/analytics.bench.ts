// Analytics benchmark: seeds one workspace with 1,000,000 request rows (and their cost and
// feedback rows) beside two other workspaces, then times every /v1/analytics endpoint through the
// real HTTP app and prints p50 and max per endpoint against the 100 ms target. Finally it times the
// log writer's batch insert with and without the analytics write path (rollup triggers and the
// latency index). It asserts nothing.
//
//   npx tsx test/bench/analytics.bench.ts
//
// DATABASE_URL: use that database instead of an embedded one (the write-path comparison then needs
// BENCH_WRITE_DDL=1, as it runs DDL). BENCH_REQUESTS: rows of the measured workspace (default
// 1,000,000). BENCH_QUICK=1: 100,000 rows and fewer calls. BENCH_CALLS: timed calls per endpoint
// (default 15, after 3 warm-up calls). BENCH_WRITE=0 skips the write-path phase.

import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { performance } from 'node:perf_hooks';
import Table from 'cli-table3';
import { createApp } from '../../server/app.js';
import { loadConfig } from '../../server/config.js';
import { connectDatabase } from '../../server/db/client.js';
import { runMigrations } from '../../server/db/migrate.js';
import { newId } from '../../server/lib/ids.js';
import { createLogger } from '../../server/lib/logger.js';
import { analyticsRouter } from '../../server/modules/analytics/router.js';
import { AnalyticsService } from '../../server/modules/analytics/service.js';
import { createServices } from '../../server/services.js';
import { appRouter } from '../../server/trpc/router.js';
import { lockInputCoercion } from '../../server/trpc/strict-inputs.js';
import { compareWritePath, formatWrite } from './analytics-write.bench.js';
import { cleanup, installCleanupHandlers, startDatabase } from './lib/processes.js';
import { seedAnalytics, vacuumAnalyze } from './seed-analytics.js';

const QUICK = process.env.BENCH_QUICK === '1';
const MAIN_REQUESTS = Number(process.env.BENCH_REQUESTS ?? (QUICK ? 100_000 : 1_000_000));
const OTHER_REQUESTS = Math.round(MAIN_REQUESTS / 4);
const CALLS = Number(process.env.BENCH_CALLS ?? (QUICK ? 5 : 15));
const WARMUP = 3;
const TARGET_MS = 100;

const log = (line: string) => process.stdout.write(`${line}\n`);

/** Until the analytics router is part of appRouter, graft its procedures on before the app is built. */
function ensureAnalyticsRoutes(): void {
  const procedures = appRouter._def.procedures as Record<string, unknown>;
  if ('analytics.overview' in procedures) return;
  lockInputCoercion(analyticsRouter);
  for (const [path, procedure] of Object.entries(analyticsRouter._def.procedures))
    procedures[`analytics.${path}`] = procedure;
}

interface Timing {
  name: string;
  p50: number;
  max: number;
  bytes: number;
}

async function time(base: string, token: string, name: string, path: string): Promise<Timing> {
  const samples: number[] = [];
  let bytes = 0;
  for (let i = 0; i < WARMUP + CALLS; i++) {
    const started = performance.now();
    const res = await fetch(base + path, { headers: { authorization: `Bearer ${token}` } });
    const text = await res.text();
    const elapsed = performance.now() - started;
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${text.slice(0, 300)}`);
    bytes = text.length;
    if (i >= WARMUP) samples.push(elapsed);
  }
  samples.sort((a, b) => a - b);
  return { name, p50: samples[Math.floor(samples.length / 2)]!, max: samples[samples.length - 1]!, bytes };
}

async function main(): Promise<void> {
  installCleanupHandlers(45 * 60_000);
  const external = process.env.DATABASE_URL;
  const url = external ?? (await startDatabase()).url;
  const config = loadConfig({
    DATABASE_URL: url,
    GATEWAY_MODE: 'multi',
    LOG_LEVEL: 'silent',
    GATEWAY_SIMULATOR: 'off',
    OLLAMA_BASE_URL: 'http://127.0.0.1:9/v1',
  });
  const handle = connectDatabase(url, 20);
  let server: Server | undefined;
  const services = createServices(config, handle, createLogger('silent'));
  try {
    await runMigrations(handle);
    ensureAnalyticsRoutes();
    const container = services as typeof services & { analytics?: AnalyticsService };
    container.analytics ??= new AnalyticsService(handle.pool, {
      activeProviders: () => services.dataPlane.registry.activeCount(),
      explorationRate: () => config.GATEWAY_EXPLORATION_RATE,
    });
    await services.start();
    const app = createApp(services);
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const tenant = await services.tenants.create(`analytics-bench-${Date.now()}`, 'intelligence');
    log(
      `database: ${external ? 'DATABASE_URL' : 'embedded PostgreSQL'}; seeding ${MAIN_REQUESTS.toLocaleString('en-US')} requests over 30 days + 2 x ${OTHER_REQUESTS.toLocaleString('en-US')} in other workspaces`,
    );
    const seeded = await seedAnalytics(handle.pool, { tenantId: tenant.tenantId, requests: MAIN_REQUESTS, seed: 0.42 });
    log(
      `- measured workspace: ${seeded.requests.toLocaleString('en-US')} requests, ${seeded.costs.toLocaleString('en-US')} cost rows, ${seeded.feedback.toLocaleString('en-US')} feedback rows in ${(seeded.ms / 1000).toFixed(1)} s`,
    );
    for (let i = 0; i < 2; i++) {
      const other = await seedAnalytics(handle.pool, {
        tenantId: newId('ten'),
        requests: OTHER_REQUESTS,
        seed: 0.1 + i / 10,
      });
      log(
        `- other workspace ${i + 1}: ${other.requests.toLocaleString('en-US')} requests in ${(other.ms / 1000).toFixed(1)} s`,
      );
    }
    const vacuumStarted = performance.now();
    await vacuumAnalyze(handle.pool);
    log(`- vacuum analyze: ${((performance.now() - vacuumStarted) / 1000).toFixed(1)} s`);

    const token = tenant.adminToken;
    const first = (await (
      await fetch(`${base}/v1/analytics/requests?limit=50`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as { nextCursor: string };
    const slowFirst = (await (
      await fetch(`${base}/v1/analytics/requests?orderBy=latencyMs&limit=500`, {
        headers: { authorization: `Bearer ${token}` },
      })
    ).json()) as { nextCursor: string };
    const endpoints: Array<[string, string]> = [
      ['overview', '/v1/analytics/overview'],
      ['cache/savings', '/v1/analytics/cache/savings'],
      ['costs/by-provider', '/v1/analytics/costs/by-provider'],
      ['costs/by-model', '/v1/analytics/costs/by-model'],
      ['timeseries/cost-by-provider (24h)', '/v1/analytics/timeseries/cost-by-provider'],
      ['timeseries/cost-by-provider (7d)', '/v1/analytics/timeseries/cost-by-provider?range=7d'],
      ['timeseries/cost-by-provider (30d)', '/v1/analytics/timeseries/cost-by-provider?range=30d'],
      ['timeseries (1h)', '/v1/analytics/timeseries?range=1h'],
      ['timeseries (24h)', '/v1/analytics/timeseries'],
      ['timeseries (7d)', '/v1/analytics/timeseries?range=7d'],
      ['timeseries (30d)', '/v1/analytics/timeseries?range=30d'],
      ['routing/stats', '/v1/analytics/routing/stats'],
      ['routing/distribution', '/v1/analytics/routing/distribution'],
      ['pipeline', '/v1/analytics/pipeline'],
      ['models/compare (24h)', '/v1/analytics/models/compare?range=24h'],
      ['models/compare (7d)', '/v1/analytics/models/compare'],
      ['models/compare (30d)', '/v1/analytics/models/compare?range=30d'],
      ['requests (createdAt, 50)', '/v1/analytics/requests'],
      ['requests (createdAt, page 2)', `/v1/analytics/requests?limit=50&cursor=${first.nextCursor}`],
      ['requests (createdAt asc, 50)', '/v1/analytics/requests?order=asc'],
      ['requests (latencyMs, 500)', '/v1/analytics/requests?orderBy=latencyMs&limit=500'],
      [
        'requests (latencyMs, page 2)',
        `/v1/analytics/requests?orderBy=latencyMs&limit=500&cursor=${slowFirst.nextCursor}`,
      ],
      ['spend/by model (30d)', '/v1/spend/by?dimension=model'],
      ['spend/by cell (7d)', '/v1/spend/by?dimension=cell&range=7d'],
      ['spend/by token (90d)', '/v1/spend/by?dimension=token&range=90d'],
      ['spend/trajectory', '/v1/spend/trajectory'],
      ['spend/drift', '/v1/spend/drift'],
      ['spend/recommendations', '/v1/spend/recommendations'],
      ['spend/export (30d, csv)', '/v1/spend/export'],
    ];
    log(`- timing ${endpoints.length} calls, ${CALLS} each after ${WARMUP} warm-up calls`);
    const timings: Timing[] = [];
    for (const [name, path] of endpoints) timings.push(await time(base, token, name, path));

    const table = new Table({
      head: ['Endpoint', 'p50', 'max', 'Body', 'Target', 'Result'],
      style: { head: [], border: [] },
      colAligns: ['left', 'right', 'right', 'right', 'left', 'left'],
    });
    for (const t of timings) {
      table.push([
        t.name,
        `${t.p50.toFixed(1)} ms`,
        `${t.max.toFixed(1)} ms`,
        `${(t.bytes / 1024).toFixed(1)} KB`,
        `< ${TARGET_MS} ms`,
        t.p50 < TARGET_MS && t.max < TARGET_MS ? 'PASS' : 'MISS',
      ]);
    }
    log(table.toString());
    const misses = timings.filter((t) => !(t.p50 < TARGET_MS && t.max < TARGET_MS)).length;
    log(
      misses
        ? `${misses} endpoint(s) over ${TARGET_MS} ms`
        : `every endpoint under ${TARGET_MS} ms (p50 and max) at ${MAIN_REQUESTS.toLocaleString('en-US')} rows`,
    );

    if (process.env.BENCH_WRITE !== '0') {
      if (external && process.env.BENCH_WRITE_DDL !== '1') {
        log('write path: skipped on DATABASE_URL (set BENCH_WRITE_DDL=1 to allow its DDL)');
      } else {
        log('write path: log writer batches of 1000 requests (+ ~800 cost rows), alternating rounds');
        const { before, after } = await compareWritePath(handle.pool, { rounds: 2, batches: QUICK ? 10 : 25, log });
        log(formatWrite('before analytics', before));
        log(formatWrite('with analytics  ', after));
      }
    }
  } finally {
    if (server) {
      server.closeAllConnections();
      await new Promise((r) => server!.close(r));
    }
    await services.close().catch(() => undefined);
    await handle.close().catch(() => undefined);
    await cleanup();
  }
}

await main();
