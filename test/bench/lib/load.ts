import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Pool, type Dispatcher } from 'undici';
import { Samples } from './stats.js';
import { parseServerTiming, type ServerTimingSample } from './server-timing.js';

// A small keep-alive load generator on undici: sequential, constant-rate (open loop) and
// closed-loop runs, plus streamed requests timed to their first SSE byte. Latency is measured
// from handing the request to the client until the last byte of the body.

export interface Target {
  name: string;
  origin: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  /** Every request sent to this target, answered or not (the gateway logs one row per request). */
  sent: number;
  failed: number;
  lastError?: string;
  /** When set, every answered request adds its latency and its Server-Timing split here. */
  timings?: ServerTimingSample[];
}

export function target(name: string, url: string, headers: Record<string, string>, body: unknown): Target {
  const u = new URL(url);
  return {
    name,
    origin: u.origin,
    path: u.pathname + u.search,
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    sent: 0,
    failed: 0,
  };
}

export function keepAliveClient(origin: string): Client {
  return new Client(origin, { pipelining: 1, keepAliveTimeout: 60_000, keepAliveMaxTimeout: 600_000 });
}

export function keepAlivePool(origin: string, connections: number): Pool {
  return new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 60_000, keepAliveMaxTimeout: 600_000 });
}

/** One request, body read to the end; resolves with the latency in ms, or NaN on failure. */
export async function once(d: Dispatcher, t: Target, body = t.body): Promise<number> {
  t.sent++;
  const start = performance.now();
  try {
    const res = await d.request({ path: t.path, method: 'POST', headers: t.headers, body });
    await res.body.arrayBuffer();
    if (res.statusCode !== 200) {
      t.failed++;
      t.lastError = `HTTP ${res.statusCode}`;
      return NaN;
    }
    const latency = performance.now() - start;
    if (t.timings) t.timings.push({ latency, ...parseServerTiming(res.headers['server-timing']) });
    return latency;
  } catch (err) {
    t.failed++;
    t.lastError = (err as Error).message;
    return NaN;
  }
}

/** One request with the parsed JSON answer, for sanity checks. */
export async function fetchJson(d: Dispatcher, t: Target, body = t.body): Promise<{ status: number; json: unknown }> {
  t.sent++;
  const res = await d.request({ path: t.path, method: 'POST', headers: t.headers, body });
  const text = await res.body.text();
  if (res.statusCode !== 200) t.failed++;
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch {
    // keep the text
  }
  return { status: res.statusCode, json };
}

/**
 * Sequential requests at one connection per target, alternating between the targets in blocks
 * so both see the same machine conditions over time.
 */
export async function sequentialInterleaved(targets: Target[], perTarget: number, block = 100): Promise<Samples[]> {
  const clients = targets.map((t) => keepAliveClient(t.origin));
  const samples = targets.map(() => new Samples());
  try {
    for (let done = 0; done < perTarget; done += block) {
      const n = Math.min(block, perTarget - done);
      for (const [i, t] of targets.entries()) {
        for (let k = 0; k < n; k++) {
          const ms = await once(clients[i]!, t);
          if (!Number.isNaN(ms)) samples[i]!.add(ms);
        }
      }
    }
  } finally {
    await Promise.all(clients.map((c) => c.close()));
  }
  return samples;
}

export interface RateResult {
  latency: Samples;
  /** How late the generator sent each request compared with its schedule (generator health). */
  sendLag: Samples;
  sent: number;
  failed: number;
  seconds: number;
  /** Achieved completion rate. */
  rps: number;
}

/**
 * Open loop at a fixed rate: request i is sent at start + i/rps whatever the state of earlier
 * ones (up to `connections` in flight on the wire, more wait in the client's queue and that wait
 * counts in their latency).
 */
export async function constantRate(pool: Dispatcher, t: Target, rps: number, durationMs: number): Promise<RateResult> {
  const total = Math.round((rps * durationMs) / 1000);
  const interval = 1000 / rps;
  const latency = new Samples();
  const sendLag = new Samples();
  const failedBefore = t.failed;
  const inflight = new Set<Promise<void>>();
  const start = performance.now();
  let i = 0;
  while (i < total) {
    const now = performance.now();
    while (i < total && start + i * interval <= now) {
      sendLag.add(now - (start + i * interval));
      i++;
      const p: Promise<void> = once(pool, t).then((ms) => {
        if (!Number.isNaN(ms)) latency.add(ms);
        inflight.delete(p);
      });
      inflight.add(p);
    }
    if (i < total) await sleep(Math.max(0, start + i * interval - performance.now()));
  }
  await Promise.all(inflight);
  const seconds = (performance.now() - start) / 1000;
  return { latency, sendLag, sent: total, failed: t.failed - failedBefore, seconds, rps: latency.count / seconds };
}

export interface LoopResult {
  latency: Samples;
  completed: number;
  failed: number;
  seconds: number;
  rps: number;
}

/** Closed loop: `concurrency` workers, each sending its next request when the previous one ends. */
export async function closedLoop(
  pool: Dispatcher,
  t: Target,
  concurrency: number,
  durationMs: number,
): Promise<LoopResult> {
  const latency = new Samples();
  const failedBefore = t.failed;
  const start = performance.now();
  const deadline = start + durationMs;
  let last = start;
  const worker = async () => {
    while (performance.now() < deadline) {
      const ms = await once(pool, t);
      if (!Number.isNaN(ms)) latency.add(ms);
      else await sleep(1); // a failing target must not spin the loop
      last = performance.now();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (last - start) / 1000;
  return { latency, completed: latency.count, failed: t.failed - failedBefore, seconds, rps: latency.count / seconds };
}

export interface StreamResult {
  ok: boolean;
  /** Request start to the first body byte of an SSE `data:` line. */
  firstChunkMs: number;
  totalMs: number;
  /** Every `data:` event, [DONE] included. */
  events: number;
  /** chat.completion.chunk events with a non-empty choices array. */
  choiceChunks: number;
  /** Events carrying a non-empty delta.content. */
  contentChunks: number;
  /** Socket reads that delivered at least one content chunk: fewer than contentChunks means coalescing. */
  contentArrivals: number;
  /** The gateway's Server-Timing split of its time to the first chunk (NaN elsewhere). */
  gatewayMs: number;
  upstreamMs: number;
}

/** One streamed request, timing the first `data:` byte and counting what arrives, and when. */
export async function streamOnce(d: Dispatcher, t: Target, body: string): Promise<StreamResult> {
  t.sent++;
  const r: StreamResult = {
    ok: false,
    firstChunkMs: NaN,
    totalMs: NaN,
    events: 0,
    choiceChunks: 0,
    contentChunks: 0,
    contentArrivals: 0,
    gatewayMs: NaN,
    upstreamMs: NaN,
  };
  const start = performance.now();
  try {
    const res = await d.request({ path: t.path, method: 'POST', headers: t.headers, body });
    const timing = parseServerTiming(res.headers['server-timing']);
    r.gatewayMs = timing.gateway;
    r.upstreamMs = timing.upstream;
    res.body.setEncoding('utf8');
    let buf = '';
    let seenData = false;
    await new Promise<void>((resolve, reject) => {
      res.body.on('data', (piece: string) => {
        const now = performance.now();
        if (!seenData) {
          // The first piece may in principle be headers-only padding; wait for an actual data line.
          if ((buf + piece).includes('data:')) {
            seenData = true;
            r.firstChunkMs = now - start;
          }
        }
        buf += piece;
        let contentInThisRead = false;
        let sep: number;
        while ((sep = buf.indexOf('\n\n')) >= 0) {
          const event = buf.slice(0, sep);
          buf = buf.slice(sep + 2);
          const data = event.split('\n').find((l) => l.startsWith('data:'));
          if (data === undefined) continue;
          r.events++;
          const payload = data.slice(5).trim();
          if (payload === '[DONE]') continue;
          try {
            const chunk = JSON.parse(payload) as { choices?: Array<{ delta?: { content?: string | null } }> };
            if (chunk.choices && chunk.choices.length > 0) {
              r.choiceChunks++;
              if (chunk.choices[0]?.delta?.content) {
                r.contentChunks++;
                contentInThisRead = true;
              }
            }
          } catch {
            // not JSON: counted as an event only
          }
        }
        if (contentInThisRead) r.contentArrivals++;
      });
      res.body.once('end', () => resolve());
      res.body.once('error', reject);
    });
    r.totalMs = performance.now() - start;
    r.ok = res.statusCode === 200 && seenData;
    if (!r.ok) {
      t.failed++;
      t.lastError = `HTTP ${res.statusCode}`;
    }
  } catch (err) {
    t.failed++;
    t.lastError = (err as Error).message;
  }
  return r;
}
