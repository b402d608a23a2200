import { createParser } from 'eventsource-parser';
import type { GatewayChatChunk, GatewayChatCompletion, GatewayChatRequest } from './chat-types.js';

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

/** An answer of the gateway that is not a success: its typed error body, HTTP status and request id. */
export class GatewayApiError extends Error {
  constructor(
    readonly type: string,
    message: string,
    /** HTTP status; 0 for an `event: error` frame that ended a stream after its first chunk. */
    readonly status: number,
    readonly requestId: string | undefined,
    /** Every field of the error body (e.g. `upstreamStatus`, `upgrade`). */
    readonly body: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'GatewayApiError';
  }
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
  async function send(body: GatewayChatRequest, opts: ChatCallOptions, controller: AbortController): Promise<Response> {
    const onAbort = () => controller.abort(opts.signal?.reason);
    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener('abort', onAbort, { once: true });
    const res = await fetchImpl(`${baseUrl}${CHAT_PATH}`, {
      method: 'POST',
      headers: { ...headers(), ...opts.headers, 'content-type': 'application/json', accept: body.stream ? 'text/event-stream' : 'application/json' },
      body: JSON.stringify(body),
      signal: controller.signal,
    });
    if (!res.ok) throw await errorOf(res);
    return res;
  }

  function create(body: GatewayChatRequest & { stream?: false | null }, opts?: ChatCallOptions): Promise<GatewayChatCompletion>;
  function create(body: GatewayChatRequest & { stream: true }, opts?: ChatCallOptions): Promise<ChatStream>;
  async function create(body: GatewayChatRequest, opts: ChatCallOptions = {}): Promise<GatewayChatCompletion | ChatStream> {
    const controller = new AbortController();
    const res = await send(body, opts, controller);
    if (!body.stream) return (await res.json()) as GatewayChatCompletion;
    return chunksOf(res, controller);
  }

  return { completions: { create } };
}

/** The typed error of a failed answer (the gateway's `{ error: { type, message, ... } }` body). */
async function errorOf(res: Response): Promise<GatewayApiError> {
  const requestId = res.headers.get('x-gateway-request-id') ?? undefined;
  const text = await res.text().catch(() => '');
  let error: Record<string, unknown> | undefined;
  try {
    error = (JSON.parse(text) as { error?: Record<string, unknown> }).error;
  } catch {
    // Not the gateway's JSON (a proxy in between, say): keep the status and the text.
  }
  const type = typeof error?.type === 'string' ? error.type : 'http_error';
  const message = typeof error?.message === 'string' ? error.message : `the gateway answered ${res.status}${text ? `: ${text.slice(0, 200)}` : ''}`;
  return new GatewayApiError(type, message, res.status, requestId, error ?? {});
}

/** The chunks of an SSE answer, in order; an `event: error` frame is thrown as a GatewayApiError. */
function chunksOf(res: Response, controller: AbortController): ChatStream {
  const requestId = res.headers.get('x-gateway-request-id') ?? undefined;
  async function* read(): AsyncGenerator<GatewayChatChunk> {
    if (!res.body) return;
    const ready: GatewayChatChunk[] = [];
    let failure: GatewayApiError | undefined;
    let done = false;
    const parser = createParser({
      onEvent: (e) => {
        if (e.event === 'error') {
          const error = (JSON.parse(e.data) as { error?: Record<string, unknown> }).error ?? {};
          failure = new GatewayApiError(String(error.type ?? 'provider_error'), String(error.message ?? 'the stream failed'), 0, requestId, error);
        } else if (e.data === '[DONE]') {
          done = true;
        } else {
          ready.push(JSON.parse(e.data) as GatewayChatChunk);
        }
      },
    });
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    try {
      while (!done) {
        const { done: ended, value } = await reader.read();
        if (ended) break;
        parser.feed(decoder.decode(value, { stream: true }));
        while (ready.length > 0) yield ready.shift()!;
        if (failure) throw failure;
      }
      if (!done && !failure) throw new GatewayApiError('provider_error', 'the stream ended without [DONE]', 0, requestId, {});
    } finally {
      // An early break or a failure: close the connection rather than read the rest.
      if (!done) controller.abort();
      reader.releaseLock();
    }
  }
  return {
    requestId,
    abort: () => controller.abort(),
    [Symbol.asyncIterator]: () => read(),
  };
}
