import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { GatewayError } from '../lib/errors.js';

// A base URL a workspace gives (a custom provider, a provider key's own address) is an address this
// server will call: without a guard, a workspace could make the gateway reach its own network (the
// database, a cloud's metadata service). The guard refuses loopback, private, link-local, shared
// and metadata addresses twice: when the URL is given (a clear 400), and when each connection is
// opened, on the address DNS gave then (a name that resolves to a public address when checked and
// to 127.0.0.1 a moment later, DNS rebinding, is refused at connect time too).

/** IPv4 ranges no provider is reachable at from here. */
const BLOCKED_V4: Array<[string, number]> = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];

function v4ToInt(ip: string): number {
  return ip.split('.').reduce((n, part) => (n << 8) + Number(part), 0) >>> 0;
}

function blockedV4(ip: string): boolean {
  const n = v4ToInt(ip);
  return BLOCKED_V4.some(([base, bits]) => {
    const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
    return (n & mask) >>> 0 === (v4ToInt(base) & mask) >>> 0;
  });
}

/** The 8 groups of an IPv6 address as numbers (an embedded IPv4 tail converted). */
function v6Groups(ip: string): number[] {
  let text = ip.toLowerCase().split('%')[0]!;
  const v4Tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4Tail) {
    const n = v4ToInt(v4Tail[1]!);
    text = `${text.slice(0, -v4Tail[1]!.length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const h = head ? head.split(':').map((g) => Number.parseInt(g, 16)) : [];
  const t = tail ? tail.split(':').map((g) => Number.parseInt(g, 16)) : [];
  const fill = tail === undefined ? [] : new Array<number>(8 - h.length - t.length).fill(0);
  return [...h, ...fill, ...t];
}

function blockedV6(ip: string): boolean {
  const g = v6Groups(ip);
  if (g.length !== 8) return true;
  const [a, b, c, d, e, f, g6, h] = g as [number, number, number, number, number, number, number, number];
  const embedded = `${g6 >> 8}.${g6 & 0xff}.${h >> 8}.${h & 0xff}`;
  if (a === 0 && b === 0 && c === 0 && d === 0 && e === 0) {
    if (f === 0xffff) return blockedV4(embedded); // IPv4-mapped
    if (f === 0 && g6 === 0 && (h === 0 || h === 1)) return true; // :: and ::1
  }
  if (a === 0x64 && b === 0xff9b) return blockedV4(embedded); // NAT64
  if ((a & 0xfe00) === 0xfc00) return true; // unique local (fd00:ec2::254, another metadata address)
  if ((a & 0xffc0) === 0xfe80) return true; // link-local
  if ((a & 0xff00) === 0xff00) return true; // multicast
  return false;
}

/** True for an address a provider must not be reached at (unless the operator allows it). */
export function isBlockedAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 4) return blockedV4(ip);
  if (family === 6) return blockedV6(ip);
  return true;
}

export class BlockedAddressError extends Error {
  readonly code = 'EBLOCKEDADDRESS';
  constructor(host: string, address: string) {
    super(`${host} resolves to ${address}, a loopback, private, link-local or metadata address`);
    this.name = 'BlockedAddressError';
  }
}

/** dns.lookup that refuses (with BlockedAddressError) a name resolving to a blocked address. */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...(options as LookupOptions), all: true }, (err, addresses) => {
    if (err) return callback(err, '', 0);
    const list = addresses as LookupAddress[];
    const bad = list.find((a) => isBlockedAddress(a.address));
    if (bad || list.length === 0) return callback(new BlockedAddressError(hostname, bad?.address ?? 'nothing'), '', 0);
    if ((options as LookupOptions).all)
      return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
    callback(null, list[0]!.address, list[0]!.family);
  });
};

/**
 * An undici Agent whose every connection is checked where it is made: an IP literal against the
 * blocked ranges, a name through guardedLookup (the address the socket then connects to is the
 * one checked: no second resolution in between).
 */
export function guardedAgent(connectTimeoutMs: number): Agent {
  const connector = buildConnector({ timeout: connectTimeoutMs, lookup: guardedLookup });
  return new Agent({
    pipelining: 1,
    connect: (opts, callback) => {
      const host = opts.hostname.replace(/^\[|\]$/g, '');
      if (isIP(host) && isBlockedAddress(host)) return callback(new BlockedAddressError(host, host), null);
      connector(opts, callback);
    },
  });
}

/**
 * Checks a base URL a workspace gives: http(s), no credentials in it, and (unless `allowPrivate`)
 * every address its host resolves to now is a public one. Throws a 400 saying what is wrong.
 */
export async function checkProviderUrl(url: string, allowPrivate: boolean, field = 'baseUrl'): Promise<void> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new GatewayError('invalid_request_error', `${field}: not a URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new GatewayError('invalid_request_error', `${field}: only http and https URLs can be called`);
  if (u.username || u.password)
    throw new GatewayError('invalid_request_error', `${field}: put credentials in the key, not in the URL`);
  if (allowPrivate) return;
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const refused = () =>
    new GatewayError(
      'invalid_request_error',
      `${field}: ${u.hostname} is a loopback, private, link-local or metadata address, which providers cannot be called at (GATEWAY_ALLOW_PRIVATE_PROVIDER_URLS allows it)`,
    );
  if (isIP(host)) {
    if (isBlockedAddress(host)) throw refused();
    return;
  }
  const addresses = await new Promise<LookupAddress[]>((resolve) =>
    dnsLookup(host, { all: true }, (err, list) => resolve(err ? [] : list)),
  );
  // A name that does not resolve now is let through: every connection is checked when it is made.
  if (addresses.some((a) => isBlockedAddress(a.address))) throw refused();
}
