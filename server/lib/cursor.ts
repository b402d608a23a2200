import { sql, type AnyColumn, type SQL } from 'drizzle-orm';
import { GatewayError } from './errors.js';

// Keyset-paging cursors, opaque to clients: base64url of "<iso time>|<id>".
//
// The time is the row's created_at exactly as PostgreSQL keeps it (microseconds), not a JS Date
// (milliseconds): rounding it would skip the older rows written in the same millisecond as a page's
// last row. Cursors from before, with milliseconds, still decode.
export interface Cursor {
  /** ISO 8601 UTC time with up to six fractional digits, e.g. 2025-01-02T03:04:05.123456Z. */
  createdAt: string;
  id: string;
}

/** A row that can end a page: its id and its created_at as exact text (select it with `exactTime`). */
export interface KeysetRow {
  id: string;
  cursorTime: string;
}

/** created_at as ISO 8601 UTC text with microseconds, for `KeysetRow.cursorTime`. */
export function exactTime(column: AnyColumn): SQL<string> {
  return sql<string>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

/** Rows strictly after the cursor in (created_at desc, id desc) order. */
export function olderThan(createdAt: AnyColumn, id: AnyColumn, cursor: Cursor): SQL {
  return sql`(${createdAt}, ${id}) < (${cursor.createdAt}::timestamptz, ${cursor.id})`;
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(`${c.createdAt}|${c.id}`).toString('base64url');
}

// Years 1-9999 only: PostgreSQL's timestamptz cannot take year 0 nor JavaScript's six-digit years.
const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?Z$/;
const ID = /^[A-Za-z0-9_-]{1,128}$/;

export function decodeCursor(cursor: string): Cursor {
  const parts = Buffer.from(cursor, 'base64url').toString().split('|');
  const [createdAt, id] = parts;
  if (parts.length !== 2 || !isStorableTime(createdAt!) || !ID.test(id!))
    throw new GatewayError('invalid_request_error', 'cursor is not valid');
  return { createdAt: createdAt!, id: id! };
}

/** A well-formed UTC time PostgreSQL can store, with no field out of range (no 30 February). */
export function isStorableTime(iso: string): boolean {
  const m = ISO_TIME.exec(iso);
  if (!m || m[1] === '0000') return false;
  const date = new Date(`${iso.slice(0, 19)}Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 19) === iso.slice(0, 19);
}

/**
 * One page from rows fetched with `limit + 1`: the extra row only says that there is more, and the
 * cursor points after the last row shown.
 */
export function keysetPage<R extends KeysetRow, D>(
  rows: R[],
  limit: number,
  toDto: (r: R) => D,
): { items: D[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map(toDto),
    nextCursor: rows.length > limit && last ? encodeCursor({ createdAt: last.cursorTime, id: last.id }) : null,
  };
}
