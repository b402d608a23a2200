// The HTTP layer under both halves of the SDK (tRPC control plane, chat data plane): the error
// type every gateway answer that is not a success becomes, and the fetch wrappers that add a
// timeout and turn answers that are not the gateway's (a proxy's HTML page, a wrong base URL)
// into that error instead of a JSON parse failure.

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
    /** Seconds to wait before trying again (the Retry-After of a 429), when the answer gave one. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'GatewayApiError';
  }
}

/** The `type` of an error whose body is not the gateway's (a proxy, a load balancer, a wrong URL). */
export const HTTP_ERROR = 'http_error';

const REQUEST_ID_HEADER = 'x-gateway-request-id';

export function requestIdOf(res: Response): string | undefined {
  return res.headers.get(REQUEST_ID_HEADER) ?? undefined;
}

/** Retry-After in seconds (the gateway sends whole seconds; an HTTP date is counted from now). */
function retryAfterOf(res: Response): number | undefined {
  const value = res.headers.get('retry-after');
  if (!value) return undefined;
  const seconds = /^\d+$/.test(value.trim()) ? Number(value) : (Date.parse(value) - Date.now()) / 1000;
  return Number.isFinite(seconds) ? Math.max(0, Math.ceil(seconds)) : undefined;
}

/** The start of a body that is not the gateway's, to show what answered instead. */
function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat;
}

/** The gateway's `{ error: { type, message, ... } }` inside a body, or undefined. */
function gatewayErrorBody(parsed: unknown): Record<string, unknown> | undefined {
  const error = (parsed as { error?: unknown } | null)?.error;
  if (!error || typeof error !== 'object' || Array.isArray(error)) return undefined;
  const body = error as Record<string, unknown>;
  return typeof body.type === 'string' && typeof body.message === 'string' ? body : undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The typed error of a failed answer, from its body text (the gateway's error body, or whatever came). */
export function errorOfText(res: Response, text: string): GatewayApiError {
  const body = gatewayErrorBody(parseJson(text));
  if (body)
    return new GatewayApiError(
      body.type as string,
      body.message as string,
      res.status,
      requestIdOf(res),
      body,
      retryAfterOf(res),
    );
  const what = res.ok
    ? `${res.status} with ${res.headers.get('content-type') ?? 'no content type'}, not a gateway answer`
    : String(res.status);
  const shown = excerpt(text);
  return new GatewayApiError(
    HTTP_ERROR,
    `the server answered ${what}${shown ? `: ${shown}` : ''}`,
    res.status,
    requestIdOf(res),
    {},
    retryAfterOf(res),
  );
}

export async function errorOf(res: Response): Promise<GatewayApiError> {
  return errorOfText(res, await res.text().catch(() => ''));
}

export function isJson(res: Response): boolean {
  return /^application\/json\b/i.test(res.headers.get('content-type') ?? '');
}

/**
 * An SSE frame's JSON. A frame that is not JSON (not the gateway's answer) ends the stream with a
 * typed error, status 0; `source` names the stream in its message.
 */
export function frameJson(data: string, requestId: string | undefined, source: 'the stream' | 'the live tap'): unknown {
  try {
    return JSON.parse(data);
  } catch {
    throw new GatewayApiError(
      HTTP_ERROR,
      `${source} sent a frame that is not JSON: ${data.slice(0, 200)}`,
      0,
      requestId,
      {},
    );
  }
}

export function isEventStream(res: Response): boolean {
  return /^text\/event-stream\b/i.test(res.headers.get('content-type') ?? '');
}

/** POSTs `body` as JSON to a data-plane endpoint; an answer that is not a success is thrown, typed. */
export async function postJson(
  fetchImpl: typeof fetch,
  url: string,
  headers: Record<string, string>,
  body: unknown,
  opts: { accept: string; signal: AbortSignal | undefined },
): Promise<Response> {
  const res = await fetchImpl(url, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', accept: opts.accept },
    body: JSON.stringify(body),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  if (!res.ok) throw await errorOf(res);
  return res;
}

/** A call's own abort controller, following the caller's signal until `release`. */
export interface LinkedAbort {
  readonly signal: AbortSignal;
  abort(): void;
  /** Stops listening to the caller's signal: one signal shared by many calls must not collect a listener per call. */
  release(): void;
}

export function linkAbort(outer: AbortSignal | undefined): LinkedAbort {
  const controller = new AbortController();
  const onAbort = () => controller.abort(outer?.reason);
  if (outer?.aborted) onAbort();
  else outer?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    abort: () => controller.abort(),
    release: () => outer?.removeEventListener('abort', onAbort),
  };
}

/** A whole JSON answer; a body that is not JSON (a proxy's page) is a typed error, not a SyntaxError. */
export async function jsonAnswerOf<T>(res: Response): Promise<T> {
  const text = await res.text();
  if (isJson(res)) {
    try {
      return JSON.parse(text) as T;
    } catch {
      // Falls through to the typed error below.
    }
  }
  throw errorOfText(res, text);
}

/** The longest delay setTimeout takes (2^31-1 ms, about 24.8 days): a longer one would fire at once. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** Statuses whose Response cannot carry a body. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** `res` with its body already read: the same status, headers and URL. */
function withReadBody(res: Response, body: ArrayBuffer): Response {
  const copy = new Response(NULL_BODY_STATUSES.has(res.status) ? null : body, {
    status: res.status,
    statusText: res.statusText,
    headers: res.headers,
  });
  Object.defineProperties(copy, { url: { value: res.url }, redirected: { value: res.redirected } });
  return copy;
}

/** Reads a whole body, giving up with the signal's reason once it aborts (whether or not the fetch follows it). */
async function readBody(res: Response, signal: AbortSignal): Promise<ArrayBuffer> {
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([res.arrayBuffer(), aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/**
 * Gives up (a DOMException named TimeoutError) on a call whose answer has not arrived in full
 * within `timeoutMs`: a whole answer (JSON, an error page) is read here, under the same timer, so a
 * body that stalls after its head times out too. An event stream is timed to its first byte only:
 * a long stream is never cut. A `timeoutMs` above MAX_TIMEOUT_MS is taken as MAX_TIMEOUT_MS.
 */
export function withTimeout(fetchImpl: typeof fetch, timeoutMs: number | undefined): typeof fetch {
  if (!timeoutMs) return fetchImpl;
  const ms = Math.min(timeoutMs, MAX_TIMEOUT_MS);
  return async (input, init) => {
    const timer = new AbortController();
    const handle = setTimeout(
      () => timer.abort(new DOMException(`the gateway did not answer within ${ms} ms`, 'TimeoutError')),
      ms,
    );
    const signal = init?.signal ? AbortSignal.any([init.signal, timer.signal]) : timer.signal;
    try {
      const res = await fetchImpl(input, { ...init, signal });
      if (!res.body || isEventStream(res)) return res;
      return withReadBody(res, await readBody(res, signal));
    } finally {
      clearTimeout(handle);
    }
  };
}

/** A tRPC error answer as this gateway's transformer (superjson) writes it: `{ error: { json: ... } }`. */
function isTrpcErrorText(text: string): boolean {
  const error = (parseJson(text) as { error?: { json?: unknown } } | undefined)?.error;
  return typeof error?.json === 'object' && error.json !== null;
}

/**
 * For the tRPC link: an answer that tRPC cannot read (not JSON, or an error that is not a tRPC
 * error) is thrown as a GatewayApiError with its status, rather than reaching tRPC as
 * "Unexpected token '<'" or "Unable to transform response from server".
 */
export function trpcAnswersOnly(fetchImpl: typeof fetch): typeof fetch {
  return async (input, init) => {
    const res = await fetchImpl(input, init);
    if (res.ok && isJson(res)) return res;
    const text = await res
      .clone()
      .text()
      .catch(() => '');
    if (!res.ok && isJson(res) && isTrpcErrorText(text)) return res;
    throw errorOfText(res, text);
  };
}
