// Gateway benchmark: `npm run bench`. Starts an embedded PostgreSQL, the upstream simulator and
// the gateway (the real entry point, logging on), drives the same request body at the simulator
// directly and through the gateway, and prints added latency, throughput, CPU per request,
// streaming time to first chunk and memory, each next to its target. It asserts nothing.
// A bare pass-through Node proxy (lib/bare-proxy.ts) is measured alongside as a reference: it
// separates what any Node proxy costs in this layout from the gateway's own work.
//
// Layout on a 2-core machine: the gateway (and the idle-unless-measured bare proxy) on core 0;
// this process (the load generator), the simulator and PostgreSQL on core 1. Everything listens on
// 127.0.0.1 and is stopped at the end, also on failure or Ctrl-C.
//
// BENCH_QUICK=1 shortens every phase (for trying changes to the benchmark itself);
// BENCH_PROFILE=1 also records CPU profiles of the gateway during its fixed-rate and throughput runs
// (through the inspector; the profiler slows the gateway, so those runs' figures are then not
// comparable), writes them to results/gateway-<run>.cpuprofile and prints where the time went.
//
// The gateway runs with --inspect on an ephemeral loopback port: the flat-memory soak, the last
// phase, forces a full garbage collection before and after it, so it compares live data rather
// than GC timing. (A forced GC makes V8 re-tune its heap limits and costs tail latency for tens of
// seconds afterwards, which is why nothing is measured after it.)

import { execFileSync } from 'node:child_process';
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
  closedLoop,
  constantRate,
  fetchJson,
  keepAliveClient,
  keepAlivePool,
  sequentialInterleaved,
  streamOnce,
  target,
  type LoopResult,
  type RateResult,
  type StreamResult,
} from './lib/load.js';
import { splitTimings, type ServerTimingSample } from './lib/server-timing.js';
import { InspectorSession } from './lib/inspector.js';
import { describeMachineFloor, measureMachineFloor } from './lib/machine-floor.js';
import { summariseProfile, type CpuProfile } from './lib/profile.js';
import {
  cleanup,
  flagList,
  GATEWAY_NODE_ARGS,
  HARNESS_NODE_ARGS,
  installCleanupHandlers,
  isInterrupted,
  spawnNode,
  startDatabase,
  type ChildHandle,
} from './lib/processes.js';
import {
  allowedCpus,
  busySecondsBetween,
  childrenOf,
  clkTck,
  coreBusyBetween,
  cpuSecondsBetween,
  hasTaskset,
  interruptSecondsBetween,
  onlineCores,
  pinSelf,
  readCoreTimes,
  readCpuTicks,
  readForkCount,
  readMemory,
  readTreeTicks,
  snapshotProcesses,
  topProcessesBetween,
} from './lib/proc.js';
import { check, int, mb, ms, pct, renderTable, signedMb, signedMs, verdict, type Row } from './lib/report.js';
import { median, round, Samples, summarize, type Summary } from './lib/stats.js';

const QUICK = process.env.BENCH_QUICK === '1';
const PROFILE = process.env.BENCH_PROFILE === '1';

const PLAN = QUICK
  ? {
      warmupMs: 1_000,
      soakMs: 5_000,
      soakRps: 1_000,
      sequential: 300,
      rateRps: 500,
      rateMs: 3_000,
      rateBlocks: 3,
      loopConnections: 128,
      loopWarmupMs: 1_000,
      loopMs: 3_000,
      streams: 40,
      streamWarmup: 5,
    }
  : {
      warmupMs: 3_000,
      soakMs: 30_000,
      soakRps: 1_000,
      sequential: 2_000,
      rateRps: 500,
      rateMs: 10_000,
      rateBlocks: 5,
      loopConnections: 128,
      loopWarmupMs: 2_000,
      loopMs: 10_000,
      streams: 300,
      streamWarmup: 20,
    };

const STREAM_CHUNK_DELAY_MS = 5;
const OUTPUT_TOKENS = 20;
const SOAK_SAMPLE_MS = 1_000;
/** Flat memory: V8 heap in use after a full GC may grow at most this much over the soak. */
const FLAT_HEAP_MB = 5;
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
  if (process.platform !== 'linux' || !existsSync('/proc/self/stat'))
    throw new Error('the benchmark reads /proc and needs Linux');
  const cores = onlineCores();
  if (!hasTaskset())
    return {
      pinned: false,
      note: `taskset not found: running UNPINNED on ${cores} core(s); figures are not comparable with pinned runs`,
    };
  if (cores < 2)
    return {
      pinned: false,
      note: `only ${cores} core: running UNPINNED (gateway, load generator, simulator and PostgreSQL share it)`,
    };
  // Everything started from here on (PostgreSQL, the simulator) inherits core 1.
  pinSelf(1);
  return {
    pinned: true,
    gatewayCore: 0,
    sideCore: 1,
    note: `pinned: gateway and bare proxy on core 0; load generator (this process, cpus ${allowedCpus()}), simulator and PostgreSQL on core 1`,
  };
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
  const res = await request(`${simUrl}/_simulator/config`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(patch),
  });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`simulator config failed: ${res.statusCode} ${text}`);
}

interface Pids {
  gateway: number;
  bare: number;
  simulator: number;
  postgres: number;
}

/** The proxy process a phase loads: its CPU per request is computed. */
type Subject = 'gateway' | 'bare' | null;

/**
 * CPU over a measured window: the proxies', the other benchmark processes', and whatever else kept
 * the machine busy (other processes, interrupts), which makes the figures noisy.
 */
class CpuWindow {
  private readonly startAt = performance.now();
  private readonly startCores = readCoreTimes();
  private readonly startSelf = process.cpuUsage();
  private readonly startProcesses = snapshotProcesses();
  private readonly startForks = readForkCount();
  private readonly start;

  constructor(private readonly pids: Pids) {
    this.start = this.read();
  }

  private read() {
    return {
      gateway: readCpuTicks(this.pids.gateway),
      bare: readCpuTicks(this.pids.bare),
      simulator: readCpuTicks(this.pids.simulator),
      postgres: readTreeTicks(this.pids.postgres),
    };
  }

  end(requests: number, subject: Subject) {
    const seconds = (performance.now() - this.startAt) / 1000;
    const now = this.read();
    const self = process.cpuUsage(this.startSelf);
    const cores = readCoreTimes();
    const gatewayS = cpuSecondsBetween(this.start.gateway, now.gateway);
    const bareS = cpuSecondsBetween(this.start.bare, now.bare);
    const simulatorS = cpuSecondsBetween(this.start.simulator, now.simulator);
    const postgresS = cpuSecondsBetween(this.start.postgres, now.postgres);
    const generatorS = (self.user + self.system) / 1e6;
    const otherS = busySecondsBetween(this.startCores, cores) - gatewayS - bareS - simulatorS - postgresS - generatorS;
    const interruptS = interruptSecondsBetween(this.startCores, cores);
    const ours = new Set([
      this.pids.gateway,
      this.pids.bare,
      this.pids.simulator,
      this.pids.postgres,
      process.pid,
      ...childrenOf(this.pids.postgres),
    ]);
    const top = topProcessesBetween(this.startProcesses, snapshotProcesses(), ours, 3);
    const subjectS = subject === 'gateway' ? gatewayS : subject === 'bare' ? bareS : NaN;
    return {
      seconds,
      requests,
      subject,
      /** CPU of the loaded proxy process per completed request. */
      proxyCpuUsPerRequest: requests > 0 ? (subjectS * 1e6) / requests : NaN,
      /** Only meaningful when the gateway is the subject (the log writer's inserts). */
      postgresCpuUsPerRequest: requests > 0 && subject === 'gateway' ? (postgresS * 1e6) / requests : NaN,
      proxyUtilisation: subjectS / seconds,
      gatewayUtilisation: gatewayS / seconds,
      bareUtilisation: bareS / seconds,
      simulatorUtilisation: simulatorS / seconds,
      postgresUtilisation: postgresS / seconds,
      loadGeneratorUtilisation: generatorS / seconds,
      /** Cores' worth of CPU used by anything else (other processes, interrupt handling). */
      otherUtilisation: Math.max(0, otherS / seconds),
      /** The part of it spent in irq/softirq (charged to no process; loopback TCP lands here). */
      interruptUtilisation: interruptS / seconds,
      /** The busiest processes outside the benchmark. */
      otherTop: top.map((p) => ({ name: p.name, pid: p.pid, utilisation: p.seconds / seconds })),
      /** Processes started on the machine during the window (short-lived ones are not in otherTop). */
      processesStarted: readForkCount() - this.startForks,
      coreBusy: coreBusyBetween(this.startCores, cores),
    };
  }
}
type CpuReport = ReturnType<CpuWindow['end']>;

/** CPU of processes outside the benchmark (interrupt time is mostly the benchmark's own traffic). */
const foreignCpu = (c: CpuReport): number => Math.max(0, c.otherUtilisation - c.interruptUtilisation);

function latencyJson(s: Summary) {
  return {
    count: s.count,
    mean: round(s.mean),
    min: round(s.min),
    p50: round(s.p50),
    p90: round(s.p90),
    p99: round(s.p99),
    max: round(s.max),
  };
}

function cpuJson(c: CpuReport) {
  return {
    seconds: round(c.seconds),
    requests: c.requests,
    subject: c.subject,
    proxyCpuUsPerRequest: round(c.proxyCpuUsPerRequest, 1),
    postgresCpuUsPerRequest: round(c.postgresCpuUsPerRequest, 1),
    proxyUtilisation: round(c.proxyUtilisation),
    gatewayUtilisation: round(c.gatewayUtilisation),
    bareUtilisation: round(c.bareUtilisation),
    simulatorUtilisation: round(c.simulatorUtilisation),
    postgresUtilisation: round(c.postgresUtilisation),
    loadGeneratorUtilisation: round(c.loadGeneratorUtilisation),
    otherUtilisation: round(c.otherUtilisation),
    interruptUtilisation: round(c.interruptUtilisation),
    otherTop: c.otherTop.map((p) => ({ ...p, utilisation: round(p.utilisation) })),
    processesStarted: c.processesStarted,
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
      if (rows >= expected || now - stableSince > 3_000 || now - started > 30_000)
        return { rows, waitedMs: now - started };
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
    /** The gateway's own time to the first chunk, from its Server-Timing (empty for the others). */
    insideGateway: summarize(ok.map((r) => r.gatewayMs).filter(Number.isFinite)),
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
  log(
    `Gateway benchmark${QUICK ? ' (BENCH_QUICK: shortened phases)' : ''}: node ${process.version}, ${os.cpus()[0]?.model ?? 'cpu'} x${onlineCores()}`,
  );
  log(`  ${placement.note}`);
  const quiet = await waitForQuietMachine();
  log(
    `  machine before start: ${pct(quiet.busyCores)} of a core busy${quiet.quiet ? '' : ` (still busy after ${QUIET_WAIT_MS / 1000} s: other work is running, figures will be noisy)`}`,
  );
  const floor = placement.pinned ? await measureMachineFloor(placement.sideCore!, placement.gatewayCore!) : undefined;
  if (floor) log(`  machine floor: ${describeMachineFloor(floor)}`);

  // --- processes -----------------------------------------------------------------------------
  phase('starting PostgreSQL, simulator, gateway and bare proxy');
  const db = await startDatabase();
  const sim = spawnNode(
    'simulator',
    'server/simulator/main.ts',
    { PORT: '0', HOST: '127.0.0.1' },
    { core: placement.sideCore, nodeArgs: HARNESS_NODE_ARGS },
  );
  const simUrl = (await sim.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
  await simulatorConfig(simUrl, { outputTokens: OUTPUT_TOKENS, chunkDelayMs: 0, latencyMs: 0 });
  const simChatUrl = `${simUrl}/openai/v1/chat/completions`;

  // The production artifact (npm run build; npm run start:prod, with its V8 flags) unless BENCH_SOURCE=1 asks for the
  // TypeScript sources under tsx, whose loader thread costs memory and start-up time.
  const fromSource = process.env.BENCH_SOURCE === '1';
  if (!fromSource) execFileSync('npm', ['run', 'build'], { stdio: 'ignore' });
  const gateway: ChildHandle = spawnNode(
    'gateway',
    fromSource ? 'server/main.ts' : 'dist/server/main.js',
    {
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
      // Port 0: the inspector picks a free loopback port and prints its address on stderr.
    },
    {
      core: placement.gatewayCore,
      nodeArgs: [
        '--inspect=127.0.0.1:0',
        ...(process.env.BENCH_NODE_ARGS === undefined ? GATEWAY_NODE_ARGS : flagList(process.env.BENCH_NODE_ARGS)),
      ],
      compiled: !fromSource,
    },
  );
  const bare: ChildHandle = spawnNode(
    'bare proxy',
    fileURLToPath(new URL('./lib/bare-proxy.ts', import.meta.url)),
    {
      PORT: '0',
      HOST: '127.0.0.1',
      UPSTREAM_URL: simChatUrl,
    },
    { core: placement.gatewayCore, nodeArgs: HARNESS_NODE_ARGS },
  );
  const gatewayUrl = (await gateway.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
  const bareUrl = (await bare.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
  const inspector = await InspectorSession.connect(
    (await gateway.waitFor(/Debugger listening on (ws:\/\/127\.0\.0\.1:\d+\/[\w-]+)/))[1]!,
  );
  const pids: Pids = { gateway: gateway.pid, bare: bare.pid, simulator: sim.pid, postgres: db.postmasterPid() };
  log(
    `  gateway ${gatewayUrl} (pid ${gateway.pid}, cpus ${allowedCpus(gateway.pid)}), bare proxy ${bareUrl} (pid ${bare.pid}, cpus ${allowedCpus(bare.pid)})`,
  );
  log(
    `  simulator ${simUrl} (pid ${sim.pid}, cpus ${allowedCpus(sim.pid)}), PostgreSQL 127.0.0.1:${db.port} (pid ${pids.postgres}, cpus ${allowedCpus(pids.postgres)})`,
  );

  /** With BENCH_PROFILE=1: gateway CPU profiles of the fixed-rate and throughput runs. */
  const profiles: Record<string, CpuProfile> = {};
  const profiled = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
    if (!PROFILE) return run();
    await inspector.startProfile();
    const r = await run();
    profiles[name] = (await inspector.stopProfile()) as CpuProfile;
    return r;
  };
  /** CPU accounting of every measured phase, by phase name. */
  const cpu: Record<string, CpuReport> = {};
  const measure = async <T>(
    name: string,
    subject: Subject,
    run: () => Promise<T>,
    requests: (r: T) => number,
  ): Promise<T> => {
    const w = new CpuWindow(pids);
    const r = await run();
    cpu[name] = w.end(requests(r), subject);
    return r;
  };

  // The same body everywhere; the simulator itself only knows the upstream model id.
  const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const upstreamBody = { model: UPSTREAM_MODEL, ...BODY };
  const gatewayBody = { model: GATEWAY_MODEL, ...BODY };
  const t = {
    direct: target('direct', simChatUrl, auth, upstreamBody),
    bare: target('bare', `${bareUrl}/v1/chat/completions`, auth, upstreamBody),
    gateway: target('gateway', `${gatewayUrl}/v1/chat/completions`, auth, gatewayBody),
  };
  const streamBodies = {
    direct: JSON.stringify({ ...upstreamBody, stream: true }),
    bare: JSON.stringify({ ...upstreamBody, stream: true }),
    gateway: JSON.stringify({ ...gatewayBody, stream: true }),
  };
  const KINDS = ['direct', 'bare', 'gateway'] as const;
  type Kind = (typeof KINDS)[number];
  const subjectOf = (k: Kind): Subject => (k === 'direct' ? null : k);

  // --- sanity --------------------------------------------------------------------------------
  {
    const clients = KINDS.map((k) => keepAliveClient(t[k].origin));
    const answers = await Promise.all(KINDS.map((k, i) => fetchJson(clients[i]!, t[k])));
    await Promise.all(clients.map((c) => c.close()));
    for (const [i, a] of answers.entries()) {
      if (a.status !== 200)
        throw new Error(`${KINDS[i]} sanity request failed: ${a.status} ${JSON.stringify(a.json).slice(0, 500)}`);
    }
    const meta = (answers[2]!.json as { _gateway?: { provider?: string; model?: string; cached?: boolean } })._gateway;
    if (meta?.provider !== 'openai' || meta.cached !== false)
      throw new Error(`gateway sanity request not served upstream: ${JSON.stringify(answers[2]!.json).slice(0, 500)}`);
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
    bare: keepAlivePool(bareUrl, PLAN.loopConnections),
    gateway: keepAlivePool(gatewayUrl, PLAN.loopConnections),
  };
  for (const k of KINDS) await closedLoop(pools[k], t[k], 32, PLAN.warmupMs);
  await sequentialInterleaved(
    KINDS.map((k) => t[k]),
    300,
  );
  await sleep(500);
  const afterWarmup = readMemory(gateway.pid);

  // --- 1. one connection ---------------------------------------------------------------------
  phase(`1 connection: ${PLAN.sequential} sequential requests per target (interleaved in blocks of 100)`);
  const seqSamples = await measure(
    'oneConnection',
    null,
    () =>
      sequentialInterleaved(
        KINDS.map((k) => t[k]),
        PLAN.sequential,
      ),
    () => 0,
  );
  const seq = Object.fromEntries(KINDS.map((k, i) => [k, seqSamples[i]!.summary()])) as Record<Kind, Summary>;

  // --- 2. fixed rate -------------------------------------------------------------------------
  // Interleaved in blocks, as phase 1 is: a burst of other work on the machine then lands on every
  // target alike instead of on whichever one happened to be running (p99 is sensitive to that).
  phase(
    `fixed rate: ${PLAN.rateRps} req/s open loop for ${PLAN.rateMs / 1000} s per target, in ${PLAN.rateBlocks} interleaved blocks`,
  );
  const rateBlocks = Object.fromEntries(KINDS.map((k) => [k, [] as RateResult[]])) as Record<Kind, RateResult[]>;
  const blockMs = PLAN.rateMs / PLAN.rateBlocks;
  // The gateway's Server-Timing of every fixed-rate request: where its tail's time went.
  const rateTimings: ServerTimingSample[] = (t.gateway.timings = []);
  for (let b = 0; b < PLAN.rateBlocks; b++) {
    for (const k of KINDS) {
      const run = () =>
        measure(
          `fixedRate-${k}-${b}`,
          subjectOf(k),
          () => constantRate(pools[k], t[k], PLAN.rateRps, blockMs),
          (r) => r.latency.count,
        );
      rateBlocks[k].push(k === 'gateway' ? await profiled(`fixed-rate-${b}`, run) : await run());
    }
  }
  t.gateway.timings = undefined;
  const rate = Object.fromEntries(KINDS.map((k) => [k, mergeRates(rateBlocks[k])])) as Record<Kind, RateResult>;
  const rateSplit = splitTimings(rateTimings);
  /** Per-request CPU over a target's blocks, weighted by the requests of each. */
  const rateCpu = (k: Kind, field: 'proxyCpuUsPerRequest' | 'postgresCpuUsPerRequest'): number => {
    const blocks = rateBlocks[k].map((_, b) => cpu[`fixedRate-${k}-${b}`]!);
    const requests = blocks.reduce((n, w) => n + w.requests, 0);
    return blocks.reduce((sum, w) => sum + w[field] * w.requests, 0) / requests;
  };

  // --- 3 + 4. throughput and CPU per request -------------------------------------------------
  phase(
    `throughput: ${PLAN.loopConnections} connections, ${PLAN.loopWarmupMs / 1000} s warm-up + ${PLAN.loopMs / 1000} s per target`,
  );
  const loop = {} as Record<Kind, LoopResult>;
  for (const k of KINDS) {
    await closedLoop(pools[k], t[k], PLAN.loopConnections, PLAN.loopWarmupMs);
    const run = () =>
      measure(
        `throughput-${k}`,
        subjectOf(k),
        () => closedLoop(pools[k], t[k], PLAN.loopConnections, PLAN.loopMs),
        (r) => r.completed,
      );
    loop[k] = k === 'gateway' ? await profiled('throughput', run) : await run();
  }
  await Promise.all([pools.direct.close(), pools.bare.close()]);

  // --- 5. streaming --------------------------------------------------------------------------
  phase(
    `streaming: ${PLAN.streams} streams per target, one at a time, in turn; ${OUTPUT_TOKENS} content chunks ${STREAM_CHUNK_DELAY_MS} ms apart`,
  );
  await simulatorConfig(simUrl, { chunkDelayMs: STREAM_CHUNK_DELAY_MS, outputTokens: OUTPUT_TOKENS });
  const streamClients = {
    direct: keepAliveClient(simUrl),
    bare: keepAliveClient(bareUrl),
    gateway: keepAliveClient(gatewayUrl),
  };
  for (let i = 0; i < PLAN.streamWarmup; i++)
    for (const k of KINDS) await streamOnce(streamClients[k], t[k], streamBodies[k]);
  const streams: Record<Kind, StreamResult[]> = { direct: [], bare: [], gateway: [] };
  await measure(
    'streaming',
    null,
    async () => {
      for (let i = 0; i < PLAN.streams; i++)
        for (const k of KINDS) streams[k].push(await streamOnce(streamClients[k], t[k], streamBodies[k]));
    },
    () => 0,
  );
  await Promise.all(KINDS.map((k) => streamClients[k].close()));
  await simulatorConfig(simUrl, { chunkDelayMs: 0 });
  const st = Object.fromEntries(KINDS.map((k) => [k, streamSummary(streams[k])])) as Record<
    Kind,
    ReturnType<typeof streamSummary>
  >;
  // Same content chunks for every pair, and through the gateway they arrive in as many separate reads.
  const sameChunks =
    st.direct.failed === 0 &&
    st.gateway.failed === 0 &&
    streams.direct.every(
      (r, i) => r.contentChunks === OUTPUT_TOKENS && streams.gateway[i]!.contentChunks === OUTPUT_TOKENS,
    );
  const notCoalesced = st.gateway.contentArrivalsMedian >= st.direct.contentArrivalsMedian;

  // --- soak (flat memory) --------------------------------------------------------------------
  phase(
    `soak: ${PLAN.soakRps} req/s through the gateway for ${PLAN.soakMs / 1000} s, RSS sampled every ${SOAK_SAMPLE_MS / 1000} s`,
  );
  // Last, because the forced full GCs around it make V8 re-tune its heap limits, which costs the
  // gateway extra major GCs (and tail latency) for tens of seconds afterwards.
  const heapBeforeSoak = await inspector.heapAfterGc();
  const beforeSoak = readMemory(gateway.pid);
  const rssSamples: Array<{ atS: number; rssMb: number }> = [{ atS: 0, rssMb: round(beforeSoak.rssMb, 1) }];
  const soakStart = performance.now();
  const sampler = setInterval(() => {
    rssSamples.push({
      atS: round((performance.now() - soakStart) / 1000, 1),
      rssMb: round(readMemory(gateway.pid).rssMb, 1),
    });
  }, SOAK_SAMPLE_MS);
  let soak: RateResult;
  try {
    soak = await measure(
      'soak',
      'gateway',
      () => constantRate(pools.gateway, t.gateway, PLAN.soakRps, PLAN.soakMs),
      (r) => r.latency.count,
    );
  } finally {
    clearInterval(sampler);
  }
  rssSamples.push({
    atS: round((performance.now() - soakStart) / 1000, 1),
    rssMb: round(readMemory(gateway.pid).rssMb, 1),
  });
  await pools.gateway.close();
  const heapAfterSoak = await inspector.heapAfterGc();
  const afterSoak = readMemory(gateway.pid);

  // --- 6. peak memory, log rows -------------------------------------------------------------
  const final = readMemory(gateway.pid);
  phase('waiting for the log writer: counting rows in requests');
  const expectedRows = t.gateway.sent;
  const { rows, waitedMs } = await countRequestRows(db.url, expectedRows);
  inspector.close();

  // --- report --------------------------------------------------------------------------------
  const d = (k: Kind, f: (k: Kind) => number) => f(k) - f('direct');
  const own = (f: (k: Kind) => number) => f('gateway') - f('bare');
  const rs = Object.fromEntries(KINDS.map((k) => [k, rate[k].latency.summary()])) as Record<Kind, Summary>;
  const ls = Object.fromEntries(KINDS.map((k) => [k, loop[k].latency.summary()])) as Record<Kind, Summary>;
  const lag = Object.fromEntries(KINDS.map((k) => [k, rate[k].sendLag.summary()])) as Record<Kind, Summary>;
  const c = {
    rate: {
      bare: { proxyCpuUsPerRequest: rateCpu('bare', 'proxyCpuUsPerRequest') },
      gateway: {
        proxyCpuUsPerRequest: rateCpu('gateway', 'proxyCpuUsPerRequest'),
        postgresCpuUsPerRequest: rateCpu('gateway', 'postgresCpuUsPerRequest'),
      },
    },
    loop: { direct: cpu['throughput-direct']!, bare: cpu['throughput-bare']!, gateway: cpu['throughput-gateway']! },
  };

  const seqAddedP50 = d('gateway', (k) => seq[k].p50);
  const rateAddedP99 = d('gateway', (k) => rs[k].p99);
  const ttfcAddedP50 = d('gateway', (k) => st[k].firstChunk.p50);
  const gwRps = loop.gateway.rps;
  const gwCpuUs = c.loop.gateway.proxyCpuUsPerRequest;
  // Both readings follow a forced full GC: RSS between GCs saws by tens of MB and says little.
  const rssGrowth = afterSoak.rssMb - beforeSoak.rssMb;
  const heapGrowth = heapAfterSoak.usedMb - heapBeforeSoak.usedMb;
  const flat = heapGrowth <= FLAT_HEAP_MB;
  const soakRss = summarize(rssSamples.map((s) => s.rssMb));
  const sideCoreBusy = c.loop.gateway.coreBusy[1] ?? NaN;
  // The gateway figures are its own only when it, not core 1, was the bottleneck.
  const loadSideMayLimit =
    (placement.pinned && sideCoreBusy > 0.9 && c.loop.gateway.gatewayUtilisation < 0.9) ||
    loop.direct.rps <= gwRps * 1.2;
  const totalSeconds = (performance.now() - runStarted) / 1000;
  const failures = Object.fromEntries(
    KINDS.map((k) => [k, { failed: t[k].failed, lastError: t[k].lastError ?? null }]),
  );
  const failedTotal = KINDS.reduce((n, k) => n + t[k].failed, 0);

  const lat = (f: (k: Kind) => number, digits = 3): Pick<Row, 'direct' | 'bare' | 'gateway' | 'added' | 'own'> => ({
    direct: ms(f('direct'), digits),
    bare: ms(f('bare'), digits),
    gateway: ms(f('gateway'), digits),
    added: signedMs(d('gateway', f), digits),
    own: signedMs(own(f), digits),
  });
  const us = (v: number) => `${int(v)} us`;
  const pair = (a: string, b: string) => `${a} / ${b}`;

  const table: Array<Row | string> = [
    `1. One connection, ${PLAN.sequential} sequential requests per target`,
    {
      metric: 'latency p50',
      ...lat((k) => seq[k].p50),
      target: `added <= ${TARGETS.addedP50OneConnMs} ms`,
      result: verdict(seqAddedP50 <= TARGETS.addedP50OneConnMs),
    },
    { metric: 'latency p99', ...lat((k) => seq[k].p99) },
    `2. Fixed rate ${PLAN.rateRps} req/s, open loop, ${PLAN.rateMs / 1000} s per target in ${PLAN.rateBlocks} interleaved blocks (achieved ${KINDS.map((k) => int(rate[k].rps)).join(' / ')} req/s)${PROFILE ? ' (gateway run PROFILED)' : ''}`,
    { metric: 'latency p50', ...lat((k) => rs[k].p50) },
    {
      metric: 'latency p99',
      ...lat((k) => rs[k].p99),
      target: `added <= ${TARGETS.addedP99At500Ms} ms`,
      result: verdict(rateAddedP99 <= TARGETS.addedP99At500Ms),
    },
    { metric: 'inside the gateway p50 / p99', gateway: pair(ms(rateSplit.gateway.p50), ms(rateSplit.gateway.p99)) },
    {
      metric: 'slowest 1%: gateway / upstream / outside',
      gateway: [rateSplit.slowest.gateway, rateSplit.slowest.upstream, rateSplit.slowest.outside]
        .map((v) => ms(v, 2))
        .join(' / '),
    },
    {
      metric: 'generator send lag p99',
      direct: ms(lag.direct.p99),
      bare: ms(lag.bare.p99),
      gateway: ms(lag.gateway.p99),
    },
    {
      metric: 'proxy CPU per request',
      bare: us(c.rate.bare.proxyCpuUsPerRequest),
      gateway: us(c.rate.gateway.proxyCpuUsPerRequest),
      own: us(c.rate.gateway.proxyCpuUsPerRequest - c.rate.bare.proxyCpuUsPerRequest),
    },
    { metric: 'PostgreSQL CPU per request', gateway: us(c.rate.gateway.postgresCpuUsPerRequest) },
    `3+4. Throughput, ${PLAN.loopConnections} connections, closed loop, ${PLAN.loopMs / 1000} s per target${PROFILE ? ' (gateway run PROFILED: slower than normal)' : ''}`,
    {
      metric: 'requests/s',
      direct: int(loop.direct.rps),
      bare: int(loop.bare.rps),
      gateway: int(gwRps),
      target: `>= ${int(TARGETS.minRps)} (1 core)`,
      result: verdict(gwRps >= TARGETS.minRps),
    },
    {
      metric: 'latency p50 / p99',
      direct: pair(ms(ls.direct.p50, 1), ms(ls.direct.p99, 1)),
      bare: pair(ms(ls.bare.p50, 1), ms(ls.bare.p99, 1)),
      gateway: pair(ms(ls.gateway.p50, 1), ms(ls.gateway.p99, 1)),
    },
    {
      metric: 'proxy CPU per request',
      bare: us(c.loop.bare.proxyCpuUsPerRequest),
      gateway: us(gwCpuUs),
      own: us(gwCpuUs - c.loop.bare.proxyCpuUsPerRequest),
      target: `<= ${TARGETS.maxCpuUsPerRequest} us`,
      result: verdict(gwCpuUs <= TARGETS.maxCpuUsPerRequest),
    },
    {
      metric: 'proxy process CPU',
      bare: pct(c.loop.bare.proxyUtilisation),
      gateway: pct(c.loop.gateway.proxyUtilisation),
    },
    {
      metric: 'core 0 / core 1 busy',
      direct: pair(pct(c.loop.direct.coreBusy[0] ?? NaN), pct(c.loop.direct.coreBusy[1] ?? NaN)),
      bare: pair(pct(c.loop.bare.coreBusy[0] ?? NaN), pct(c.loop.bare.coreBusy[1] ?? NaN)),
      gateway: pair(pct(c.loop.gateway.coreBusy[0] ?? NaN), pct(sideCoreBusy)),
    },
    {
      metric: 'load generator / simulator CPU',
      direct: pair(pct(c.loop.direct.loadGeneratorUtilisation), pct(c.loop.direct.simulatorUtilisation)),
      bare: pair(pct(c.loop.bare.loadGeneratorUtilisation), pct(c.loop.bare.simulatorUtilisation)),
      gateway: pair(pct(c.loop.gateway.loadGeneratorUtilisation), pct(c.loop.gateway.simulatorUtilisation)),
    },
    {
      metric: 'PostgreSQL CPU (per request)',
      gateway: `${pct(c.loop.gateway.postgresUtilisation)} (${us(c.loop.gateway.postgresCpuUsPerRequest)})`,
    },
    {
      metric: 'other CPU: all / interrupts',
      direct: pair(pct(c.loop.direct.otherUtilisation), pct(c.loop.direct.interruptUtilisation)),
      bare: pair(pct(c.loop.bare.otherUtilisation), pct(c.loop.bare.interruptUtilisation)),
      gateway: pair(pct(c.loop.gateway.otherUtilisation), pct(c.loop.gateway.interruptUtilisation)),
    },
    `5. Streaming, ${PLAN.streams} streams per target, ${OUTPUT_TOKENS} content chunks ${STREAM_CHUNK_DELAY_MS} ms apart`,
    {
      metric: 'first chunk p50',
      ...lat((k) => st[k].firstChunk.p50),
      target: `added <= ${TARGETS.addedFirstChunkMs} ms`,
      result: verdict(ttfcAddedP50 <= TARGETS.addedFirstChunkMs),
    },
    { metric: 'first chunk p99', ...lat((k) => st[k].firstChunk.p99) },
    {
      metric: 'inside the gateway p50 / p99',
      gateway: pair(ms(st.gateway.insideGateway.p50), ms(st.gateway.insideGateway.p99)),
    },
    { metric: 'whole stream p50', ...lat((k) => st[k].total.p50, 1) },
    {
      metric: 'content chunks (median)',
      direct: String(st.direct.contentChunksMedian),
      bare: String(st.bare.contentChunksMedian),
      gateway: String(st.gateway.contentChunksMedian),
      target: `= ${OUTPUT_TOKENS} in every stream`,
      result: check(sameChunks),
    },
    {
      metric: 'reads carrying content (median)',
      direct: String(st.direct.contentArrivalsMedian),
      bare: String(st.bare.contentArrivalsMedian),
      gateway: String(st.gateway.contentArrivalsMedian),
      target: 'gateway >= direct',
      result: check(notCoalesced),
    },
    {
      metric: 'SSE events (median)',
      direct: String(st.direct.eventsMedian),
      bare: String(st.bare.eventsMedian),
      gateway: String(st.gateway.eventsMedian),
    },
    '6. Gateway memory',
    {
      metric: 'peak RSS (VmHWM, end of run)',
      gateway: mb(final.hwmMb),
      target: `< ${TARGETS.maxPeakMb} MB`,
      result: verdict(final.hwmMb < TARGETS.maxPeakMb),
    },
    { metric: 'RSS idle after start', gateway: mb(idleMemory.rssMb) },
    { metric: 'RSS after warm-up (no forced GC)', gateway: mb(afterWarmup.rssMb) },
    {
      metric: `RSS before -> after ${PLAN.soakMs / 1000} s soak (full GC)`,
      gateway: `${mb(beforeSoak.rssMb)} -> ${mb(afterSoak.rssMb)}`,
      added: signedMb(rssGrowth),
    },
    {
      metric: 'V8 heap used, same points',
      gateway: `${mb(heapBeforeSoak.usedMb)} -> ${mb(heapAfterSoak.usedMb)}`,
      added: signedMb(heapGrowth),
      target: `flat (+<= ${FLAT_HEAP_MB} MB)`,
      result: check(flat),
    },
    { metric: 'RSS during soak min / max', gateway: pair(mb(soakRss.min), mb(soakRss.max)) },
    { metric: 'RSS at end of run', gateway: mb(final.rssMb) },
    { metric: `gateway CPU while idle (${IDLE_MS / 1000} s)`, gateway: pct(idleCpuShare) },
    'Logging',
    {
      metric: 'rows in requests / gateway requests',
      gateway: `${int(rows)} / ${int(expectedRows)}`,
      target: 'one row per request',
      result: check(rows === expectedRows),
    },
    {
      metric: 'failed requests',
      direct: int(t.direct.failed),
      bare: int(t.bare.failed),
      gateway: int(t.gateway.failed),
      target: '0',
      result: check(failedTotal === 0),
    },
  ];

  log('');
  log(renderTable(table));
  log(`  ${placement.note}.`);
  log(
    `  Added = gateway - direct (the targets); Own = gateway - bare proxy (the gateway's own work). Same request body everywhere`,
  );
  log(
    `  (the simulator and the bare proxy get the upstream model id "${UPSTREAM_MODEL}"). CPU ticks at ${clkTck()} Hz.`,
  );
  log(
    `  Inside the gateway: its Server-Timing "gateway" share, from the request event to the response head (for a stream, which leaves`,
  );
  log(
    `  with its first chunk), the wait for the provider excluded. Slowest 1%: the mean split of the slowest fixed-rate requests into the`,
  );
  log(
    `  gateway's share, the upstream leg (through the simulator) and the rest, outside both (client-side legs: load generator, kernel,`,
  );
  log(`  queueing before the request event).`);
  log(
    `  Soak: ${int(soak.latency.count)} requests at ${int(soak.rps)} req/s, latency p50 ${ms(soak.latency.summary().p50)}, p99 ${ms(soak.latency.summary().p99)}; RSS every ${SOAK_SAMPLE_MS / 1000} s (MB): ${rssSamples.map((r) => r.rssMb.toFixed(0)).join(' ')}.`,
  );
  const profileSummaries = Object.fromEntries(
    Object.entries(profiles).map(([name, p]) => [name, summariseProfile(p, `${process.cwd()}/`)]),
  );
  for (const [name, summary] of Object.entries(profileSummaries)) {
    log(
      `  Gateway CPU profile, ${name} run (${Math.round(summary.busyMs)} ms of main-thread busy time; the profiler slowed that run). Top self time:`,
    );
    for (const f of summary.functions) log(`    ${(f.share * 100).toFixed(1).padStart(5)}%  ${f.name}`);
    log('   by area:');
    for (const a of summary.areas) log(`    ${(a.share * 100).toFixed(1).padStart(5)}%  ${a.name}`);
  }
  if (floor) {
    log(
      `  Machine floor, measured before the run: ${describeMachineFloor(floor)}. A proxied request makes two round trips`,
    );
    log(
      `  across cores (generator -> proxy -> generator, proxy -> simulator -> proxy) where a direct one makes none: part of "added" is the machine's.`,
    );
  }
  log(`  Log rows settled ${Math.round(waitedMs)} ms after the last request.`);
  if (!placement.pinned)
    log(
      '  NOTE: processes were not pinned to cores; throughput and CPU figures share the machine with the load generator.',
    );
  if (loadSideMayLimit) {
    const cause =
      foreignCpu(c.loop.gateway) > NOISY_OTHER_CPU
        ? `processes outside the benchmark used ${pct(foreignCpu(c.loop.gateway))} of a core meanwhile`
        : 'the load side (generator + simulator + PostgreSQL on one core) may be limiting the gateway figures';
    log(
      `  NOTE: during the gateway throughput run the gateway used ${pct(c.loop.gateway.gatewayUtilisation)} of core 0 and core 1 was ${pct(sideCoreBusy)} busy; direct reached ${int(loop.direct.rps)} req/s: ${cause}.`,
    );
  }
  const noisy = Object.entries(cpu).filter(([, w]) => foreignCpu(w) > NOISY_OTHER_CPU);
  if (noisy.length > 0) {
    const busiest = new Map<string, number>();
    for (const [, w] of noisy)
      for (const p of w.otherTop) busiest.set(p.name, Math.max(busiest.get(p.name) ?? 0, p.utilisation));
    const names = [...busiest]
      .sort((x, y) => y[1] - x[1])
      .slice(0, 3)
      .map(([name, u]) => `${name} ${pct(u)}`)
      .join(', ');
    log(
      `  NOTE: the machine was not quiet: processes outside the benchmark used ${noisy.map(([name, w]) => `${pct(foreignCpu(w))} of a core during ${name}`).join(', ')} (busiest: ${names}; ${noisy.reduce((n, [, w]) => n + w.processesStarted, 0)} processes started meanwhile). Re-run on an idle machine for comparable figures.`,
    );
  }
  if (failedTotal > 0)
    log(
      `  Failures: ${KINDS.map((k) => `${k} ${t[k].failed}${t[k].lastError ? ` (${t[k].lastError})` : ''}`).join(', ')}.`,
    );
  log(`  Whole run ${totalSeconds.toFixed(0)} s.`);

  const byKind = <T>(f: (k: Kind) => T) => Object.fromEntries(KINDS.map((k) => [k, f(k)])) as Record<Kind, T>;
  const results = {
    date: new Date().toISOString(),
    quick: QUICK,
    profiled: PROFILE,
    node: process.version,
    cpu: os.cpus()[0]?.model ?? null,
    cores: onlineCores(),
    placement,
    machineFloor: floor
      ? {
          otherCoreRoundTrip: latencyJson(floor.otherCore),
          sameCoreRoundTrip: latencyJson(floor.sameCore),
          pageFaultUs: round(floor.pageFaultUs, 2),
        }
      : null,
    plan: { ...PLAN, streamChunkDelayMs: STREAM_CHUNK_DELAY_MS, outputTokens: OUTPUT_TOKENS },
    targets: TARGETS,
    oneConnection: {
      ...byKind((k) => latencyJson(seq[k])),
      addedP50Ms: round(seqAddedP50),
      addedP99Ms: round(d('gateway', (k) => seq[k].p99)),
      ownP50Ms: round(own((k) => seq[k].p50)),
      pass: seqAddedP50 <= TARGETS.addedP50OneConnMs,
    },
    fixedRate: {
      rps: PLAN.rateRps,
      ...byKind((k) => ({
        ...latencyJson(rs[k]),
        achievedRps: round(rate[k].rps, 1),
        sendLagP99Ms: round(lag[k].p99),
        failed: rate[k].failed,
      })),
      addedP50Ms: round(d('gateway', (k) => rs[k].p50)),
      addedP99Ms: round(rateAddedP99),
      ownP99Ms: round(own((k) => rs[k].p99)),
      gatewayCpuUsPerRequest: round(c.rate.gateway.proxyCpuUsPerRequest, 1),
      bareCpuUsPerRequest: round(c.rate.bare.proxyCpuUsPerRequest, 1),
      postgresCpuUsPerRequest: round(c.rate.gateway.postgresCpuUsPerRequest, 1),
      // Server-Timing: the gateway's own time per request, and the slowest 1% split three ways.
      insideGateway: latencyJson(rateSplit.gateway),
      slowestSplitMs: {
        count: rateSplit.slowest.count,
        latency: round(rateSplit.slowest.latency),
        gateway: round(rateSplit.slowest.gateway),
        upstream: round(rateSplit.slowest.upstream),
        outside: round(rateSplit.slowest.outside),
      },
      pass: rateAddedP99 <= TARGETS.addedP99At500Ms,
    },
    throughput: {
      connections: PLAN.loopConnections,
      ...byKind((k) => ({
        rps: round(loop[k].rps, 1),
        completed: loop[k].completed,
        failed: loop[k].failed,
        latency: latencyJson(ls[k]),
      })),
      pass: gwRps >= TARGETS.minRps,
      cpuPerRequestUs: round(gwCpuUs, 1),
      bareCpuPerRequestUs: round(c.loop.bare.proxyCpuUsPerRequest, 1),
      postgresCpuPerRequestUs: round(c.loop.gateway.postgresCpuUsPerRequest, 1),
      cpuPass: gwCpuUs <= TARGETS.maxCpuUsPerRequest,
      loadSideMayLimit,
    },
    streaming: {
      chunkDelayMs: STREAM_CHUNK_DELAY_MS,
      ...byKind((k) => ({
        firstChunk: latencyJson(st[k].firstChunk),
        total: latencyJson(st[k].total),
        failed: st[k].failed,
        eventsMedian: st[k].eventsMedian,
        choiceChunksMedian: st[k].choiceChunksMedian,
        contentChunksMedian: st[k].contentChunksMedian,
        contentArrivalsMedian: st[k].contentArrivalsMedian,
      })),
      addedFirstChunkP50Ms: round(ttfcAddedP50),
      addedFirstChunkP99Ms: round(d('gateway', (k) => st[k].firstChunk.p99)),
      ownFirstChunkP50Ms: round(own((k) => st[k].firstChunk.p50)),
      insideGatewayFirstChunk: latencyJson(st.gateway.insideGateway),
      pass: ttfcAddedP50 <= TARGETS.addedFirstChunkMs,
      sameChunks,
      notCoalesced,
    },
    memory: {
      peakMb: round(final.hwmMb, 1),
      rssIdleMb: round(idleMemory.rssMb, 1),
      rssAfterWarmupMb: round(afterWarmup.rssMb, 1),
      rssBeforeSoakMb: round(beforeSoak.rssMb, 1),
      rssAfterSoakMb: round(afterSoak.rssMb, 1),
      rssEndMb: round(final.rssMb, 1),
      heapUsedBeforeSoakMb: round(heapBeforeSoak.usedMb, 1),
      heapUsedAfterSoakMb: round(heapAfterSoak.usedMb, 1),
      heapGrowthMb: round(heapGrowth, 1),
      idleCpuShare: round(idleCpuShare),
      soak: {
        seconds: round(soak.seconds, 1),
        rps: round(soak.rps, 1),
        requests: soak.latency.count,
        failed: soak.failed,
        latency: latencyJson(soak.latency.summary()),
        rssSamples,
      },
      flat,
      pass: final.hwmMb < TARGETS.maxPeakMb,
    },
    logging: { rows, gatewayRequests: expectedRows, settledMs: Math.round(waitedMs), complete: rows === expectedRows },
    profiles: profileSummaries,
    cpuByPhase: Object.fromEntries(Object.entries(cpu).map(([name, w]) => [name, cpuJson(w)])),
    failures,
    runSeconds: round(totalSeconds, 1),
  };
  const resultsDir = fileURLToPath(new URL('./results/', import.meta.url));
  await mkdir(resultsDir, { recursive: true });
  for (const [name, p] of Object.entries(profiles))
    await writeFile(path.join(resultsDir, `gateway-${name}.cpuprofile`), JSON.stringify(p));
  const file = path.join(resultsDir, 'latest.json');
  await writeFile(file, `${JSON.stringify(results, null, 2)}\n`);
  log(`  Figures written to ${path.relative(process.cwd(), file)}`);
}

let exitCode = 0;
try {
  await main();
} catch (err) {
  exitCode = 1;
  if (!isInterrupted())
    process.stderr.write(`\nbenchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
} finally {
  await cleanup();
}
process.exit(exitCode);

/** One run made of an interleaved run's blocks. */
function mergeRates(blocks: RateResult[]): RateResult {
  const latency = new Samples();
  const sendLag = new Samples();
  for (const b of blocks) {
    latency.addAll(b.latency);
    sendLag.addAll(b.sendLag);
  }
  const seconds = blocks.reduce((s, b) => s + b.seconds, 0);
  return {
    latency,
    sendLag,
    sent: blocks.reduce((n, b) => n + b.sent, 0),
    failed: blocks.reduce((n, b) => n + b.failed, 0),
    seconds,
    rps: latency.count / seconds,
  };
}
