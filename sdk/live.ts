import { createParser } from 'eventsource-parser';
import type { LiveEvent } from '../contracts/live.js';
import {
  errorOf,
  errorOfText,
  frameJson,
  isEventStream,
  linkAbort,
  requestIdOf,
  type GatewayApiError,
  type LinkedAbort,
} from './http.js';

// `gw.live.subscribe()` against GET /v1/analytics/live (Server-Sent Events): one message per
// completed request of the workspace, and a `dropped` notice when this reader fell behind and
// lost the oldest events. Nothing is replayed: a new subscription sees what completes after it.

/** A message of the live tap: a completed request, or how many events a slow reader lost. */
export type LiveMessage =
  | { type: 'event'; event: LiveEvent }
  | { type: 'dropped'; dropped: number; totalDropped: number };

export interface LiveCallOptions {
  /** Ends the subscription (the iteration then simply stops). */
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /**
   * Gives up on a connection that has carried nothing, not even the gateway's keep-alive comment
   * (every 15 s), for this many milliseconds: the iteration then throws a DOMException named
   * TimeoutError. A connection can die without closing (a dropped route, a sleeping laptop).
   * Default: no limit.
   */
  idleTimeoutMs?: number;
}

/** An open subscription: iterate it for the messages; the iteration ends when the gateway ends the stream. */
export interface LiveSubscription extends AsyncIterable<LiveMessage> {
  /** Closes the connection. */
  close(): void;
}

export interface LiveApi {
  /** Resolves once the gateway has accepted the subscription (a refusal rejects here, typed). */
  subscribe(opts?: LiveCallOptions): Promise<LiveSubscription>;
}

const LIVE_PATH = '/v1/analytics/live';

export function liveApi(baseUrl: string, headers: () => Record<string, string>, fetchImpl: typeof fetch): LiveApi {
  return {
    async subscribe(opts = {}) {
      const call = linkAbort(opts.signal);
      try {
        const res = await fetchImpl(`${baseUrl}${LIVE_PATH}`, {
          headers: { ...headers(), ...opts.headers, accept: 'text/event-stream' },
          signal: call.signal,
        });
        if (!res.ok) throw await errorOf(res);
        if (!res.body || !isEventStream(res)) throw errorOfText(res, await res.text().catch(() => ''));
        return messagesOf(res.body, requestIdOf(res), call, opts.idleTimeoutMs);
      } catch (err) {
        call.release();
        throw err;
      }
    },
  };
}

function messagesOf(
  body: ReadableStream<Uint8Array>,
  requestId: string | undefined,
  call: LinkedAbort,
  idleTimeoutMs: number | undefined,
): LiveSubscription {
  async function* read(): AsyncGenerator<LiveMessage> {
    let idle: ReturnType<typeof setTimeout> | undefined;
    let timedOut = false;
    const armIdleTimer = () => {
      if (!idleTimeoutMs) return;
      clearTimeout(idle);
      idle = setTimeout(() => {
        timedOut = true;
        call.abort();
      }, idleTimeoutMs);
    };
    const ready: LiveMessage[] = [];
    let failure: GatewayApiError | undefined;
    const parser = createParser({
      onEvent: (e) => {
        // Nothing after a garbled frame counts: it ends the subscription, after the messages before it.
        if (failure) return;
        try {
          if (!e.event) ready.push({ type: 'event', event: frameJson(e.data, requestId, 'the live tap') as LiveEvent });
          else if (e.event === 'dropped')
            ready.push({
              type: 'dropped',
              ...(frameJson(e.data, requestId, 'the live tap') as { dropped: number; totalDropped: number }),
            });
        } catch (err) {
          failure = err as GatewayApiError;
        }
      },
    });
    const reader = body.getReader();
    const decoder = new TextDecoder();
    try {
      for (;;) {
        armIdleTimer();
        const { done, value } = await reader.read();
        if (done) return;
        parser.feed(decoder.decode(value, { stream: true }));
        // close() (or the caller's abort) ends the iteration: messages already parsed are not yielded after it.
        while (ready.length > 0 && !call.signal.aborted) yield ready.shift()!;
        if (call.signal.aborted) return;
        if (failure) throw failure;
      }
    } catch (err) {
      if (err === failure) throw err;
      if (timedOut) throw new DOMException(`the live tap sent nothing for ${idleTimeoutMs} ms`, 'TimeoutError');
      // Closing or aborting is how a subscription is meant to end: no error for it.
      if (call.signal.aborted) return;
      throw err;
    } finally {
      clearTimeout(idle);
      call.abort();
      reader.releaseLock();
      call.release();
    }
  }
  return {
    close: () => {
      call.abort();
      call.release();
    },
    [Symbol.asyncIterator]: () => read(),
  };
}
