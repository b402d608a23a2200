// Log rows' JSON, built ahead of the batch that sends them. Encoding a whole batch when it is
// flushed blocks the event loop in one piece (about 0.25 ms for 25 rows on a cold core), and every
// upstream answer that arrives meanwhile waits for it. Each row is encoded instead on the turn of
// the event loop after the request that logged it, when its response has been written.

/**
 * Where a row keeps its JSON: a symbol-keyed property, which JSON.stringify skips. (A WeakMap from
 * row to text made every young-generation collection about 0.8 ms longer: its entries are
 * ephemerons, which the scavenger processes separately.)
 */
const JSON_TEXT = Symbol('json text');

type Encodable = object & { [JSON_TEXT]?: string };

export class RowJsonCache {
  private pending: Encodable[] = [];
  private scheduled: NodeJS.Immediate | undefined;

  /** Encodes `row` on a later turn of the event loop. */
  encodeSoon(row: Encodable): void {
    this.pending.push(row);
    this.scheduled ??= setImmediate(this.encodePending);
  }

  /** The rows as one JSON array in a Buffer (see jsonParam), reusing what was encoded ahead. */
  param(rows: readonly object[]): Buffer {
    const parts = new Array<string>(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i] as Encodable;
      parts[i] = row[JSON_TEXT] ?? JSON.stringify(row);
    }
    return Buffer.from(`[${parts.join(',')}]`);
  }

  private readonly encodePending = (): void => {
    this.scheduled = undefined;
    const rows = this.pending;
    this.pending = [];
    for (const row of rows) row[JSON_TEXT] ??= JSON.stringify(row);
  };
}
