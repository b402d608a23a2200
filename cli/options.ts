import { CommanderError, InvalidArgumentError } from 'commander';

// Option parsers for commander: a bad value becomes a one-line usage error before any request.

export function parsePositiveNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0)
    throw new InvalidArgumentError('Expected a positive number.');
  return n;
}

export function parsePositiveInteger(value: string): number {
  const n = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(n) || n <= 0)
    throw new InvalidArgumentError('Expected a positive integer.');
  return n;
}

/**
 * The longest --timeout: a day. Node's timers hold at most 2^31-1 ms (about 24.8 days); past that
 * a timer fires at once, so a huge value would give up on every call immediately.
 */
export const MAX_TIMEOUT_SECONDS = 86_400;

/** --timeout / GATEWAY_TIMEOUT: seconds, above 0 and at most MAX_TIMEOUT_SECONDS. */
export function parseTimeoutSeconds(value: string): number {
  const n = parsePositiveNumber(value);
  if (n > MAX_TIMEOUT_SECONDS)
    throw new InvalidArgumentError(`Expected at most ${MAX_TIMEOUT_SECONDS} seconds (24 h).`);
  return n;
}

/** The gateway's bound on a page of a list (audit, feedback, analytics requests): 1-500. */
export const MAX_PAGE_SIZE = 500;

/** --limit of a list: a whole number from 1 to MAX_PAGE_SIZE, as the gateway accepts. */
export function parsePageSize(value: string): number {
  const n = parsePositiveInteger(value);
  if (n > MAX_PAGE_SIZE) throw new InvalidArgumentError(`Expected at most ${MAX_PAGE_SIZE}.`);
  return n;
}

const URL_EXPECTED = 'Expected an http(s) URL such as http://127.0.0.1:8080.';
const NO_CREDENTIALS = 'must not contain credentials (user:pass@): pass the API token with --token or GATEWAY_TOKEN.';

/**
 * A usage error whose text does not repeat the value. Commander quotes the value of an option in
 * its message for an InvalidArgumentError; a URL carrying user:pass@ must not reach the terminal
 * (or a CI log), so its error is thrown past commander and printed by main() as it is.
 */
function refusedUrl(reason: string): CommanderError {
  return new CommanderError(2, 'gatewayctl.invalidUrl', `the gateway URL (--url or GATEWAY_URL) ${reason}`);
}

/**
 * --url / GATEWAY_URL: an http(s) base URL, returned normalised (surrounding spaces and trailing
 * slashes removed) so that the API paths appended to it are the ones meant. A query or fragment
 * would end up in the middle of every request's URL, and credentials in the URL are refused
 * (never echoed): the gateway authenticates with --token.
 */
export function parseGatewayUrl(value: string): string {
  const text = value.trim();
  // user:pass@ (or just user@) before the host, looked for in the text too: an invalid URL is
  // otherwise quoted in commander's message, and so is one that is not http(s).
  if (/^[^/?#]*\/\/[^/?#]*@/.test(text)) throw refusedUrl(NO_CREDENTIALS);
  const invalid = () =>
    text.includes('@') ? refusedUrl(`is invalid. ${URL_EXPECTED}`) : new InvalidArgumentError(URL_EXPECTED);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid();
  }
  if (url.username || url.password) throw refusedUrl(NO_CREDENTIALS);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid();
  if (url.search || url.hash || text.includes('?') || text.includes('#')) {
    throw new InvalidArgumentError('Expected a base URL without ?query or #fragment, such as http://127.0.0.1:8080.');
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}
