// Two builds of the gateway side by side in one run: `npm run bench:compare -- [git-ref]` builds
// the ref (default HEAD) in a temporary worktree and builds the working tree, starts both on core 0
// against one simulator and one PostgreSQL (a database each), and measures them in interleaved
// blocks: latency at a fixed 500 req/s, and streaming time to first chunk. On a noisy machine two
// separate `npm run bench` runs differ by more than most changes do; run side by side, what differs
// is the code. Prints each figure for both builds and in how many blocks each was faster. Asserts
// nothing.
//
// COMPARE_BLOCKS (default 10), COMPARE_BLOCK_MS (fixed-rate block length, default 4000) and
// COMPARE_STREAMS (streams per build, default 300) size the run. COMPARE_BASE_ENV and
// COMPARE_WORK_ENV ("NAME=value NAME=value") add settings to one build, to compare configurations
// (e.g. `COMPARE_WORK_ENV="GATEWAY_LOG_FLUSH_MS=10" npm run bench:compare`). COMPARE_BASE_NODE_ARGS and
// COMPARE_WORK_NODE_ARGS add node/V8 flags to one build's command line, after the production ones
// (e.g. `COMPARE_WORK_NODE_ARGS="--single-threaded-gc"`).

import { execFileSync } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { constantRate, keepAliveClient, keepAlivePool, streamOnce, target } from './lib/load.js';
import {
  cleanup,
  flagList,
  GATEWAY_NODE_ARGS,
  HARNESS_NODE_ARGS,
  installCleanupHandlers,
  spawnNode,
  startDatabase,
} from './lib/processes.js';
import { hasTaskset, onlineCores, pinSelf } from './lib/proc.js';
import Table from 'cli-table3';
import { ms, signedMs } from './lib/report.js';
import { median, Samples, summarize } from './lib/stats.js';

const BLOCKS = Number(process.env.COMPARE_BLOCKS ?? 10);
const BLOCK_MS = Number(process.env.COMPARE_BLOCK_MS ?? 4_000);
const STREAMS = Number(process.env.COMPARE_STREAMS ?? 300);
const RATE = 500;
const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';
const MESSAGES = [
  { role: 'system', content: 'You are a concise assistant for an engineering team.' },
  { role: 'user', content: 'Summarise the benefits of keep-alive connection pooling in two sentences.' },
];
// temperature > 0 keeps every request out of the exact cache.
const BODY = { model: 'openai/gpt-4o-mini', messages: MESSAGES, temperature: 0.7 };
const STREAM_BODY = JSON.stringify({ ...BODY, stream: true });

type Build = 'base' | 'work';
const BUILDS: Build[] = ['base', 'work'];
const EXTRA_ENV: Record<Build, Record<string, string>> = {
  base: envList(process.env.COMPARE_BASE_ENV),
  work: envList(process.env.COMPARE_WORK_ENV),
};
const EXTRA_NODE_ARGS: Record<Build, string[]> = {
  base: flagList(process.env.COMPARE_BASE_NODE_ARGS),
  work: flagList(process.env.COMPARE_WORK_NODE_ARGS),
};

function envList(spec: string | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of (spec ?? '').split(/\s+/).filter(Boolean)) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new Error(`expected NAME=value in the build's settings, got "${pair}"`);
    env[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return env;
}

const log = (line: string) => process.stdout.write(`${line}\n`);

/** The ref's sources in a detached worktree, compiled with this checkout's dependencies. */
async function buildRef(ref: string): Promise<{ dir: string; remove(): void }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gateway-compare-'));
  execFileSync('git', ['worktree', 'add', '--detach', dir, ref], { stdio: 'ignore' });
  const remove = () => {
    execFileSync('git', ['worktree', 'remove', '--force', dir], { stdio: 'ignore' });
  };
  try {
    symlinkSync(path.resolve('node_modules'), path.join(dir, 'node_modules'), 'dir');
    execFileSync(path.resolve('node_modules/.bin/tsc'), ['-p', 'tsconfig.build.json'], { cwd: dir, stdio: 'inherit' });
  } catch (err) {
    remove();
    throw err;
  }
  return { dir, remove };
}

/** Per-block medians of one figure: in how many blocks each build was lower. */
function wins(perBlock: Record<Build, number[]>): string {
  let base = 0;
  let work = 0;
  perBlock.base.forEach((b, i) => {
    const w = perBlock.work[i]!;
    if (w < b) work++;
    else if (b < w) base++;
  });
  return `work ${work} / base ${base}`;
}

async function main(): Promise<void> {
  installCleanupHandlers(30 * 60_000);
  const ref = process.argv[2] ?? 'HEAD';
  const pinned = hasTaskset() && onlineCores() >= 2;
  if (pinned) pinSelf(1);
  log(
    `Comparing ${ref} (base) with the working tree (work)${pinned ? ': gateways on core 0; load, simulator and PostgreSQL on core 1' : ' UNPINNED'}`,
  );
  for (const b of BUILDS)
    if (Object.keys(EXTRA_ENV[b]).length)
      log(
        `  ${b} runs with ${Object.entries(EXTRA_ENV[b])
          .map(([k, v]) => `${k}=${v}`)
          .join(' ')}`,
      );
  for (const b of BUILDS) if (EXTRA_NODE_ARGS[b].length) log(`  ${b} runs with node ${EXTRA_NODE_ARGS[b].join(' ')}`);

  log('- building both');
  const base = await buildRef(ref);
  try {
    execFileSync('npm', ['run', 'build'], { stdio: 'ignore' });
    const db = await startDatabase();
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    await admin.query('create database gateway_base');
    await admin.end();
    const urls: Record<Build, string> = { base: db.url.replace(/\/gateway$/, '/gateway_base'), work: db.url };

    const sim = spawnNode(
      'simulator',
      'server/simulator/main.ts',
      { PORT: '0', HOST: '127.0.0.1' },
      { core: pinned ? 1 : undefined, nodeArgs: HARNESS_NODE_ARGS },
    );
    const simUrl = (await sim.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
    await fetch(`${simUrl}/_simulator/config`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ outputTokens: 20, chunkDelayMs: 0, latencyMs: 0 }),
    });

    const entries: Record<Build, string> = {
      base: path.join(base.dir, 'dist/server/main.js'),
      work: 'dist/server/main.js',
    };
    const gatewayUrl = {} as Record<Build, string>;
    for (const b of BUILDS) {
      const gw = spawnNode(
        `gateway (${b})`,
        entries[b],
        {
          PORT: '0',
          HOST: '127.0.0.1',
          DATABASE_URL: urls[b],
          GATEWAY_DATA_DIR: path.join(db.dir, b),
          GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
          GATEWAY_SIMULATOR: 'off',
          OPENAI_API_KEY: 'sk-bench-openai',
          OPENAI_BASE_URL: `${simUrl}/openai/v1`,
          OLLAMA_BASE_URL: 'http://127.0.0.1:9/v1',
          ...EXTRA_ENV[b],
        },
        { core: pinned ? 0 : undefined, nodeArgs: [...GATEWAY_NODE_ARGS, ...EXTRA_NODE_ARGS[b]], compiled: true },
      );
      gatewayUrl[b] = (await gw.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
    }
    const headers = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
    const targets = Object.fromEntries(
      BUILDS.map((b) => [b, target(b, `${gatewayUrl[b]}/v1/chat/completions`, headers, BODY)]),
    ) as Record<Build, ReturnType<typeof target>>;
    const order = (i: number): Build[] => (i % 2 ? ['work', 'base'] : ['base', 'work']);

    log(`- fixed rate: ${RATE} req/s, ${BLOCKS} blocks of ${BLOCK_MS / 1000} s per build, interleaved`);
    const pools = Object.fromEntries(BUILDS.map((b) => [b, keepAlivePool(gatewayUrl[b], 64)])) as Record<
      Build,
      ReturnType<typeof keepAlivePool>
    >;
    for (const b of BUILDS) await constantRate(pools[b], targets[b], RATE, 3_000);
    const rate = { base: new Samples(), work: new Samples() };
    const blockP50 = { base: [] as number[], work: [] as number[] };
    const blockP99 = { base: [] as number[], work: [] as number[] };
    for (let i = 0; i < BLOCKS; i++) {
      for (const b of order(i)) {
        const r = await constantRate(pools[b], targets[b], RATE, BLOCK_MS);
        rate[b].addAll(r.latency);
        const s = r.latency.summary();
        blockP50[b].push(s.p50);
        blockP99[b].push(s.p99);
      }
    }
    await Promise.all(BUILDS.map((b) => pools[b].close()));

    log(`- streaming: ${STREAMS} streams per build, one at a time, interleaved; 20 content chunks 5 ms apart`);
    await fetch(`${simUrl}/_simulator/config`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chunkDelayMs: 5 }),
    });
    const clients = Object.fromEntries(BUILDS.map((b) => [b, keepAliveClient(gatewayUrl[b])])) as Record<
      Build,
      ReturnType<typeof keepAliveClient>
    >;
    for (let i = 0; i < 20; i++) for (const b of BUILDS) await streamOnce(clients[b], targets[b], STREAM_BODY);
    const firstChunk = { base: [] as number[], work: [] as number[] };
    for (let i = 0; i < STREAMS; i++) {
      for (const b of order(i)) {
        const r = await streamOnce(clients[b], targets[b], STREAM_BODY);
        if (r.ok) firstChunk[b].push(r.firstChunkMs);
      }
    }
    await Promise.all(BUILDS.map((b) => clients[b].close()));
    const perBlock = Math.max(1, Math.floor(STREAMS / BLOCKS));
    const streamBlocks = { base: [] as number[], work: [] as number[] };
    for (const b of BUILDS) {
      for (let i = 0; i + perBlock <= firstChunk[b].length; i += perBlock)
        streamBlocks[b].push(median(firstChunk[b].slice(i, i + perBlock)));
    }

    const r = { base: rate.base.summary(), work: rate.work.summary() };
    const f = { base: summarize(firstChunk.base), work: summarize(firstChunk.work) };
    const table = new Table({
      head: ['Figure', `Base (${ref})`, 'Working tree', 'Work - base', 'Lower in blocks'],
      style: { head: [], border: [], compact: true },
      colAligns: ['left', 'right', 'right', 'right', 'left'],
    });
    table.push(
      [`${RATE} req/s latency p50`, ms(r.base.p50), ms(r.work.p50), signedMs(r.work.p50 - r.base.p50), wins(blockP50)],
      [`${RATE} req/s latency p99`, ms(r.base.p99), ms(r.work.p99), signedMs(r.work.p99 - r.base.p99), wins(blockP99)],
      ['first chunk p50', ms(f.base.p50), ms(f.work.p50), signedMs(f.work.p50 - f.base.p50), wins(streamBlocks)],
      ['first chunk p99', ms(f.base.p99), ms(f.work.p99), signedMs(f.work.p99 - f.base.p99), ''],
    );
    log('');
    log(table.toString());
    log(
      `  "Lower in blocks": per block (${BLOCKS} fixed-rate blocks; ${streamBlocks.work.length} blocks of ${perBlock} streams), which build's figure was lower.`,
    );
  } finally {
    await cleanup();
    base.remove();
    await rm(base.dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    void cleanup().finally(() => process.exit(1));
  },
);
