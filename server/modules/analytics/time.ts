// Range windows and UTC buckets. A window starts at now minus the range (inclusive) and ends now;
// buckets are aligned to the UTC hour (ranges up to 24h) or the UTC day, and the first bucket only
// counts rows at or after the start. Rollups hold whole hours, so a window is read as the rollup
// rows from the first whole hour on, plus the raw rows of the partial hour before it.

export const RANGES = ['1h', '6h', '24h', '7d', '30d'] as const;
export type Range = (typeof RANGES)[number];

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

const RANGE_MS: Record<Range, number> = {
  '1h': HOUR_MS,
  '6h': 6 * HOUR_MS,
  '24h': DAY_MS,
  '7d': 7 * DAY_MS,
  '30d': 30 * DAY_MS,
};

export type BucketUnit = 'hour' | 'day';

export interface Window {
  range: Range;
  unit: BucketUnit;
  /** now - range, inclusive. */
  start: Date;
  end: Date;
  /** The first whole hour at or after start: rollup rows from here on, raw rows in [start, rollupFrom). */
  rollupFrom: Date;
  /** The hour bucket holding `end`: the last rollup bucket a timeseries shows. */
  lastHour: Date;
  /** Start (epoch ms) of every bucket of the window, in order. */
  buckets: number[];
}

export const floorTo = (ms: number, unitMs: number) => Math.floor(ms / unitMs) * unitMs;
export const ceilTo = (ms: number, unitMs: number) => Math.ceil(ms / unitMs) * unitMs;

export function unitMs(unit: BucketUnit): number {
  return unit === 'hour' ? HOUR_MS : DAY_MS;
}

export function windowFor(range: Range, nowMs: number): Window {
  const startMs = nowMs - RANGE_MS[range];
  const unit: BucketUnit = RANGE_MS[range] <= DAY_MS ? 'hour' : 'day';
  const size = unitMs(unit);
  const buckets: number[] = [];
  for (let b = floorTo(startMs, size); b <= nowMs; b += size) buckets.push(b);
  return {
    range,
    unit,
    start: new Date(startMs),
    end: new Date(nowMs),
    rollupFrom: new Date(ceilTo(startMs, HOUR_MS)),
    lastHour: new Date(floorTo(nowMs, HOUR_MS)),
    buckets,
  };
}
