import { spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { summarize, type Summary } from './stats.js';

// What the machine itself charges the benchmark's request paths, measured before the run:
// - a loopback TCP round trip to a process on the other core against one on this core. A proxied
//   request crosses cores four times (load generator -> proxy -> simulator -> proxy -> generator)
//   where a direct one crosses none, so the other-core round trip is the floor under "added".
//   Pings are spaced like 500 req/s traffic (0.5-1.5 ms apart), so an idle core may have halted
//   in between, as it does in the fixed-rate phase; on a virtual machine, waking a halted vCPU is
//   the host's business and can take milliseconds.
// - one page fault of fresh anonymous memory: under some hypervisors it costs tens of times what it
//   costs on bare metal, and every process on the request path (PostgreSQL's commits included) pays it.

export interface MachineFloor {
  /** Loopback TCP round trip to an echo process on the other core, ms. */
  otherCore: Summary;
  /** The same to an echo process on this process's core, ms. */
  sameCore: Summary;
  /** One minor page fault of fresh anonymous memory, µs (median of three 64 MB passes). */
  pageFaultUs: number;
}

// The echo process: plain JavaScript on stdin (no loader), so it starts in tens of milliseconds.
const ECHO_SERVER = `
const server = require('node:net').createServer((s) => { s.setNoDelay(true); s.on('data', (d) => s.write(d)); });
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
process.on('SIGTERM', () => process.exit(0));
`;

async function roundTrips(core: number, pings: number): Promise<Summary> {
  const child = spawn('taskset', ['-c', String(core), process.execPath, '-'], { stdio: ['pipe', 'pipe', 'inherit'] });
  try {
    child.stdin.end(ECHO_SERVER);
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
      child.once('exit', (code) => reject(new Error(`echo process exited (${code})`)));
    });
    const socket: Socket = connect(port, '127.0.0.1');
    socket.setNoDelay(true);
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const times = new Float64Array(pings);
    const ping = Buffer.from([1]);
    for (let i = -50; i < pings; i++) {
      const start = performance.now();
      await new Promise<void>((resolve) => {
        socket.once('data', () => resolve());
        socket.write(ping);
      });
      if (i >= 0) times[i] = performance.now() - start;
      await sleep(0.5 + Math.random());
    }
    socket.destroy();
    return summarize(times);
  } finally {
    child.kill('SIGTERM');
  }
}

function pageFaultMicros(): number {
  const bytes = 64 << 20;
  const runs: number[] = [];
  for (let r = 0; r < 3; r++) {
    // Not zero-filled: malloc hands out fresh mmap()ed pages, so each 4 KiB touch below faults once.
    const buf = Buffer.allocUnsafeSlow(bytes);
    const start = performance.now();
    for (let i = 0; i < bytes; i += 4096) buf[i] = 1;
    runs.push(((performance.now() - start) * 1000) / (bytes / 4096));
  }
  return runs.sort((a, b) => a - b)[1]!;
}

/** `thisCore` is the core this process is pinned to; `otherCore` the proxies' core. */
export async function measureMachineFloor(thisCore: number, otherCore: number, pings = 1_500): Promise<MachineFloor> {
  return {
    otherCore: await roundTrips(otherCore, pings),
    sameCore: await roundTrips(thisCore, pings),
    pageFaultUs: pageFaultMicros(),
  };
}

const ms3 = (v: number) => `${v.toFixed(3)} ms`;

/** One line for the report. */
export function describeMachineFloor(f: MachineFloor): string {
  return `loopback round trip to the proxies' core p50 ${ms3(f.otherCore.p50)} / p99 ${ms3(f.otherCore.p99)}, within the load side's core p50 ${ms3(f.sameCore.p50)} / p99 ${ms3(f.sameCore.p99)}; one page fault ${f.pageFaultUs.toFixed(1)} µs`;
}
