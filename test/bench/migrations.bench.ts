// `npm run bench:migrations`: the cost-migration proof at a larger scale, with its figures printed.
// Two simulated months of judged traffic on two cells (test/support/migration-month.ts): the
// cheaper model as good as the incumbent is migrated to and saves what the status projected; the
// one that turns out worse is rolled back during its grace period. A gateway in process on an
// embedded PostgreSQL (or DATABASE_URL's server, in a database of its own), the simulator as every
// provider. MIGRATIONS_CALLS_PER_DAY (default 12) sets the calls per cell and simulated day.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { createRequestListener } from '../../server/app.js';
import { loadConfig } from '../../server/config.js';
import { connectDatabase } from '../../server/db/client.js';
import { runMigrations } from '../../server/db/migrate.js';
import { createLogger } from '../../server/lib/logger.js';
import { createServices } from '../../server/services.js';
import { startSimulator } from '../../server/simulator/index.js';
import { cleanup, installCleanupHandlers, startDatabase } from './lib/processes.js';
import { MONTH_ENV, monthSim, playMigrationMonths, SimClock } from '../support/migration-month.js';

const CALLS = Number(process.env.MIGRATIONS_CALLS_PER_DAY ?? 12);

async function databaseUrl(): Promise<{ url: string; drop(): Promise<void> }> {
  const server = process.env.DATABASE_URL;
  if (!server) {
    const db = await startDatabase();
    return { url: db.url, drop: async () => undefined };
  }
  const name = `gateway_bench_migrations_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: server });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

async function main(): Promise<void> {
  installCleanupHandlers(30 * 60_000);
  const clock = new SimClock();
  const sim = await startSimulator(monthSim(clock));
  const db = await databaseUrl();
  const config = loadConfig({
    GATEWAY_MODE: 'multi',
    LOG_LEVEL: 'silent',
    DATABASE_URL: db.url,
    GATEWAY_SIMULATOR: 'off',
    GATEWAY_JOBS: 'off',
    GATEWAY_LOG_FLUSH_MS: '5',
    OLLAMA_BASE_URL: 'http://127.0.0.1:9/v1',
    OPENAI_API_KEY: 'sk-bench',
    OPENAI_BASE_URL: sim.baseUrls.openai,
    ...MONTH_ENV,
  });
  const database = connectDatabase(db.url, 10);
  await runMigrations(database);
  const services = createServices(config, database, createLogger('silent'));
  await services.start();
  const server = createServer(createRequestListener(services));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const http = async (method: string, path: string, opts: { token: string; body?: unknown }) => {
    const res = await fetch(baseUrl + path, {
      method,
      headers: { authorization: `Bearer ${opts.token}`, 'content-type': 'application/json' },
      ...(opts.body === undefined ? {} : { body: JSON.stringify(opts.body) }),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const tenant = await services.tenants.create('bench-migrations', 'intelligence');
  const started = performance.now();
  try {
    const report = await playMigrationMonths(
      {
        services,
        tenantId: tenant.tenantId,
        token: tenant.adminToken,
        http,
        query: async (sql, params) => (await database.pool.query(sql, params)).rows,
        chat: async (body) => {
          const r = await http('POST', '/v1/chat/completions', { token: tenant.adminToken, body });
          if (r.status !== 200) throw new Error(`chat: ${r.status} ${JSON.stringify(r.body)}`);
        },
      },
      clock,
      { callsPerCellPerDay: CALLS, onDay: (d, note) => console.log(`  day ${d}: ${note}`) },
    );
    const off = (report.savedQaUsd - report.projectedQaUsd) / report.projectedQaUsd;
    console.log(
      `\nTwo simulated months, ${CALLS} calls per cell a day, ${Math.round((performance.now() - started) / 1000)} s`,
    );
    console.log(`  migrated:                 ${report.migratedCells.join(', ')}`);
    console.log(`  projected at migration:   $${report.projectedAtMigrationUsd.toFixed(6)} a month (both cells)`);
    console.log(`  qa/complex projected:     $${report.projectedQaUsd.toFixed(6)} a month`);
    console.log(
      `  qa/complex saved:         $${report.savedQaUsd.toFixed(6)} in the month after (${(off * 100).toFixed(1)}% off the projection)`,
    );
    console.log(
      `  gpt-4o-mini's share of qa/complex in that month: ${(report.qaShareOfMiniInSecondMonth * 100).toFixed(1)}%`,
    );
    console.log(
      `  rolled back automatically: ${report.autoRolledBack.join(', ') || 'none'} (day ${report.autoRolledBackOnDay ?? '-'})`,
    );
    console.log(`  active at the end:         ${report.activeAtEnd.join(', ') || 'none'}`);
    const ok =
      report.migratedCells.join() === 'coding/complex,qa/complex' &&
      Math.abs(off) <= 0.1 &&
      report.autoRolledBack.join() === 'coding/complex' &&
      report.activeAtEnd.join() === 'qa/complex' &&
      report.madeInAll === 2;
    console.log(ok ? '\nPASS' : '\nFAIL');
    if (!ok) process.exitCode = 1;
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await services.close();
    await database.close();
    await sim.close();
    await db.drop();
    await cleanup();
  }
}

await main();
