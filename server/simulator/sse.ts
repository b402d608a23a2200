// Response writing: plain JSON, and frame-by-frame streams with pacing and mid-stream cuts.
import type { ServerResponse } from 'node:http';

export interface Frame {
  data: string;
  /**
   * pre: before any content (role chunk, text block start); content: one generated piece, or the
   * opening of a tool call (its id and name); post: terminal.
   */
  kind: 'pre' | 'content' | 'post';
  /** A terminal frame that also carries the last piece (Gemini): paced like a content frame. */
  paced?: boolean;
}

export interface StreamOptions {
  delayMs: number;
  /** Send at most this many content frames, then destroy the socket before any terminal frame. */
  cutAfter?: number;
  /** Wait this long before the first content frame (the head and opening frames go at once). */
  firstContentDelayMs?: number;
  contentType?: string;
}

export function sendJson(res: ServerResponse, status: number, body: string, headers?: Record<string, string>): void {
  if (res.destroyed || res.headersSent) return;
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

/** Resolves true after `ms`, or false as soon as the client goes away (and then frees the timer). */
export function sleep(ms: number, res: ServerResponse): Promise<boolean> {
  if (res.destroyed || res.writableEnded) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onClose = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      res.off('close', onClose);
      resolve(true);
    }, ms);
    res.once('close', onClose);
  });
}

export function sseFrame(data: unknown, event?: string): string {
  const json = JSON.stringify(data);
  return event ? `event: ${event}\ndata: ${json}\n\n` : `data: ${json}\n\n`;
}

/** What an unpaced stream gathers into one write: every usual answer is one write, a long one many. */
const BATCH_CHARS = 64 * 1024;

export async function streamFrames(res: ServerResponse, frames: Iterable<Frame>, opts: StreamOptions): Promise<void> {
  if (res.destroyed) return;
  res.writeHead(200, {
    'content-type': opts.contentType ?? 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
  });

  // Unpaced and uncut: frames gathered into few writes. Every piece is still its own frame, there
  // is just no time between them, and one syscall per usual response keeps the simulator cheap
  // under benchmark load. A long answer goes as several writes, each once the client took the one
  // before: its first events leave at once and the simulator never holds the whole answer, as a
  // provider does not (made up front, a 150,000-token answer took seconds before its first byte).
  if (opts.delayMs <= 0 && opts.cutAfter === undefined && opts.firstContentDelayMs === undefined) {
    let batch = '';
    for (const f of frames) {
      batch += f.data;
      if (batch.length < BATCH_CHARS) continue;
      if (res.destroyed) return;
      const flowing = res.write(batch);
      batch = '';
      if (!flowing && !(await drained(res))) return;
    }
    res.end(batch);
    return;
  }

  // The head goes out at once, as a provider's does, even when no frame precedes the first
  // content (Gemini has none) and that content is delayed or cut away.
  res.flushHeaders();
  const cutAfter = opts.cutAfter;
  let sent = 0;
  // Resolves once the head reached the kernel: an empty socket write calls back after the ones before it.
  let last: Promise<void> = new Promise((resolve) => {
    if (res.socket) res.socket.write('', () => resolve());
    else resolve();
  });
  const write = (data: string): void => {
    // Remember when the latest frame reached the kernel, so a cut never discards sent frames.
    last = new Promise((resolve) => {
      res.write(data, () => resolve());
    });
  };

  for (const f of frames) {
    if (res.destroyed) return;
    if (f.kind === 'content') {
      if (cutAfter !== undefined && sent >= cutAfter) return cut(res, last);
      if (sent > 0 && opts.delayMs > 0 && !(await sleep(opts.delayMs, res))) return;
      if (sent === 0 && opts.firstContentDelayMs && !(await sleep(opts.firstContentDelayMs, res))) return;
      write(f.data);
      sent++;
    } else if (f.kind === 'post' && cutAfter !== undefined) {
      return cut(res, last);
    } else {
      if (f.paced && sent > 0 && opts.delayMs > 0 && !(await sleep(opts.delayMs, res))) return;
      write(f.data);
    }
  }
  res.end();
}

/** True once the response's buffered writes have drained, false if the client went away first. */
function drained(res: ServerResponse): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const settle = (ok: boolean): void => {
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(ok);
    };
    const onDrain = (): void => settle(true);
    const onClose = (): void => settle(false);
    res.once('drain', onDrain);
    res.once('close', onClose);
  });
}

async function cut(res: ServerResponse, flushed: Promise<void>): Promise<void> {
  await flushed;
  if (res.destroyed) return;
  // No terminating chunk: the client sees the connection drop in the middle of the body.
  res.socket?.destroy();
  res.destroy();
}
