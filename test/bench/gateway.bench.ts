// Gateway benchmark: `npm run bench`. Starts an embedded PostgreSQL, the upstream simulator and
// the gateway (the real entry point, logging on), drives the same request body at the simulator
// directly and through the gateway, and prints added latency, throughput, CPU per request,
// streaming time to first chunk and memory, each next to its target. It asserts nothing.
//
// Layout on a 2-core machine: the gateway alone on core 0; this process (the load generator), the
// simulator and PostgreSQL on core 1. Everything listens on 127.0.0.1 and is stopped at the end.
//
// BENCH_QUICK=1 shortens every phase (for trying changes to the benchmark itself);
// BENCH_GATEWAY_CPU_PROF=<dir> runs the gateway with --cpu-prof and writes its profile there on exit.

import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { request } from 'undici';
import {
  closedLoop, constantRate, fetchJson, keepAliveClient, keepAlivePool, sequentialInterleaved, streamOnce, target,
  type LoopResult, type RateResult, type StreamResult,
} from './lib/load.js';
import { cleanup, installCleanupHandlers, spawnNode, startDatabase, type ChildHandle } from './lib/processes.js';
import {
  allowedCpus, busySecondsBetween, clkTck, coreBusyBetween, cpuSecondsBetween, hasTaskset, onlineCores, pinSelf, readCoreTimes, readCpuTicks,
  readMemory, readTreeTicks,
} from './lib/proc.js';
import { check, int, mb, ms, pct, renderTable, signedMb, signedMs, verdict, type Row } from './lib/report.js';
import { median, round, summarize, type Summary } from './lib/stats.js';

const QUICK = process.env.BENCH_QUICK === '1';
const CPU_PROF_DIR = process.env.BENCH_GATEWAY_CPU_PROF;

const PLAN = QUICK
  ? { warmupMs: 1_000, soakMs: 5_000, soakRps: 1_000, sequential: 300, rateRps: 500, rateMs: 3_000, loopConnections: 128, loopWarmupMs: 1_000, loopMs: 3_000, streams: 40, streamWarmup: 5 }
  : { warmupMs: 3_000, soakMs: 30_000, soakRps: 1_000, sequential: 2_000, rateRps: 500, rateMs: 10_000, loopConnections: 128, loopWarmupMs: 2_000, loopMs: 10_000, streams: 300, streamWarmup: 20 };

const STREAM_CHUNK_DELAY_MS = 5;
const OUTPUT_TOKENS = 20;
const SOAK_SAMPLE_MS = 1_000;
/** The flat-memory check compares the median RSS of the soak's first and last windows of this length. */
const SOAK_WINDOW_MS = 10_000;
const IDLE_MS = 3_000;
const RUN_LIMIT_MS = 8 * 60_000;
/** Other processes' CPU (in cores) above which a phase's figures are flagged as noisy. */
const NOISY_OTHER_CPU = 0.1;
/** How long to wait at the start for other work on the machine to finish. */
const QUIET_WAIT_MS = 30_000;

const TARGETS = {
  addedP50OneConnMs: 0.6,
  addedP99At500Ms: 2,
  minRps: 4_000,
  maxCpuUsPerRequest: 250,
  addedFirstChunkMs: 1,
  maxPeakMb: 200,
};

const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';
const GATEWAY_MODEL = 'openai/gpt-4o-mini';
const UPSTREAM_MODEL = 'gpt-4o-mini';
const MESSAGES = [
  { role: 'system', content: 'You are a concise assistant for an engineering team.' },
  { role: 'user', content: 'Summarise the benefits of keep-alive connection pooling in two sentences.' },
];
// temperature > 0 keeps the request out of the exact cache, so every gateway request goes upstream.
const BODY = { messages: MESSAGES, temperature: 0.7 };

const log = (line: string) => process.stdout.write(`${line}\n`);
const phase = (name: string) => log(`- ${name}`);

interface Placement {
  pinned: boolean;
  gatewayCore?: number;
  sideCore?: number;
  note: string;
}

function placeProcesses(): Placement {
  if (process.platform !== 'linux' || !existsSync('/proc/self/stat')) throw new Error('the benchmark reads /proc and needs Linux');
  const cores = onlineCores();
  if (!hasTaskset()) return { pinned: false, note: `taskset not found: running UNPINNED on ${cores} core(s); figures are not comparable with pinned runs` };
  if (cores < 2) return { pinned: false, note: `only ${cores} core: running UNPINNED (gateway, load generator, simulator and PostgreSQL share it)` };
  // Everything started from here on (PostgreSQL, the simulator) inherits core 1.
  pinSelf(1);
  return { pinned: true, gatewayCore: 0, sideCore: 1, note: `pinned: gateway on core 0; load generator (this process, cpus ${allowedCpus()}), simulator and PostgreSQL on core 1` };
}

/** Waits (bounded) for a second in which other processes use less than NOISY_OTHER_CPU cores in total. */
async function waitForQuietMachine(): Promise<{ quiet: boolean; busyCores: number }> {
  const started = performance.now();
  let busyCores = NaN;
  do {
    const a = readCoreTimes();
    await sleep(1_000);
    busyCores = busySecondsBetween(a, readCoreTimes());
    if (busyCores < NOISY_OTHER_CPU * 2) return { quiet: true, busyCores };
  } while (performance.now() - started < QUIET_WAIT_MS);
  return { quiet: false, busyCores };
}

async function simulatorConfig(simUrl: string, patch: Record<string, unknown>): Promise<void> {
  const res = await request(`${simUrl}/_simulator/config`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(patch) });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`simulator config failed: ${res.statusCode} ${text}`);
}

interface Pids {
  gateway: number;
  simulator: number;
  postgres: number;
}

/**
 * CPU over a measured window: the gateway's, the other benchmark processes', and whatever else
 * kept the machine busy (other processes, interrupts), which makes the figures noisy.
 */
class CpuWindow {
  private readonly startAt = performance.now();
  private readonly startCores = readCoreTimes();
  private readonly startSelf = process.cpuUsage();
  private readonly start;

  constructor(private readonly pids: Pids) {
    this.start = this.read();
  }

  private read() {
    return { gateway: readCpuTicks(this.pids.gateway), simulator: readCpuTicks(this.pids.simulator), postgres: readTreeTicks(this.pids.postgres) };
  }

  end(requests: number) {
    const seconds = (performance.now() - this.startAt) / 1000;
    const now = this.read();
    const self = process.cpuUsage(this.startSelf);
    const cores = readCoreTimes();
    const gatewayS = cpuSecondsBetween(this.start.gateway, now.gateway);
    const simulatorS = cpuSecondsBetween(this.start.simulator, now.simulator);
    const postgresS = cpuSecondsBetween(this.start.postgres, now.postgres);
    const generatorS = (self.user + self.system) / 1e6;
    const otherS = busySecondsBetween(this.startCores, cores) - gatewayS - simulatorS - postgresS - generatorS;
    return {
      seconds,
      requests,
      gatewayCpuSeconds: gatewayS,
      gatewayCpuUsPerRequest: requests > 0 ? (gatewayS * 1e6) / requests : NaN,
      postgresCpuUsPerRequest: requests > 0 ? (postgresS * 1e6) / requests : NaN,
      gatewayUtilisation: gatewayS / seconds,
      simulatorUtilisation: simulatorS / seconds,
      postgresUtilisation: postgresS / seconds,
      loadGeneratorUtilisation: generatorS / seconds,
      /** Cores' worth of CPU used by anything else (other processes, interrupt handling). */
      otherUtilisation: Math.max(0, otherS / seconds),
      coreBusy: coreBusyBetween(this.startCores, cores),
    };
  }
}
type CpuReport = ReturnType<CpuWindow['end']>;

function latencyJson(s: Summary) {
  return { count: s.count, mean: round(s.mean), min: round(s.min), p50: round(s.p50), p90: round(s.p90), p99: round(s.p99), max: round(s.max) };
}

function cpuJson(c: CpuReport) {
  return {
    seconds: round(c.seconds),
    requests: c.requests,
    gatewayCpuSeconds: round(c.gatewayCpuSeconds),
    gatewayCpuUsPerRequest: round(c.gatewayCpuUsPerRequest, 1),
    postgresCpuUsPerRequest: round(c.postgresCpuUsPerRequest, 1),
    gatewayUtilisation: round(c.gatewayUtilisation),
    simulatorUtilisation: round(c.simulatorUtilisation),
    postgresUtilisation: round(c.postgresUtilisation),
    loadGeneratorUtilisation: round(c.loadGeneratorUtilisation),
    otherUtilisation: round(c.otherUtilisation),
    coreBusy: c.coreBusy.map((v) => round(v)),
  };
}

async function countRequestRows(url: string, expected: number): Promise<{ rows: number; waitedMs: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const started = performance.now();
  try {
    let rows = -1;
    let stableSince = performance.now();
    for (;;) {
      const { rows: r } = await client.query<{ n: number }>('select count(*)::int as n from requests');
      const n = r[0]!.n;
      if (n !== rows) {
        rows = n;
        stableSince = performance.now();
      }
      const now = performance.now();
      // Done when every request has its row, or when the count has stopped moving for 3 s.
      if (rows >= expected || now - stableSince > 3_000 || now - started > 30_000) return { rows, waitedMs: now - started };
      await sleep(50);
    }
  } finally {
    await client.end();
  }
}

function streamSummary(results: StreamResult[]) {
  const ok = results.filter((r) => r.ok);
  return {
    count: results.length,
    failed: results.length - ok.length,
    firstChunk: summarize(ok.map((r) => r.firstChunkMs)),
    total: summarize(ok.map((r) => r.totalMs)),
    eventsMedian: median(ok.map((r) => r.events)),
    choiceChunksMedian: median(ok.map((r) => r.choiceChunks)),
    contentChunksMedian: median(ok.map((r) => r.contentChunks)),
    contentArrivalsMedian: median(ok.map((r) => r.contentArrivals)),
    contentChunks: ok.map((r) => r.contentChunks),
    contentArrivals: ok.map((r) => r.contentArrivals),
  };
}

async function main(): Promise<void> {
  installCleanupHandlers(RUN_LIMIT_MS);
  const runStarted = performance.now();
  const placement = placeProcesses();
  log(`Gateway benchmark${QUICK ? ' (BENCH_QUICK: shortened phases)' : ''}: node ${process.version}, ${os.cpus()[0]?.model ?? 'cpu'} x${onlineCores()}`);
  log(`  ${placement.note}`);
  const quiet = await waitForQuietMachine();
  log(`  machine before start: ${pct(quiet.busyCores)} of a core busy${quiet.quiet ? '' : ` (still busy after ${QUIET_WAIT_MS / 1000} s: other work is running, figures will be noisy)`}`);

  // --- processes -----------------------------------------------------------------------------
  phase('starting PostgreSQL, simulator and gateway');
  const db = await startDatabase();
  const sim = spawnNode('simulator', 'server/simulator/main.ts', { PORT: '0', HOST: '127.0.0.1' }, { core: placement.sideCore });
  const simUrl = (await sim.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
  await simulatorConfig(simUrl, { outputTokens: OUTPUT_TOKENS, chunkDelayMs: 0, latencyMs: 0 });

  const nodeArgs: string[] = [];
  if (CPU_PROF_DIR) nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${path.resolve(CPU_PROF_DIR)}`);
  const gateway: ChildHandle = spawnNode('gateway', 'server/main.ts', {
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: db.url,
    GATEWAY_DATA_DIR: path.join(db.dir, 'gateway'),
    GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
    GATEWAY_SIMULATOR: 'off',
    OPENAI_API_KEY: 'sk-bench-openai',
    OPENAI_BASE_URL: `${simUrl}/openai/v1`,
    // Nothing listens on the discard port: the local-provider probe finds no server.
    OLLAMA_BASE_URL: 'http://127.0.0.1:9/v1',
  }, { core: placement.gatewayCore, nodeArgs });
  const gatewayUrl = (await gateway.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
  const pids: Pids = { gateway: gateway.pid, simulator: sim.pid, postgres: db.postmasterPid() };
  log(`  simulator ${simUrl} (pid ${sim.pid}, cpus ${allowedCpus(sim.pid)}), gateway ${gatewayUrl} (pid ${gateway.pid}, cpus ${allowedCpus(gateway.pid)}), PostgreSQL 127.0.0.1:${db.port} (pid ${pids.postgres}, cpus ${allowedCpus(pids.postgres)})`);
  /** CPU accounting of every measured phase, by phase name. */
  const cpu: Record<string, CpuReport> = {};
  const measure = async <T>(name: string, run: () => Promise<T>, requests: (r: T) => number): Promise<T> => {
    const w = new CpuWindow(pids);
    const r = await run();
    cpu[name] = w.end(requests(r));
    return r;
  };

  const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const direct = target('direct', `${simUrl}/openai/v1/chat/completions`, auth, { model: UPSTREAM_MODEL, ...BODY });
  const viaGateway = target('gateway', `${gatewayUrl}/v1/chat/completions`, auth, { model: GATEWAY_MODEL, ...BODY });
  const directStreamBody = JSON.stringify({ model: UPSTREAM_MODEL, ...BODY, stream: true });
  const gatewayStreamBody = JSON.stringify({ model: GATEWAY_MODEL, ...BODY, stream: true });

  // --- sanity --------------------------------------------------------------------------------
  {
    const c = keepAliveClient(gatewayUrl);
    const d = keepAliveClient(simUrl);
    const g = await fetchJson(c, viaGateway);
    const s = await fetchJson(d, direct);
    await Promise.all([c.close(), d.close()]);
    const meta = (g.json as { _gateway?: { provider?: string; model?: string; cached?: boolean } })._gateway;
    if (g.status !== 200 || meta?.provider !== 'openai' || meta.cached !== false) {
      throw new Error(`gateway sanity request failed: ${g.status} ${JSON.stringify(g.json).slice(0, 500)}`);
    }
    if (s.status !== 200) throw new Error(`simulator sanity request failed: ${s.status} ${JSON.stringify(s.json).slice(0, 500)}`);
    log(`  sanity: gateway served by ${meta.provider}/${meta.model}, not cached`);
  }

  // --- idle ----------------------------------------------------------------------------------
  await sleep(1_000);
  const idleTicks = readCpuTicks(gateway.pid);
  await sleep(IDLE_MS);
  const idleCpuShare = cpuSecondsBetween(idleTicks, readCpuTicks(gateway.pid)) / (IDLE_MS / 1000);
  const idleMemory = readMemory(gateway.pid);

  // --- warm-up -------------------------------------------------------------------------------
  phase(`warm-up (${PLAN.warmupMs / 1000} s closed loop per target, then sequential)`);
  const pools = {
    direct: keepAlivePool(simUrl, PLAN.loopConnections),
    gateway: keepAlivePool(gatewayUrl, PLAN.loopConnections),
  };
  await closedLoop(pools.direct, direct, 32, PLAN.warmupMs);
  await closedLoop(pools.gateway, viaGateway, 32, PLAN.warmupMs);
  await sequentialInterleaved([direct, viaGateway], 300);
  await sleep(500);
  const afterWarmup = readMemory(gateway.pid);

  // --- soak (flat memory) --------------------------------------------------------------------
  phase(`soak: ${PLAN.soakRps} req/s through the gateway for ${PLAN.soakMs / 1000} s, RSS sampled every ${SOAK_SAMPLE_MS / 1000} s`);
  const rssSamples: Array<{ atS: number; rssMb: number }> = [{ atS: 0, rssMb: round(afterWarmup.rssMb, 1) }];
  const soakStart = performance.now();
  const sampler = setInterval(() => {
    rssSamples.push({ atS: round((performance.now() - soakStart) / 1000, 1), rssMb: round(readMemory(gateway.pid).rssMb, 1) });
  }, SOAK_SAMPLE_MS);
  let soak: RateResult;
  try {
    soak = await measure('soak', () => constantRate(pools.gateway, viaGateway, PLAN.soakRps, PLAN.soakMs), (r) => r.latency.count);
  } finally {
    clearInterval(sampler);
  }
  const afterSoak = readMemory(gateway.pid);
  rssSamples.push({ atS: round((performance.now() - soakStart) / 1000, 1), rssMb: round(afterSoak.rssMb, 1) });

  // --- 1. one connection ---------------------------------------------------------------------
  phase(`1 connection: ${PLAN.sequential} sequential requests per target (interleaved in blocks of 100)`);
  const seq = await measure('oneConnection', () => sequentialInterleaved([direct, viaGateway], PLAN.sequential), (r) => r[1]!.count);
  const [seqDirect, seqGateway] = seq.map((s) => s.summary()) as [Summary, Summary];

  // --- 2. fixed rate -------------------------------------------------------------------------
  phase(`fixed rate: ${PLAN.rateRps} req/s open loop for ${PLAN.rateMs / 1000} s per target`);
  const rateDirect = await measure('fixedRateDirect', () => constantRate(pools.direct, direct, PLAN.rateRps, PLAN.rateMs), () => 0);
  const rateGateway = await measure('fixedRateGateway', () => constantRate(pools.gateway, viaGateway, PLAN.rateRps, PLAN.rateMs), (r) => r.latency.count);
  const rateCpuReport = cpu.fixedRateGateway!;

  // --- 3 + 4. throughput and CPU per request -------------------------------------------------
  phase(`throughput: ${PLAN.loopConnections} connections, ${PLAN.loopWarmupMs / 1000} s warm-up + ${PLAN.loopMs / 1000} s per target`);
  await closedLoop(pools.direct, direct, PLAN.loopConnections, PLAN.loopWarmupMs);
  const loopDirect: LoopResult = await measure('throughputDirect', () => closedLoop(pools.direct, direct, PLAN.loopConnections, PLAN.loopMs), () => 0);
  const loopDirectCpuReport = cpu.throughputDirect!;
  await closedLoop(pools.gateway, viaGateway, PLAN.loopConnections, PLAN.loopWarmupMs);
  const loopGateway: LoopResult = await measure('throughputGateway', () => closedLoop(pools.gateway, viaGateway, PLAN.loopConnections, PLAN.loopMs), (r) => r.completed);
  const loopCpu = cpu.throughputGateway!;
  await Promise.all([pools.direct.close(), pools.gateway.close()]);

  // --- 5. streaming --------------------------------------------------------------------------
  phase(`streaming: ${PLAN.streams} streams per target, one at a time, alternating; ${OUTPUT_TOKENS} content chunks ${STREAM_CHUNK_DELAY_MS} ms apart`);
  await simulatorConfig(simUrl, { chunkDelayMs: STREAM_CHUNK_DELAY_MS, outputTokens: OUTPUT_TOKENS });
  const streamClients = { direct: keepAliveClient(simUrl), gateway: keepAliveClient(gatewayUrl) };
  for (let i = 0; i < PLAN.streamWarmup; i++) {
    await streamOnce(streamClients.direct, direct, directStreamBody);
    await streamOnce(streamClients.gateway, viaGateway, gatewayStreamBody);
  }
  const streamsDirect: StreamResult[] = [];
  const streamsGateway: StreamResult[] = [];
  await measure('streaming', async () => {
    for (let i = 0; i < PLAN.streams; i++) {
      streamsDirect.push(await streamOnce(streamClients.direct, direct, directStreamBody));
      streamsGateway.push(await streamOnce(streamClients.gateway, viaGateway, gatewayStreamBody));
    }
  }, () => PLAN.streams);
  await Promise.all([streamClients.direct.close(), streamClients.gateway.close()]);
  await simulatorConfig(simUrl, { chunkDelayMs: 0 });
  const sd = streamSummary(streamsDirect);
  const sg = streamSummary(streamsGateway);
  // Same content chunks for every pair, and through the gateway they arrive in as many separate reads.
  const sameChunks = sd.failed === 0 && sg.failed === 0 && streamsDirect.every((r, i) => r.contentChunks === streamsGateway[i]!.contentChunks && r.contentChunks === OUTPUT_TOKENS);
  const notCoalesced = sg.contentArrivalsMedian >= sd.contentArrivalsMedian;

  // --- 6. memory, log rows -------------------------------------------------------------------
  const final = readMemory(gateway.pid);
  phase('waiting for the log writer: counting rows in requests');
  const expectedRows = viaGateway.sent;
  const { rows, waitedMs } = await countRequestRows(db.url, expectedRows);

  // --- report --------------------------------------------------------------------------------
  const added = (a: number, b: number) => b - a;
  const seqAddedP50 = added(seqDirect.p50, seqGateway.p50);
  const rd = rateDirect.latency.summary();
  const rg = rateGateway.latency.summary();
  const rateAddedP99 = added(rd.p99, rg.p99);
  const ttfcAddedP50 = added(sd.firstChunk.p50, sg.firstChunk.p50);
  const ttfcAddedP99 = added(sd.firstChunk.p99, sg.firstChunk.p99);
  const ld = loopDirect.latency.summary();
  const lg = loopGateway.latency.summary();
  const rssGrowth = afterSoak.rssMb - afterWarmup.rssMb;
  // RSS saws with garbage collection, so two single readings say little: compare window medians.
  const windowS = Math.round(Math.min(SOAK_WINDOW_MS, PLAN.soakMs / 3) / 1000);
  const soakEndS = rssSamples[rssSamples.length - 1]!.atS;
  const firstWindowMb = median(rssSamples.filter((s) => s.atS <= windowS).map((s) => s.rssMb));
  const lastWindowMb = median(rssSamples.filter((s) => s.atS >= soakEndS - windowS).map((s) => s.rssMb));
  const windowGrowth = lastWindowMb - firstWindowMb;
  const flat = windowGrowth <= Math.max(10, firstWindowMb * 0.1);
  const sideCoreBusy = loopCpu.coreBusy[1] ?? NaN;
  // The gateway figures are its own only when it, not core 1, was the bottleneck.
  const loadSideMayLimit = (placement.pinned && sideCoreBusy > 0.9 && loopCpu.gatewayUtilisation < 0.9) || loopDirect.rps <= loopGateway.rps * 1.2;
  const totalSeconds = (performance.now() - runStarted) / 1000;
  const failures = { direct: direct.failed, gateway: viaGateway.failed, lastDirectError: direct.lastError, lastGatewayError: viaGateway.lastError };

  const rows_: Array<Row | string> = [
    `1. One connection, ${PLAN.sequential} sequential requests per target`,
    { metric: 'latency p50', direct: ms(seqDirect.p50), gateway: ms(seqGateway.p50), added: signedMs(seqAddedP50), target: `added <= ${TARGETS.addedP50OneConnMs} ms`, result: verdict(seqAddedP50 <= TARGETS.addedP50OneConnMs) },
    { metric: 'latency p99', direct: ms(seqDirect.p99), gateway: ms(seqGateway.p99), added: signedMs(added(seqDirect.p99, seqGateway.p99)) },
    `2. Fixed rate ${PLAN.rateRps} req/s, open loop, ${PLAN.rateMs / 1000} s per target (achieved ${int(rateDirect.rps)} / ${int(rateGateway.rps)} req/s)`,
    { metric: 'latency p50', direct: ms(rd.p50), gateway: ms(rg.p50), added: signedMs(added(rd.p50, rg.p50)) },
    { metric: 'latency p99', direct: ms(rd.p99), gateway: ms(rg.p99), added: signedMs(rateAddedP99), target: `added <= ${TARGETS.addedP99At500Ms} ms`, result: verdict(rateAddedP99 <= TARGETS.addedP99At500Ms) },
    { metric: 'generator send lag p99', direct: ms(rateDirect.sendLag.summary().p99), gateway: ms(rateGateway.sendLag.summary().p99) },
    { metric: 'CPU per request: gateway / PostgreSQL', gateway: `${int(rateCpuReport.gatewayCpuUsPerRequest)} / ${int(rateCpuReport.postgresCpuUsPerRequest)} us` },
    `3+4. Throughput, ${PLAN.loopConnections} connections, closed loop, ${PLAN.loopMs / 1000} s per target`,
    { metric: 'requests/s', direct: int(loopDirect.rps), gateway: int(loopGateway.rps), target: `>= ${int(TARGETS.minRps)} (1 core)`, result: verdict(loopGateway.rps >= TARGETS.minRps) },
    { metric: 'latency p50 / p99', direct: `${ms(ld.p50, 2)} / ${ms(ld.p99, 2)}`, gateway: `${ms(lg.p50, 2)} / ${ms(lg.p99, 2)}` },
    { metric: 'gateway CPU per request', gateway: `${int(loopCpu.gatewayCpuUsPerRequest)} us`, target: `<= ${TARGETS.maxCpuUsPerRequest} us`, result: verdict(loopCpu.gatewayCpuUsPerRequest <= TARGETS.maxCpuUsPerRequest) },
    { metric: 'gateway process CPU', direct: pct(loopDirectCpuReport.gatewayUtilisation), gateway: pct(loopCpu.gatewayUtilisation) },
    { metric: 'core 0 / core 1 busy', direct: `${pct(loopDirectCpuReport.coreBusy[0] ?? NaN)} / ${pct(loopDirectCpuReport.coreBusy[1] ?? NaN)}`, gateway: `${pct(loopCpu.coreBusy[0] ?? NaN)} / ${pct(sideCoreBusy)}` },
    { metric: 'load generator / simulator CPU', direct: `${pct(loopDirectCpuReport.loadGeneratorUtilisation)} / ${pct(loopDirectCpuReport.simulatorUtilisation)}`, gateway: `${pct(loopCpu.loadGeneratorUtilisation)} / ${pct(loopCpu.simulatorUtilisation)}` },
    { metric: 'PostgreSQL CPU (per gateway request)', direct: pct(loopDirectCpuReport.postgresUtilisation), gateway: `${pct(loopCpu.postgresUtilisation)} (${int(loopCpu.postgresCpuUsPerRequest)} us)` },
    { metric: 'other CPU on the machine', direct: pct(loopDirectCpuReport.otherUtilisation), gateway: pct(loopCpu.otherUtilisation) },
    `5. Streaming, ${PLAN.streams} streams per target, ${OUTPUT_TOKENS} content chunks ${STREAM_CHUNK_DELAY_MS} ms apart`,
    { metric: 'first chunk p50', direct: ms(sd.firstChunk.p50), gateway: ms(sg.firstChunk.p50), added: signedMs(ttfcAddedP50), target: `added <= ${TARGETS.addedFirstChunkMs} ms`, result: verdict(ttfcAddedP50 <= TARGETS.addedFirstChunkMs) },
    { metric: 'first chunk p99', direct: ms(sd.firstChunk.p99), gateway: ms(sg.firstChunk.p99), added: signedMs(ttfcAddedP99) },
    { metric: 'whole stream p50', direct: ms(sd.total.p50, 1), gateway: ms(sg.total.p50, 1), added: signedMs(added(sd.total.p50, sg.total.p50), 1) },
    { metric: 'content chunks (median)', direct: String(sd.contentChunksMedian), gateway: String(sg.contentChunksMedian), target: `= ${OUTPUT_TOKENS}, equal per stream`, result: check(sameChunks) },
    { metric: 'reads carrying content (median)', direct: String(sd.contentArrivalsMedian), gateway: String(sg.contentArrivalsMedian), target: 'gateway >= direct (no coalescing)', result: check(notCoalesced) },
    { metric: 'SSE events (median)', direct: String(sd.eventsMedian), gateway: String(sg.eventsMedian) },
    '6. Gateway memory',
    { metric: 'peak RSS (VmHWM, end of run)', gateway: mb(final.hwmMb), target: `< ${TARGETS.maxPeakMb} MB`, result: verdict(final.hwmMb < TARGETS.maxPeakMb) },
    { metric: 'RSS idle after start', gateway: mb(idleMemory.rssMb) },
    { metric: `RSS after warm-up -> after ${PLAN.soakMs / 1000} s soak`, gateway: `${mb(afterWarmup.rssMb)} -> ${mb(afterSoak.rssMb)}`, added: signedMb(rssGrowth) },
    { metric: `RSS median, soak first -> last ${windowS} s`, gateway: `${mb(firstWindowMb)} -> ${mb(lastWindowMb)}`, added: signedMb(windowGrowth), target: 'flat (<= max(10 MB, 10%))', result: check(flat) },
    { metric: 'RSS at end of run', gateway: mb(final.rssMb) },
    { metric: `gateway CPU while idle (${IDLE_MS / 1000} s)`, gateway: pct(idleCpuShare) },
    'Logging',
    { metric: 'rows in requests / gateway requests', gateway: `${int(rows)} / ${int(expectedRows)}`, target: 'one row per request', result: check(rows === expectedRows) },
    { metric: 'failed requests', direct: int(direct.failed), gateway: int(viaGateway.failed), target: '0', result: check(direct.failed === 0 && viaGateway.failed === 0) },
  ];

  log('');
  log(renderTable(rows_));
  log(`  ${placement.note}`);
  log(`  Added = gateway - direct, same request body (direct uses the upstream model id "${UPSTREAM_MODEL}"); CPU ticks at ${clkTck()} Hz.`);
  log(`  Soak: ${int(soak.latency.count)} requests at ${int(soak.rps)} req/s, latency p50 ${ms(soak.latency.summary().p50)}, p99 ${ms(soak.latency.summary().p99)}; RSS every ${SOAK_SAMPLE_MS / 1000} s (MB): ${rssSamples.map((s) => s.rssMb.toFixed(0)).join(' ')}.`);
  log(`  Log rows settled ${Math.round(waitedMs)} ms after the last request.`);
  if (!placement.pinned) log('  NOTE: processes were not pinned to cores; throughput and CPU figures share the machine with the load generator.');
  if (loadSideMayLimit) {
    const cause = loopCpu.otherUtilisation > NOISY_OTHER_CPU
      ? `other processes used ${pct(loopCpu.otherUtilisation)} of a core meanwhile`
      : 'the load side (generator + simulator + PostgreSQL on one core) may be limiting the gateway figures';
    log(`  NOTE: during the gateway throughput run the gateway used ${pct(loopCpu.gatewayUtilisation)} of core 0 and core 1 was ${pct(sideCoreBusy)} busy; direct reached ${int(loopDirect.rps)} req/s: ${cause}.`);
  }
  const noisy = Object.entries(cpu).filter(([, c]) => c.otherUtilisation > NOISY_OTHER_CPU);
  if (noisy.length > 0) {
    log(`  NOTE: the machine was not quiet: other processes and interrupts used ${noisy.map(([name, c]) => `${pct(c.otherUtilisation)} of a core during ${name}`).join(', ')}. Re-run on an idle machine for comparable figures.`);
  }
  if (failures.direct || failures.gateway) log(`  Failures: direct ${failures.direct} (${failures.lastDirectError ?? ''}), gateway ${failures.gateway} (${failures.lastGatewayError ?? ''}).`);
  log(`  Whole run ${totalSeconds.toFixed(0)} s.`);

  const results = {
    date: new Date().toISOString(),
    quick: QUICK,
    node: process.version,
    cpu: os.cpus()[0]?.model ?? null,
    cores: onlineCores(),
    placement,
    plan: { ...PLAN, streamChunkDelayMs: STREAM_CHUNK_DELAY_MS, outputTokens: OUTPUT_TOKENS },
    targets: TARGETS,
    oneConnection: { direct: latencyJson(seqDirect), gateway: latencyJson(seqGateway), addedP50Ms: round(seqAddedP50), addedP99Ms: round(added(seqDirect.p99, seqGateway.p99)), pass: seqAddedP50 <= TARGETS.addedP50OneConnMs },
    fixedRate: {
      rps: PLAN.rateRps,
      direct: { ...latencyJson(rd), achievedRps: round(rateDirect.rps, 1), sendLagP99Ms: round(rateDirect.sendLag.summary().p99), failed: rateDirect.failed },
      gateway: { ...latencyJson(rg), achievedRps: round(rateGateway.rps, 1), sendLagP99Ms: round(rateGateway.sendLag.summary().p99), failed: rateGateway.failed },
      addedP50Ms: round(added(rd.p50, rg.p50)),
      addedP99Ms: round(rateAddedP99),
      gatewayCpu: cpuJson(rateCpuReport),
      pass: rateAddedP99 <= TARGETS.addedP99At500Ms,
    },
    throughput: {
      connections: PLAN.loopConnections,
      direct: { rps: round(loopDirect.rps, 1), completed: loopDirect.completed, failed: loopDirect.failed, latency: latencyJson(ld), cpu: cpuJson(loopDirectCpuReport) },
      gateway: { rps: round(loopGateway.rps, 1), completed: loopGateway.completed, failed: loopGateway.failed, latency: latencyJson(lg), cpu: cpuJson(loopCpu) },
      pass: loopGateway.rps >= TARGETS.minRps,
      cpuPerRequestUs: round(loopCpu.gatewayCpuUsPerRequest, 1),
      cpuPass: loopCpu.gatewayCpuUsPerRequest <= TARGETS.maxCpuUsPerRequest,
      loadSideMayLimit,
    },
    streaming: {
      chunkDelayMs: STREAM_CHUNK_DELAY_MS,
      direct: { firstChunk: latencyJson(sd.firstChunk), total: latencyJson(sd.total), failed: sd.failed, eventsMedian: sd.eventsMedian, choiceChunksMedian: sd.choiceChunksMedian, contentChunksMedian: sd.contentChunksMedian, contentArrivalsMedian: sd.contentArrivalsMedian },
      gateway: { firstChunk: latencyJson(sg.firstChunk), total: latencyJson(sg.total), failed: sg.failed, eventsMedian: sg.eventsMedian, choiceChunksMedian: sg.choiceChunksMedian, contentChunksMedian: sg.contentChunksMedian, contentArrivalsMedian: sg.contentArrivalsMedian },
      addedFirstChunkP50Ms: round(ttfcAddedP50),
      addedFirstChunkP99Ms: round(ttfcAddedP99),
      pass: ttfcAddedP50 <= TARGETS.addedFirstChunkMs,
      sameChunks,
      notCoalesced,
    },
    memory: {
      peakMb: round(final.hwmMb, 1),
      rssAfterWarmupMb: round(afterWarmup.rssMb, 1),
      rssAfterSoakMb: round(afterSoak.rssMb, 1),
      rssIdleMb: round(idleMemory.rssMb, 1),
      idleCpuShare: round(idleCpuShare),
      soakFirstWindowMedianMb: round(firstWindowMb, 1),
      soakLastWindowMedianMb: round(lastWindowMb, 1),
      rssEndMb: round(final.rssMb, 1),
      soak: { seconds: round(soak.seconds, 1), rps: round(soak.rps, 1), requests: soak.latency.count, failed: soak.failed, latency: latencyJson(soak.latency.summary()), rssSamples },
      flat,
      pass: final.hwmMb < TARGETS.maxPeakMb,
    },
    logging: { rows, gatewayRequests: expectedRows, settledMs: Math.round(waitedMs), complete: rows === expectedRows },
    cpuByPhase: Object.fromEntries(Object.entries(cpu).map(([name, c]) => [name, cpuJson(c)])),
    failures,
    runSeconds: round(totalSeconds, 1),
  };
  const resultsDir = fileURLToPath(new URL('./results/', import.meta.url));
  await mkdir(resultsDir, { recursive: true });
  const file = path.join(resultsDir, 'latest.json');
  await writeFile(file, `${JSON.stringify(results, null, 2)}\n`);
  log(`  Figures written to ${path.relative(process.cwd(), file)}`);
}

let exitCode = 0;
try {
  await main();
} catch (err) {
  exitCode = 1;
  process.stderr.write(`\nbenchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
} finally {
  await cleanup();
}
process.exit(exitCode);
