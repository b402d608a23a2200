import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { RowJsonCache } from '../../server/gateway/row-json.js';

describe('RowJsonCache', () => {
  it('sends the same JSON array as encoding the batch whole, with or without rows encoded ahead', async () => {
    const cache = new RowJsonCache();
    const rows = [
      { id: 'req_1', createdAt: new Date('2026-11-22T04:00:00.123Z'), preview: 'quote " and \\ and é', tokens: 3, cached: false, variant: null },
      { id: 'req_2', createdAt: new Date('2026-11-22T04:00:01Z'), preview: null, tokens: 0, cached: true, variant: 'b' },
      { id: 'req_3', createdAt: new Date('2026-11-22T04:00:02Z'), preview: '', tokens: 1, cached: false, variant: null },
    ];
    expect(cache.param([]).toString()).toBe('[]');
    expect(cache.param(rows).toString()).toBe(JSON.stringify(rows));

    cache.encodeSoon(rows[0]!);
    cache.encodeSoon(rows[2]!);
    await nextTurn();
    expect(JSON.parse(cache.param(rows).toString())).toEqual(JSON.parse(JSON.stringify(rows)));
    expect(cache.param(rows).toString()).toBe(JSON.stringify(rows));
  });

  it('encodes a row on a later turn, not when it is queued', async () => {
    const cache = new RowJsonCache();
    const row = { id: 'req_1', status: 'ok' };
    cache.encodeSoon(row);
    // Still unencoded in this turn: a change shows in the batch.
    row.status = 'error';
    expect(cache.param([row]).toString()).toBe('[{"id":"req_1","status":"error"}]');
    await nextTurn();
    // Encoded since: the batch reuses that JSON (rows are not changed once written).
    row.status = 'changed after encoding';
    expect(cache.param([row]).toString()).toBe('[{"id":"req_1","status":"error"}]');
  });
});
