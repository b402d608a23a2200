// The upstream HTTP layer. One shared undici Agent keeps a keep-alive pool per origin, so steady
// traffic to a provider reuses warm TLS connections instead of handshaking per request. Calls go
// through undici's dispatch interface (upstream-exchange.ts), not its request() API.
// Every failure leaves here as a ProviderError (see http-errors.ts).
import { Agent, util, type Dispatcher } from 'undici';
import type { CallOptions } from './types.js';
import { CallScope } from './call-scope.js';
import { httpStatusError, toProviderError } from './http-errors.js';
import { keepRawJson } from './raw-json.js';
import { ProviderError } from './types.js';
import { dispatchExchange, SseAnswer, WholeAnswer, type SseEvent } from './upstream-exchange.js';

export type { SseEvent } from './upstream-exchange.js';

export interface HttpOptions extends CallOptions {
  /** Registry name, used in error messages and ProviderError.provider. */
  provider: string;
  /** A pool of its own (a guarded one for addresses workspaces give); the shared one when unset. */
  dispatcher?: Dispatcher;
}

export interface HttpConfig {
  /** Max sockets per upstream origin; further requests queue. Streams hold a socket for their whole life. */
  connectionsPerOrigin: number;
  /** How long an idle socket stays pooled when the server sends no Keep-Alive hint. */
  keepAliveTimeoutMs: number;
  /** The most a server's Keep-Alive hint (`timeout=65`) may keep an idle socket pooled: undici follows the hint up to this. */
  keepAliveMaxTimeoutMs: number;
  connectTimeoutMs: number;
}

const DEFAULT_CONFIG: HttpConfig = {
  connectionsPerOrigin: 1024,
  keepAliveTimeoutMs: 10_000,
  keepAliveMaxTimeoutMs: 60_000,
  connectTimeoutMs: 10_000,
};

let dispatcher: Dispatcher | undefined;

function buildAgent(cfg: HttpConfig): Agent {
  return new Agent({
    connections: cfg.connectionsPerOrigin,
    pipelining: 1,
    keepAliveTimeout: cfg.keepAliveTimeoutMs,
    keepAliveMaxTimeout: cfg.keepAliveMaxTimeoutMs,
    connect: { timeout: cfg.connectTimeoutMs },
  });
}

export function getDispatcher(): Dispatcher {
  dispatcher ??= buildAgent(DEFAULT_CONFIG);
  return dispatcher;
}

/** Replaces the shared pool (e.g. from gateway config). The old pool drains in the background. */
export function configureHttp(cfg: Partial<HttpConfig>): void {
  const old = dispatcher;
  dispatcher = buildAgent({ ...DEFAULT_CONFIG, ...cfg });
  if (old) void old.close().catch(() => undefined);
}

/** Closes pooled sockets (graceful shutdown, tests). */
export async function closeHttp(): Promise<void> {
  const old = dispatcher;
  dispatcher = undefined;
  if (old) await old.close();
}

/** Header values that must never appear in an error message. */
export function secretsOf(headers: Record<string, string>): string[] {
  const out: string[] = [];
  for (const name of ['authorization', 'x-api-key', 'x-goog-api-key', 'api-key']) {
    const v = headers[name];
    if (v) out.push(v.startsWith('Bearer ') ? v.slice(7) : v);
  }
  return out;
}

/**
 * Builds a header object once per adapter: JSON content type plus the provider's auth headers.
 * Header names must be lower-case (the layer reads them back to redact secrets).
 */
export function jsonHeaders(extra: Record<string, string>, accept = 'application/json'): Record<string, string> {
  return { 'content-type': 'application/json', accept, ...extra };
}

/** Origin and path of an upstream URL, parsed once per distinct URL (adapters build the same few). */
function splitUrl(url: string): { origin: string; path: string } {
  let parts = urlParts.get(url);
  if (!parts) {
    const u = new URL(url);
    parts = { origin: u.origin, path: u.pathname + u.search };
    if (urlParts.size >= MAX_CACHED_URLS) urlParts.clear();
    urlParts.set(url, parts);
  }
  return parts;
}

const urlParts = new Map<string, { origin: string; path: string }>();
const MAX_CACHED_URLS = 1_000;

/** Starts an exchange to `url`; `handler` receives the answer. */
function start(
  url: string,
  method: 'GET' | 'POST',
  headers: Record<string, string>,
  body: unknown,
  scope: CallScope,
  handler: WholeAnswer | SseAnswer,
  pool: Dispatcher | undefined,
): void {
  const { origin, path } = splitUrl(url);
  const text = body === undefined ? null : typeof body === 'string' ? body : JSON.stringify(body);
  dispatchExchange(
    pool ?? getDispatcher(),
    { origin, path, method, headers, body: text, timeoutMs: scope.timeoutMs },
    handler,
  );
}

function statusError(
  answer: WholeAnswer | SseAnswer,
  provider: string,
  headers: Record<string, string>,
): ProviderError {
  return httpStatusError(
    provider,
    answer.statusCode,
    util.parseHeaders(answer.rawHeaders),
    answer.errorText(),
    secretsOf(headers),
  );
}

async function callJson<T>(
  method: 'GET' | 'POST',
  url: string,
  headers: Record<string, string>,
  body: unknown,
  opts: HttpOptions,
  keepText = false,
): Promise<T> {
  const scope = new CallScope(opts.signal, opts.timeoutMs);
  const answer = new WholeAnswer(scope);
  try {
    start(url, method, headers, body, scope, answer, opts.dispatcher);
    await answer.finished;
    if (!answer.ok) throw statusError(answer, opts.provider, headers);
    const text = answer.text();
    try {
      const parsed: unknown = JSON.parse(text);
      if (keepText && typeof parsed === 'object' && parsed !== null) keepRawJson(parsed, text);
      return parsed as T;
    } catch (cause) {
      throw new ProviderError({
        provider: opts.provider,
        status: answer.statusCode,
        retryable: false,
        kind: 'parse',
        message: `${opts.provider} returned a body that is not JSON (${text.length} bytes)`,
        cause,
      });
    }
  } catch (err) {
    throw toProviderError(err, scope, opts.provider, false, answer.ok);
  } finally {
    scope.dispose();
  }
}

/**
 * POSTs a JSON body and returns the parsed JSON response. With `keepText`, an object answer also
 * carries the text it was parsed from (see raw-json.ts), for answers that are sent on unchanged.
 */
export function postJson<T = unknown>(
  url: string,
  headers: Record<string, string>,
  body: unknown,
  opts: HttpOptions,
  keepText = false,
): Promise<T> {
  return callJson<T>('POST', url, headers, body, opts, keepText);
}

export function getJson<T = unknown>(url: string, headers: Record<string, string>, opts: HttpOptions): Promise<T> {
  return callJson<T>('GET', url, headers, undefined, opts);
}

/**
 * POSTs a JSON body and yields the response's server-sent events. Nothing is sent until the first
 * `next()`. `opts.timeoutMs` bounds each wait for the upstream (the first event, then each next
 * one), not the time the consumer takes between them (see CallScope.resume). A failure before the first event (connect error, timeout, 429/5xx, a stream that ends
 * with nothing) is thrown from that first `next()` with its usual retryability; a failure after
 * it is a non-retryable ProviderError of kind 'stream'. Stopping iteration early closes the connection.
 */
export async function* postSse(
  url: string,
  headers: Record<string, string>,
  body: unknown,
  opts: HttpOptions,
): AsyncGenerator<SseEvent, void, undefined> {
  const scope = new CallScope(opts.signal, opts.timeoutMs);
  const answer = new SseAnswer(scope);
  let started = false;
  try {
    start(url, 'POST', headers, body, scope, answer, opts.dispatcher);
    for (;;) {
      const ev = answer.take();
      if (ev !== undefined) {
        started = true;
        scope.pause();
        yield ev;
        scope.resume();
      } else if (answer.settled) {
        break;
      } else {
        await answer.whenReady();
      }
    }
    if (answer.failure) throw answer.failure;
    if (!answer.ok) throw statusError(answer, opts.provider, headers);
    if (!started) {
      throw new ProviderError({
        provider: opts.provider,
        status: 0,
        retryable: true,
        kind: 'stream',
        message: `${opts.provider} stream ended before any event`,
      });
    }
  } catch (err) {
    throw toProviderError(err, scope, opts.provider, started, answer.ok);
  } finally {
    scope.dispose();
    // The consumer stopped early: close the connection rather than read the rest.
    answer.abort(new Error('stream closed by the consumer'));
  }
}
