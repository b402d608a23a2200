import { summarize, type Summary } from './stats.js';

// The gateway's Server-Timing header splits each response's time into the providers' share
// (`upstream`) and its own (`gateway`). With the client's latency beside it, what is left is
// outside both: the client-side legs (the load generator, the kernel, the event loop before the
// request event). This tells where a percentile's time went, per request rather than by
// subtracting two runs' percentiles.

/** One request's latency as the client saw it, and the gateway's Server-Timing split of it (ms). */
export interface ServerTimingSample {
  latency: number;
  gateway: number;
  upstream: number;
}

/** `upstream;dur=0.42, gateway;dur=0.11` to its two figures (NaN when absent). */
export function parseServerTiming(header: unknown): { gateway: number; upstream: number } {
  const text = Array.isArray(header) ? header.join(', ') : String(header ?? '');
  const dur = (name: string) => Number(new RegExp(`(?:^|,\\s*)${name};dur=([0-9.]+)`).exec(text)?.[1] ?? NaN);
  return { gateway: dur('gateway'), upstream: dur('upstream') };
}

export interface TimingSplit {
  /** The gateway's own time over all requests. */
  gateway: Summary;
  /** Means over the slowest requests (latency at or above the quantile). */
  slowest: { quantile: number; count: number; latency: number; gateway: number; upstream: number; outside: number };
}

export function splitTimings(samples: readonly ServerTimingSample[], quantile = 0.99): TimingSplit {
  const ok = samples.filter((s) => Number.isFinite(s.gateway) && Number.isFinite(s.upstream));
  const byLatency = [...ok].sort((a, b) => a.latency - b.latency);
  const tail = byLatency.slice(Math.min(byLatency.length - 1, Math.floor(quantile * byLatency.length)));
  const mean = (f: (s: ServerTimingSample) => number) =>
    tail.length ? tail.reduce((sum, s) => sum + f(s), 0) / tail.length : NaN;
  return {
    gateway: summarize(ok.map((s) => s.gateway)),
    slowest: {
      quantile,
      count: tail.length,
      latency: mean((s) => s.latency),
      gateway: mean((s) => s.gateway),
      upstream: mean((s) => s.upstream),
      outside: mean((s) => s.latency - s.gateway - s.upstream),
    },
  };
}
