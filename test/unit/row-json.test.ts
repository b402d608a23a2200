import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { EncodeAhead, RowCodec, type Column } from '../../server/gateway/row-json.js';

interface Row {
  id: string;
  createdAt: Date;
  preview: string | null;
  tokens: number;
  cost: number;
  cached: boolean;
  variant: string | null;
}

const COLUMNS: Array<Column<Row>> = [
  ['id', 'id', 'text'],
  ['createdAt', 'created_at', 'timestamptz'],
  ['preview', 'preview', 'text'],
  ['tokens', 'tokens', 'int4'],
  ['cost', 'cost', 'numeric'],
  ['cached', 'cached', 'bool'],
  ['variant', 'variant', 'text'],
];
const codec = new RowCodec<Row>('things', COLUMNS);

const rows: Row[] = [
  {
    id: 'req_1',
    createdAt: new Date('2026-11-22T04:00:00.123Z'),
    preview: 'quote " and \\ and é and \n and \u2028',
    tokens: 3,
    cost: 2.5e-7,
    cached: false,
    variant: null,
  },
  {
    id: 'req_2',
    createdAt: new Date('2026-11-22T04:00:01Z'),
    preview: null,
    tokens: 0,
    cost: 0.0135,
    cached: true,
    variant: 'b',
  },
  {
    id: 'req_3',
    createdAt: new Date('2026-11-22T04:00:02Z'),
    preview: '',
    tokens: 1,
    cost: 0,
    cached: false,
    variant: null,
  },
];

const asArray = (r: Row) => [r.id, r.createdAt.getTime(), r.preview, r.tokens, r.cost, r.cached, r.variant];

describe('RowCodec', () => {
  it('writes each row as a JSON array of its column values in column order, timestamps as epoch milliseconds', () => {
    expect(JSON.parse(codec.encode(rows[0]!))).toEqual(asArray(rows[0]!));
    expect(codec.encode(rows[1]!)).toBe('["req_2",1795320001000,null,0,0.0135,true,"b"]');
    expect(codec.param([]).toString()).toBe('[]');
    expect(JSON.parse(codec.param(rows).toString())).toEqual(rows.map(asArray));
  });

  it('writes null for a missing value, an invalid date or a number JSON cannot hold', () => {
    const odd = {
      id: 'req_4',
      createdAt: new Date(Number.NaN),
      preview: undefined,
      tokens: Number.NaN,
      cost: Number.POSITIVE_INFINITY,
      cached: false,
      variant: null,
    } as unknown as Row;
    expect(codec.encode(odd)).toBe('["req_4",null,null,null,null,false,null]');
  });

  it('reads the arrays back by position in its insert statement', () => {
    expect(codec.insertFrom('$1', ' on conflict (id) do nothing')).toBe(
      'insert into things (id, created_at, preview, tokens, cost, cached, variant) select r->>0, to_timestamp((r->>1)::float8 / 1000), r->>2, ' +
        '(r->>3)::int4, (r->>4)::numeric, (r->>5)::bool, r->>6 from jsonb_array_elements($1::json::jsonb) as r on conflict (id) do nothing',
    );
  });
});

describe('EncodeAhead', () => {
  it('sends the same JSON whether or not rows were encoded ahead', async () => {
    const whole = codec.param(rows).toString();
    const queue = new EncodeAhead();
    queue.add(rows[0]!, codec);
    queue.add(rows[2]!, codec);
    await nextTurn();
    expect(codec.param(rows).toString()).toBe(whole);
  });

  it('encodes a row on a later turn, not when it is queued', async () => {
    const queue = new EncodeAhead();
    const row: Row = { ...rows[1]!, variant: 'a' };
    queue.add(row, codec);
    // Still unencoded in this turn: a change shows in the batch.
    row.variant = 'c';
    expect(JSON.parse(codec.param([row]).toString())[0][6]).toBe('c');
    await nextTurn();
    // Encoded since: the batch reuses that JSON (rows are not changed once written).
    row.variant = 'changed after encoding';
    expect(JSON.parse(codec.param([row]).toString())[0][6]).toBe('c');
  });
});

describe('text PostgreSQL cannot take', () => {
  it('has NUL removed and lone surrogates replaced, so the batch is not refused; surrogate pairs stay', () => {
    const row: Row = {
      id: 'req_\u0000x',
      createdAt: new Date(0),
      preview: 'lone \ud800 pair \ud83d\ude80',
      tokens: 0,
      cost: 0,
      cached: false,
      variant: 'b\udc00',
    };
    const json = codec.encode(row);
    expect(json).not.toMatch(/\\u0000|\\ud8|\\udc/);
    expect(JSON.parse(json)).toEqual(['req_x', 0, 'lone \ufffd pair \u{1f680}', 0, 0, false, 'b\ufffd']);
  });
});
