import Table from 'cli-table3';
import { gatewayErrorOf } from '../sdk/index.js';
import { CliError } from './client.js';

// Human output is a plain table (no colours, so it pipes and diffs cleanly); --json prints the
// raw SDK result so scripts see exactly what the API returns.

export type Cell = string | number;

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printLine(text: string): void {
  process.stdout.write(`${text}\n`);
}

export function printTable(head: string[], rows: Cell[][]): void {
  const table = new Table({ head, style: { head: [], border: [] } });
  table.push(...rows);
  printLine(table.toString());
}

/** Two-column table for a single object (e.g. health). */
export function printRecord(record: Record<string, Cell>): void {
  const table = new Table({ style: { head: [], border: [] } });
  for (const [key, value] of Object.entries(record)) table.push({ [key]: value });
  printLine(table.toString());
}

/** "2025-01-31 14:05" (UTC): enough to tell rows apart without the ISO noise. */
export function shortDate(iso: string | null | undefined, { seconds = false } = {}): string {
  if (!iso) return '-';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toISOString().slice(0, seconds ? 19 : 16).replace('T', ' ');
}

export function orDash(value: Cell | null | undefined, format: (v: Cell) => string = String): string {
  return value === null || value === undefined ? '-' : format(value);
}

export function yesNo(value: boolean): string {
  return value ? 'yes' : 'no';
}

const NETWORK_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);

/** The root cause when the request never got an HTTP answer (refused, DNS, timeout), else undefined. */
function networkFailure(err: unknown): string | undefined {
  let isNetwork = false;
  let innermost: Error | undefined;
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (e.message === 'fetch failed' || e.name === 'TimeoutError' || (typeof code === 'string' && NETWORK_ERROR_CODES.has(code))) isNetwork = true;
    innermost = e;
  }
  if (!isNetwork || !innermost) return undefined;
  // Node reports a refused dual-stack connect as an AggregateError with an empty message.
  const first = innermost instanceof AggregateError ? (innermost.errors[0] as unknown) : undefined;
  if (!innermost.message && first instanceof Error) return first.message;
  return innermost.message || String((innermost as { code?: unknown }).code ?? 'fetch failed');
}

/** One line for stderr, without the "error: " prefix. */
export function describeError(err: unknown, url: string): string {
  const gatewayError = gatewayErrorOf(err);
  if (gatewayError) return `${gatewayError.type}: ${gatewayError.message}`;
  if (err instanceof CliError) return err.message;
  const network = networkFailure(err);
  if (network) return `cannot reach gateway at ${url}: ${network}`;
  return err instanceof Error ? err.message : String(err);
}

/** Errors are always a single line so that scripts can log or grep them. */
export function printError(message: string): void {
  process.stderr.write(`error: ${message.replace(/\s+/g, ' ').trim()}\n`);
}
