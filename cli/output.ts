import Table from 'cli-table3';
import { UNPRINTABLE, UNPRINTABLE_ABOVE_C0 } from '../contracts/unprintable.js';
import { writeErr, writeOut } from './io.js';

// Human output is a plain table (no colours, so it pipes and diffs cleanly); --json prints the
// raw SDK result so scripts see exactly what the API returns.

export type Cell = string | number;

/**
 * Characters a terminal acts on instead of showing (see unprintable.ts). Names, comments and
 * prompt previews come from any token of the workspace, so none of them may reach the terminal raw.
 */
const TERMINAL_CONTROLS = new RegExp(`[${UNPRINTABLE}]`, 'g');
/** The same without C0, which JSON.stringify already escapes inside strings. */
const CONTROLS_JSON_LEAVES = new RegExp(`[${UNPRINTABLE_ABOVE_C0}]`, 'g');

const SHORT_ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** JSON's escape for one character, so that escaped JSON text still parses to the same value. */
function escapeChar(c: string): string {
  return SHORT_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** The text with every terminal control shown as an escape (a newline as \n): one cell stays one line. */
export function visible(text: string): string {
  return text.replace(TERMINAL_CONTROLS, escapeChar);
}

export function printJson(value: unknown): void {
  writeOut(`${JSON.stringify(value, null, 2).replace(CONTROLS_JSON_LEAVES, escapeChar)}\n`);
}

export function printLine(text: string): void {
  writeOut(`${visible(text)}\n`);
}

const cellText = (cell: Cell) => (typeof cell === 'string' ? visible(cell) : cell);

export function printTable(head: string[], rows: Cell[][]): void {
  const table = new Table({ head, style: { head: [], border: [] } });
  table.push(...rows.map((row) => row.map(cellText)));
  writeOut(`${table.toString()}\n`);
}

/** Two-column table for a single object (e.g. health). */
export function printRecord(record: Record<string, Cell>): void {
  const table = new Table({ style: { head: [], border: [] } });
  for (const [key, value] of Object.entries(record)) table.push({ [key]: cellText(value) });
  writeOut(`${table.toString()}\n`);
}

/** "2025-01-31 14:05" (UTC): enough to tell rows apart without the ISO noise. */
export function shortDate(iso: string | null | undefined, { seconds = false } = {}): string {
  if (!iso) return '-';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date
    .toISOString()
    .slice(0, seconds ? 19 : 16)
    .replace('T', ' ');
}

/** A time bucket's start: the date alone for a daily bucket, as its time of day is always 00:00. */
export function bucketLabel(iso: string, bucket: 'hour' | 'day'): string {
  return bucket === 'day' ? shortDate(iso).slice(0, 10) : shortDate(iso);
}

/**
 * "provider/model", or "-" for a call no provider served (a 404 for an unknown model). Some
 * endpoints give null for "none", others an empty string: both read as "-".
 */
export function modelName(provider: string | null | undefined, model: string | null | undefined): string {
  return provider || model ? `${provider || '-'}/${model || '-'}` : '-';
}

export function orDash(value: Cell | null | undefined, format: (v: Cell) => string = String): string {
  return value === null || value === undefined ? '-' : format(value);
}

export function yesNo(value: boolean): string {
  return value ? 'yes' : 'no';
}

/** Errors are always a single line so that scripts can log or grep them. */
export function printError(message: string): void {
  writeErr(`error: ${visible(message.replace(/\s+/g, ' ').trim())}\n`);
}
