import { InvalidArgumentError } from 'commander';

// Option parsers for commander: a bad value becomes a one-line usage error before any request.

export function parsePositiveNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('Expected a positive number.');
  return n;
}

export function parsePositiveInteger(value: string): number {
  const n = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(n) || n <= 0) throw new InvalidArgumentError('Expected a positive integer.');
  return n;
}

export function parseGatewayUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('Expected an http(s) URL such as http://127.0.0.1:8080.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidArgumentError('Expected an http(s) URL such as http://127.0.0.1:8080.');
  return value;
}
