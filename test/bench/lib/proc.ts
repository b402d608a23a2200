import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

// Linux /proc readers and CPU pinning for the benchmark: CPU ticks and memory of one process,
// per-core busy time, and sched_setaffinity through taskset(1).

let clockTicks: number | undefined;

/** USER_HZ: the unit of utime/stime in /proc/<pid>/stat (almost always 100). */
export function clkTck(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

export interface CpuTicks {
  utime: number;
  stime: number;
}

/** utime + stime of every thread of the process, in clock ticks. */
export function readCpuTicks(pid: number): CpuTicks {
  const raw = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Field 2 (comm) is in parentheses and may contain spaces: split after the last ')'.
  const fields = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state); utime is field 14, stime field 15.
  return { utime: Number(fields[11]), stime: Number(fields[12]) };
}

/** CPU seconds spent between two readings. */
export function cpuSecondsBetween(a: CpuTicks, b: CpuTicks): number {
  return (b.utime + b.stime - a.utime - a.stime) / clkTck();
}

export interface MemoryStatus {
  rssMb: number;
  hwmMb: number;
}

/** VmRSS and VmHWM (peak RSS) from /proc/<pid>/status, in MiB. */
export function readMemory(pid: number): MemoryStatus {
  const raw = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string): number => {
    const m = raw.match(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm'));
    return m ? Number(m[1]) : NaN;
  };
  return { rssMb: kb('VmRSS') / 1024, hwmMb: kb('VmHWM') / 1024 };
}

export interface CoreTimes {
  busy: number;
  /** irq + softirq: part of busy, charged to no process (loopback networking shows up here). */
  interrupts: number;
  total: number;
}

/** Per-core busy and total jiffies from /proc/stat (busy excludes idle and iowait). */
export function readCoreTimes(): CoreTimes[] {
  const out: CoreTimes[] = [];
  for (const line of readFileSync('/proc/stat', 'utf8').split('\n')) {
    const m = line.match(/^cpu(\d+)\s+(.*)$/);
    if (!m) continue;
    const v = m[2]!.trim().split(/\s+/).map(Number);
    // user nice system idle iowait irq softirq steal (guest time is already inside user)
    const total = v.slice(0, 8).reduce((s, x) => s + x, 0);
    const idle = (v[3] ?? 0) + (v[4] ?? 0);
    out[Number(m[1])] = { busy: total - idle, interrupts: (v[5] ?? 0) + (v[6] ?? 0), total };
  }
  return out;
}

/** Busy share (0..1) of each core between two readings. */
export function coreBusyBetween(a: CoreTimes[], b: CoreTimes[]): number[] {
  return b.map((end, i) => {
    const start = a[i];
    if (!start) return NaN;
    const total = end.total - start.total;
    return total > 0 ? (end.busy - start.busy) / total : NaN;
  });
}

export function onlineCores(): number {
  return readCoreTimes().filter(Boolean).length;
}

export function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Pins every thread of this process (and so every child it spawns later) to one core. */
export function pinSelf(core: number): void {
  execFileSync('taskset', ['-a', '-p', '-c', String(core), String(process.pid)], { stdio: 'ignore' });
}

/** The CPU list this process may run on, as the kernel reports it (e.g. "1" or "0-1"). */
export function allowedCpus(pid: number | 'self' = 'self'): string {
  const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^Cpus_allowed_list:\s+(\S+)/m);
  return m ? m[1]! : '?';
}

/** ppid of every process, from /proc/<pid>/stat. */
function parentOf(pid: number): number | undefined {
  try {
    const raw = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(raw.slice(raw.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

export function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    if (parentOf(Number(name)) === pid) out.push(Number(name));
  }
  return out;
}

/**
 * CPU ticks of a process and its direct children (PostgreSQL: the postmaster and its backends),
 * including children that already exited and were reaped (cutime/cstime of the root).
 */
export function readTreeTicks(rootPid: number): CpuTicks {
  const total: CpuTicks = { utime: 0, stime: 0 };
  const add = (pid: number, withReaped: boolean) => {
    try {
      const raw = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
      total.utime += Number(f[11]) + (withReaped ? Number(f[13]) : 0);
      total.stime += Number(f[12]) + (withReaped ? Number(f[14]) : 0);
    } catch {
      // exited between listing and reading
    }
  };
  add(rootPid, true);
  for (const child of childrenOf(rootPid)) add(child, true);
  return total;
}

/** Busy CPU-seconds summed over all cores between two /proc/stat readings. */
export function busySecondsBetween(a: CoreTimes[], b: CoreTimes[]): number {
  let busy = 0;
  b.forEach((end, i) => {
    const start = a[i];
    if (start) busy += end.busy - start.busy;
  });
  return busy / clkTck();
}

/** Interrupt CPU-seconds (irq + softirq) summed over all cores between two readings. */
export function interruptSecondsBetween(a: CoreTimes[], b: CoreTimes[]): number {
  let irq = 0;
  b.forEach((end, i) => {
    const start = a[i];
    if (start) irq += end.interrupts - start.interrupts;
  });
  return irq / clkTck();
}

/** utime + stime of every process on the machine, by pid, with a short command line. */
export type ProcessTable = Map<number, { name: string; ticks: number }>;

export function snapshotProcesses(): ProcessTable {
  const out: ProcessTable = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const raw = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const f = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
      const ticks = Number(f[11]) + Number(f[12]);
      let name = raw.slice(raw.indexOf('(') + 1, raw.lastIndexOf(')'));
      try {
        const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean);
        if (cmd.length > 0)
          name = cmd
            .slice(0, 3)
            .map((a) => a.split('/').slice(-2).join('/'))
            .join(' ')
            .slice(0, 60);
      } catch {
        // kernel thread or gone
      }
      out.set(Number(entry), { name, ticks });
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/** The processes that used the most CPU between two snapshots (seconds), leaving out `exclude`. */
export function topProcessesBetween(
  a: ProcessTable,
  b: ProcessTable,
  exclude: Set<number>,
  n: number,
): Array<{ pid: number; name: string; seconds: number }> {
  const rows: Array<{ pid: number; name: string; seconds: number }> = [];
  for (const [pid, end] of b) {
    if (exclude.has(pid)) continue;
    const seconds = (end.ticks - (a.get(pid)?.ticks ?? 0)) / clkTck();
    if (seconds > 0) rows.push({ pid, name: end.name, seconds });
  }
  return rows.sort((x, y) => y.seconds - x.seconds).slice(0, n);
}

/** Processes created since boot (the `processes` line of /proc/stat). */
export function readForkCount(): number {
  const m = readFileSync('/proc/stat', 'utf8').match(/^processes\s+(\d+)/m);
  return m ? Number(m[1]) : NaN;
}
