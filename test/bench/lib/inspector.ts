import { WebSocket } from 'undici';

// A minimal client for the V8 inspector protocol of a child started with --inspect=127.0.0.1:0:
// forced garbage collection and heap usage (for the flat-memory check), and an optional CPU
// profile of one phase.

export interface HeapUsage {
  usedMb: number;
  totalMb: number;
}

export class InspectorSession {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();

  private constructor(private readonly ws: WebSocket) {
    ws.addEventListener('message', (ev) => {
      const msg = JSON.parse(String(ev.data)) as { id?: number; result?: unknown; error?: { message: string } };
      if (msg.id === undefined) return; // events: none are enabled
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      if (msg.error) p.reject(new Error(`inspector: ${msg.error.message}`));
      else p.resolve(msg.result);
    });
    ws.addEventListener('close', () => {
      for (const p of this.pending.values()) p.reject(new Error('inspector connection closed'));
      this.pending.clear();
    });
  }

  /** `url` is the ws://127.0.0.1:PORT/UUID address the child prints on stderr. */
  static connect(url: string, timeoutMs = 10_000): Promise<InspectorSession> {
    if (!url.startsWith('ws://127.0.0.1:')) throw new Error(`refusing a non-loopback inspector address: ${url}`);
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      const timer = setTimeout(() => {
        ws.close();
        reject(new Error('inspector: connect timed out'));
      }, timeoutMs);
      ws.addEventListener('open', () => {
        clearTimeout(timer);
        resolve(new InspectorSession(ws));
      });
      ws.addEventListener('error', () => {
        clearTimeout(timer);
        reject(new Error(`inspector: cannot connect to ${url}`));
      });
    });
  }

  send<T = unknown>(method: string, params: Record<string, unknown> = {}, timeoutMs = 60_000): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`inspector: ${method} timed out`));
      }, timeoutMs);
      this.pending.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v as T);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.ws.send(JSON.stringify({ id, method, params }));
    });
  }

  /** A full, compacting garbage collection in the child, then its V8 heap usage. */
  async heapAfterGc(): Promise<HeapUsage> {
    await this.send('HeapProfiler.collectGarbage');
    const u = await this.send<{ usedSize: number; totalSize: number }>('Runtime.getHeapUsage');
    return { usedMb: u.usedSize / 1024 / 1024, totalMb: u.totalSize / 1024 / 1024 };
  }

  async startProfile(samplingIntervalUs = 200): Promise<void> {
    await this.send('Profiler.enable');
    await this.send('Profiler.setSamplingInterval', { interval: samplingIntervalUs });
    await this.send('Profiler.start');
  }

  /** Stops the profiler; the result is a .cpuprofile document (Chrome DevTools, speedscope). */
  async stopProfile(): Promise<unknown> {
    const { profile } = await this.send<{ profile: unknown }>('Profiler.stop');
    await this.send('Profiler.disable');
    return profile;
  }

  close(): void {
    this.ws.close();
  }
}
