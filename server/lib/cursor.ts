import { GatewayError } from './errors.js';

// Keyset-paging cursors, opaque to clients: base64url of "<iso time>|<id>".
export interface Cursor {
  createdAt: Date;
  id: string;
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(`${c.createdAt.toISOString()}|${c.id}`).toString('base64url');
}

export function decodeCursor(cursor: string): Cursor {
  const [iso, id] = Buffer.from(cursor, 'base64url').toString().split('|');
  const createdAt = new Date(iso ?? '');
  if (!id || Number.isNaN(createdAt.getTime())) throw new GatewayError('invalid_request_error', 'cursor is not valid');
  return { createdAt, id };
}

/**
 * One page from rows fetched with `limit + 1`: the extra row only says that there is more, and the
 * cursor points after the last row shown.
 */
export function keysetPage<R extends Cursor, D>(rows: R[], limit: number, toDto: (r: R) => D): { items: D[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { items: page.map(toDto), nextCursor: rows.length > limit && last ? encodeCursor(last) : null };
}
