import { gatewayErrorOf, type GatewayErrorInfo } from '../sdk/index.js';
import { CliError, DEFAULT_TIMEOUT_SECONDS, type GlobalOptions } from './client.js';

// One line of text for whatever made a call fail: the gateway's refusal, no answer in time, no
// connection at all, or a problem the user can fix from the command line.

const NETWORK_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** An error and its causes, outermost first (a bounded walk: a cause chain may loop). */
function* causeChain(err: unknown): Generator<Error> {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) yield e;
}

/** The root cause when the request never got an HTTP answer (refused, DNS, timeout), else undefined. */
export function networkFailure(err: unknown): string | undefined {
  let isNetwork = false;
  let innermost: Error | undefined;
  for (const e of causeChain(err)) {
    const code = (e as { code?: unknown }).code;
    if (e.message === 'fetch failed' || (typeof code === 'string' && NETWORK_ERROR_CODES.has(code))) isNetwork = true;
    innermost = e;
  }
  if (!isNetwork || !innermost) return undefined;
  // Node reports a refused dual-stack connect as an AggregateError with an empty message.
  const first = innermost instanceof AggregateError ? (innermost.errors[0] as unknown) : undefined;
  if (!innermost.message && first instanceof Error) return first.message;
  return innermost.message || String((innermost as { code?: unknown }).code ?? 'fetch failed');
}

/** The message at the bottom of an error's cause chain: "other side closed" behind fetch's "terminated". */
export function innermostMessage(err: unknown): string {
  let message = err instanceof Error ? err.message : String(err);
  for (const e of causeChain(err)) if (e.message) message = e.message;
  return message;
}

/** Whether the request was given up for want of an answer in time (the SDK's timeoutMs). */
export function timedOut(err: unknown): boolean {
  for (const e of causeChain(err)) if (e.name === 'TimeoutError') return true;
  return false;
}

/**
 * The gateway's 404 for a path it does not serve. The CLI only calls paths every gateway serves,
 * so this answer means the configured URL carries a path the gateway does not expect.
 */
function isNoRoute(refusal: GatewayErrorInfo): boolean {
  return refusal.status === 404 && refusal.type === 'not_found_error' && refusal.message.startsWith('No route for ');
}

/**
 * What to fix in a gateway URL that has a path. The OpenAI SDKs take `<gateway>/v1` as their base
 * URL, so that is the usual mistake; gatewayctl appends /trpc and /v1/... to the bare base URL.
 */
function baseUrlHint(url: string): string | undefined {
  const { origin, pathname } = new URL(url);
  if (pathname === '/' || pathname === '') return undefined;
  const withoutV1 = pathname.replace(/\/v1$/i, '');
  if (withoutV1 !== pathname)
    return `The gateway URL (--url or GATEWAY_URL) must be its base URL, without /v1: use ${origin}${withoutV1}`;
  return `Check that the gateway URL (--url or GATEWAY_URL) is its base URL, such as ${origin}, without /v1 or an API path.`;
}

/** The gateway's refusal as one line, with a hint when it points at a wrong --url. */
export function describeRefusal(refusal: GatewayErrorInfo, url: string): string {
  const text = `${refusal.type}: ${refusal.message}`;
  const hint = isNoRoute(refusal) ? baseUrlHint(url) : undefined;
  return hint ? `${text}. ${hint}` : text;
}

/** One line for stderr, without the "error: " prefix. */
export function describeError(err: unknown, { url, timeout }: Pick<GlobalOptions, 'url' | 'timeout'>): string {
  const gatewayError = gatewayErrorOf(err);
  if (gatewayError) return describeRefusal(gatewayError, url);
  if (err instanceof CliError) return err.message;
  if (timedOut(err))
    return `no answer from the gateway at ${url} within ${timeout ?? DEFAULT_TIMEOUT_SECONDS} s (raise it with --timeout or GATEWAY_TIMEOUT)`;
  const network = networkFailure(err);
  if (network) return `cannot reach gateway at ${url}: ${network}`;
  return err instanceof Error ? err.message : String(err);
}
