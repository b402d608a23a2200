// Log rows as JSON for one batch insert, built ahead of the batch that sends them.
//
// Each row is a positional JSON array in its table's column order, with timestamps as epoch
// milliseconds: a request row is about 270 bytes instead of 700 as a keyed object, and encoding it
// walks a fixed column list instead of JSON.stringify's generic object walk and Date.toJSON.
// PostgreSQL reads the arrays with jsonb_array_elements and picks each column by position, which
// costs it slightly less than matching keys in json_to_recordset (about 3% of a batch's CPU).
//
// Encoding a whole batch when it is flushed blocks the event loop in one piece, and every upstream
// answer that arrives meanwhile waits for it. Each row is encoded instead on the turn of the event
// loop after the request that logged it, when its response has been written.

import { toStorableText } from '../lib/storable-text.js';

export type ColumnType = 'text' | 'int2' | 'int4' | 'numeric' | 'bool' | 'timestamptz';

/** A row field, the table column it fills, and that column's type. */
export type Column<T> = readonly [field: keyof T & string, column: string, type: ColumnType];

/**
 * Where a row keeps its JSON: a symbol-keyed property, which the encoder never reads. (A WeakMap
 * from row to text made every young-generation collection about 0.8 ms longer: its entries are
 * ephemerons, which the scavenger processes separately.)
 */
const JSON_TEXT = Symbol('json text');

type Encodable = object & { [JSON_TEXT]?: string };

export class RowCodec<T extends object> {
  private readonly fields: string[];
  private readonly types: ColumnType[];

  constructor(
    private readonly table: string,
    private readonly columns: ReadonlyArray<Column<T>>,
  ) {
    this.fields = columns.map(([field]) => field);
    this.types = columns.map(([, , type]) => type);
  }

  /**
   * One row as a JSON array of its column values, in column order. Joined from an array rather than
   * appended to: a row waits in the queue for its batch, and `+=` would keep it as a tree of some
   * fifty string pieces that every young-generation collection has to copy, where join() makes one
   * flat string.
   */
  encode(row: T): string {
    const values = row as Record<string, unknown>;
    const parts = new Array<string>(this.fields.length);
    for (let i = 0; i < parts.length; i++) parts[i] = encodeValue(values[this.fields[i]!], this.types[i]!);
    return `[${parts.join(',')}]`;
  }

  /** The rows as one JSON array in a Buffer (see jsonParam), reusing what was encoded ahead. */
  param(rows: readonly T[]): Buffer {
    const parts = new Array<string>(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      parts[i] = (row as Encodable)[JSON_TEXT] ?? this.encode(row);
    }
    return Buffer.from(`[${parts.join(',')}]`);
  }

  /**
   * `insert into <table> (...) select ... from jsonb_array_elements(<param>)`. The parameter is
   * typed json (whose binary format, the one pg uses for a Buffer, is its text) and converted to
   * jsonb once, so that reading a column by position does not parse the row again.
   */
  insertFrom(param: string, suffix = ''): string {
    const names = this.columns.map(([, column]) => column).join(', ');
    const values = this.types.map((type, i) => readValue(`r->>${i}`, type)).join(', ');
    return `insert into ${this.table} (${names}) select ${values} from jsonb_array_elements(${param}::json::jsonb) as r${suffix}`;
  }
}

/** Rows waiting to be encoded on the next turn of the event loop, whatever their table. */
export class EncodeAhead {
  private rows: Encodable[] = [];
  private codecs: Array<RowCodec<object>> = [];
  private scheduled: NodeJS.Immediate | undefined;

  /** Encodes `row` with `codec` on a later turn of the event loop. */
  add<T extends object>(row: T, codec: RowCodec<T>): void {
    this.rows.push(row);
    this.codecs.push(codec as unknown as RowCodec<object>);
    this.scheduled ??= setImmediate(this.encodePending);
  }

  private readonly encodePending = (): void => {
    this.scheduled = undefined;
    const rows = this.rows;
    const codecs = this.codecs;
    this.rows = [];
    this.codecs = [];
    for (let i = 0; i < rows.length; i++) rows[i]![JSON_TEXT] ??= codecs[i]!.encode(rows[i]!);
  };
}

function encodeValue(value: unknown, type: ColumnType): string {
  if (value === null || value === undefined) return 'null';
  switch (type) {
    case 'text': {
      // Validation keeps NUL and lone surrogates out of the text the gateway logs; should one get
      // through, it is replaced here rather than have PostgreSQL refuse the whole batch.
      return JSON.stringify(toStorableText(String(value)));
    }
    case 'bool':
      return value ? 'true' : 'false';
    case 'timestamptz': {
      const ms = value instanceof Date ? value.getTime() : NaN;
      return Number.isFinite(ms) ? String(ms) : 'null';
    }
    default:
      // int2, int4 and numeric: a JSON number (non-finite numbers have none; JSON.stringify writes null too).
      return typeof value === 'number' && Number.isFinite(value) ? String(value) : 'null';
  }
}

function readValue(text: string, type: ColumnType): string {
  switch (type) {
    case 'text':
      return text;
    case 'timestamptz':
      // Epoch milliseconds: float8 holds them exactly, and to_timestamp keeps microseconds.
      return `to_timestamp((${text})::float8 / 1000)`;
    default:
      return `(${text})::${type}`;
  }
}
