import { createParser } from 'eventsource-parser';
import type { GatewayChatChunk, GatewayChatCompletion, GatewayChatRequest } from './chat-types.js';
import {
  errorOf,
  frameJson,
  GatewayApiError,
  isEventStream,
  jsonAnswerOf,
  linkAbort,
  postJson,
  requestIdOf,
  type LinkedAbort,
} from './http.js';

export { GatewayApiError } from './http.js';

// The SDK's OpenAI-compatible chat helper: `gw.chat.completions.create(body)` against
// POST /v1/chat/completions, typed with the gateway's own fields (`_gateway`, routing hints).
// Apps already on the official OpenAI SDK need none of this; it is for code that wants the
// control plane and the data plane from one typed client without a second dependency.

export interface ChatCallOptions {
  /** Aborts the call (and, for a stream, the upstream generation). */
  signal?: AbortSignal;
  /** Extra headers for this call, e.g. `x-gateway-no-cache: 1` or `x-gateway-task-type`. */
  headers?: Record<string, string>;
}

/** A streamed answer: iterate it for the chunks; the last one carries `_gateway`. */
export interface ChatStream extends AsyncIterable<GatewayChatChunk> {
  /** The gateway's request id (also in `_gateway.requestId` of the last chunk). */
  readonly requestId: string | undefined;
  /** Stops reading and closes the connection. */
  abort(): void;
}

export interface ChatCompletions {
  create(body: GatewayChatRequest & { stream?: false | null }, opts?: ChatCallOptions): Promise<GatewayChatCompletion>;
  /** Resolves once the stream has started (an error before that rejects here, typed). */
  create(body: GatewayChatRequest & { stream: true }, opts?: ChatCallOptions): Promise<ChatStream>;
}

export interface ChatApi {
  completions: ChatCompletions;
}

const CHAT_PATH = '/v1/chat/completions';

export function chatApi(baseUrl: string, headers: () => Record<string, string>, fetchImpl: typeof fetch): ChatApi {
  function create(
    body: GatewayChatRequest & { stream?: false | null },
    opts?: ChatCallOptions,
  ): Promise<GatewayChatCompletion>;
  function create(body: GatewayChatRequest & { stream: true }, opts?: ChatCallOptions): Promise<ChatStream>;
  async function create(
    body: GatewayChatRequest,
    opts: ChatCallOptions = {},
  ): Promise<GatewayChatCompletion | ChatStream> {
    const call = linkAbort(opts.signal);
    let streaming = false;
    try {
      const accept = body.stream ? 'text/event-stream' : 'application/json';
      const res = await postJson(fetchImpl, `${baseUrl}${CHAT_PATH}`, { ...headers(), ...opts.headers }, body, {
        accept,
        signal: call.signal,
      });
      if (!body.stream) return await jsonAnswerOf<GatewayChatCompletion>(res);
      if (!isEventStream(res)) throw await errorOf(res);
      streaming = true;
      return chunksOf(res, call);
    } finally {
      // A stream lets go of the caller's signal when it is read to its end or closed.
      if (!streaming) call.release();
    }
  }

  return { completions: { create } };
}

/**
 * The next part of a stream's body. A connection that breaks (undici's "TypeError: terminated")
 * is the stream failing after it started: a GatewayApiError with status 0, the platform's error as
 * its `cause`. The caller's own abort (its signal, `abort()`) stays what it is: an AbortError.
 */
async function nextPart(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  call: LinkedAbort,
  requestId: string | undefined,
) {
  try {
    return await reader.read();
  } catch (err) {
    if (call.signal.aborted) throw err;
    const reason =
      err instanceof Error
        ? `${err.message}${err.cause instanceof Error ? ` (${err.cause.message})` : ''}`
        : String(err);
    const broken = new GatewayApiError('provider_error', `the stream broke before [DONE]: ${reason}`, 0, requestId, {});
    broken.cause = err;
    throw broken;
  }
}

/** The chunks of an SSE answer, in order; an `event: error` frame is thrown as a GatewayApiError. */
function chunksOf(res: Response, call: LinkedAbort): ChatStream {
  const requestId = requestIdOf(res);
  async function* read(): AsyncGenerator<GatewayChatChunk> {
    if (!res.body) return call.release();
    const ready: GatewayChatChunk[] = [];
    let failure: GatewayApiError | undefined;
    let done = false;
    const onFrame = (event: string | undefined, data: string) => {
      if (event === 'error') {
        const error =
          (frameJson(data, requestId, 'the stream') as { error?: Record<string, unknown> } | null)?.error ?? {};
        failure = new GatewayApiError(
          String(error.type ?? 'provider_error'),
          String(error.message ?? 'the stream failed'),
          0,
          requestId,
          error,
        );
      } else if (data === '[DONE]') {
        done = true;
      } else {
        ready.push(frameJson(data, requestId, 'the stream') as GatewayChatChunk);
      }
    };
    const parser = createParser({
      onEvent: (e) => {
        // Nothing after the end or a failure counts; a garbled frame is the failure.
        if (done || failure) return;
        try {
          onFrame(e.event, e.data);
        } catch (err) {
          failure = err as GatewayApiError;
        }
      },
    });
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    try {
      while (!done) {
        const { done: ended, value } = await nextPart(reader, call, requestId);
        if (ended) break;
        parser.feed(decoder.decode(value, { stream: true }));
        while (ready.length > 0) yield ready.shift()!;
        if (failure) throw failure;
      }
      if (!done) throw new GatewayApiError('provider_error', 'the stream ended without [DONE]', 0, requestId, {});
    } finally {
      // An early break or a failure: close the connection rather than read the rest.
      if (!done) call.abort();
      reader.releaseLock();
      call.release();
    }
  }
  return {
    requestId,
    abort: () => {
      call.abort();
      call.release();
    },
    [Symbol.asyncIterator]: () => read(),
  };
}
