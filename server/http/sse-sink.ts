import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { CancelSignal } from '../lib/cancel-signal.js';
import type { ChatChunk } from '../providers/types.js';
import type { CallMeta, StreamSink } from '../gateway/types.js';
import { chunkJson, chunkWithGateway, gatewayHeaders, jsonWithGateway } from './gateway-meta.js';

// The chat stream over Server-Sent Events: frames are written as they come (no buffering, no
// compression), the last data frame carries `_gateway`, and a failure after the first byte ends
// with an `event: error` frame and no [DONE].

/**
 * `startedAt`: performance.now() when the request arrived (for Server-Timing). `countError`: told the
 * type of an error that ends a stream once it has begun (metrics; earlier ones are error answers).
 * `isSimulated`: whether a provider is played by the built-in simulator (`_gateway.simulated`).
 */
export function sseSink(
  res: ServerResponse,
  startedAt: number,
  countError?: (type: string) => void,
  isSimulated?: (provider: string) => boolean,
): StreamSink {
  // False when the socket did not take the frame (Node queued it): the caller waits for drained().
  // A response already over has nothing to wait for.
  const write = (frame: string): boolean => {
    if (res.writableEnded || res.destroyed) return true;
    return res.write(frame);
  };
  return {
    // start() is called with the first upstream chunk in hand, so the headers are not flushed on
    // their own: they leave in the same write as the first frame (one system call, not two).
    start(meta) {
      // Added to the gateway's own header object: no spread of a per-request object. Connection
      // is Node's to set: keep-alive unless the client asked to close.
      const headers = gatewayHeaders(meta, performance.now() - startedAt);
      headers['content-type'] = 'text/event-stream; charset=utf-8';
      headers['cache-control'] = 'no-cache, no-transform';
      headers['x-accel-buffering'] = 'no';
      res.writeHead(200, headers);
    },
    chunk(chunk: ChatChunk) {
      return write(`data: ${chunkJson(chunk)}\n\n`);
    },
    drained(signal: CancelSignal, timeoutMs: number) {
      return whenDrained(res, signal, timeoutMs);
    },
    end(final: ChatChunk, meta: CallMeta) {
      // A choice chunk (the held finish) goes as the other chunks do, without usage; the
      // `choices: []` frame carries the usage the client asked for.
      const simulated = isSimulated?.(meta.provider) ?? false;
      const json =
        final.choices.length > 0 ? chunkWithGateway(final, meta, simulated) : jsonWithGateway(final, meta, simulated);
      write(`data: ${json}\n\ndata: [DONE]\n\n`);
      res.end();
    },
    fail(error) {
      countError?.(error.type);
      write(`event: error\ndata: ${JSON.stringify({ error })}\n\n`);
      res.end();
    },
  };
}

/**
 * Resolves true on the response's 'drain' (the client read what was queued), on its 'close' (the
 * client went away) or when `signal` fires, whichever comes first; the other listeners are removed.
 * A client that reads nothing for `timeoutMs` is given up: its connection is closed (which fires the
 * call's cancellation) and the wait resolves false. Otherwise a client that stops reading but keeps
 * its connection would hold the upstream call open until it timed out as the provider's fault.
 */
function whenDrained(res: ServerResponse, signal: CancelSignal, timeoutMs: number): Promise<boolean> {
  if (res.destroyed || res.writableEnded || signal.aborted || !res.writableNeedDrain) return Promise.resolve(true);
  return new Promise((resolve) => {
    const settle = (drained: boolean): void => {
      clearTimeout(timer);
      res.off('drain', done);
      res.off('close', done);
      signal.removeEventListener('abort', done);
      resolve(drained);
    };
    const done = (): void => settle(true);
    const timer = setTimeout(() => {
      settle(false);
      res.destroy();
    }, timeoutMs);
    res.on('drain', done);
    res.on('close', done);
    signal.addEventListener('abort', done);
  });
}
