import { GatewayError } from '../../lib/errors.js';

// The time windows of /v1/spend: a preset range ending now, or an explicit [from, to). Each window
// is read as whole UTC hours from the spend rollup plus the raw cost rows of the partial hours at
// its two ends, so figures are exact against cost_logs for any boundary.

export const SPEND_RANGES = ['24h', '7d', '30d', '90d'] as const;
export type SpendRange = (typeof SPEND_RANGES)[number];

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;
/** The longest explicit window: a year and a day, so a leap year fits. */
const MAX_WINDOW_MS = 366 * DAY_MS;

const RANGE_MS: Record<SpendRange, number> = {
  '24h': DAY_MS,
  '7d': 7 * DAY_MS,
  '30d': 30 * DAY_MS,
  '90d': 90 * DAY_MS,
};

export interface SpendWindow {
  /** Inclusive. */
  from: Date;
  /** Exclusive. */
  to: Date;
}

/** How a window is read: whole days from 'd' rows, the hours at its ends from 'h' rows, the rest raw. */
export interface WindowParts {
  /** Daily buckets b with daysFrom <= b < daysTo (none when daysFrom >= daysTo). */
  days: { from: Date; to: Date } | null;
  /** Hourly buckets in these half-open intervals (none, one or two). */
  hours: Array<{ from: Date; to: Date }>;
  /** Raw cost rows in these half-open intervals (none, one or two). */
  raw: Array<{ from: Date; to: Date }>;
}

export interface WindowInput {
  range?: SpendRange;
  from?: string;
  to?: string;
}

/** The window a query asks for: from/to when given (to defaults to now), else the range (default 30d). */
export function windowOf(input: WindowInput, nowMs: number, defaultRange: SpendRange = '30d'): SpendWindow {
  if (input.from === undefined && input.to === undefined) {
    const ms = RANGE_MS[input.range ?? defaultRange];
    return { from: new Date(nowMs - ms), to: new Date(nowMs) };
  }
  if (input.range !== undefined) throw new GatewayError('invalid_request_error', 'range: give either range or from/to');
  const to = input.to === undefined ? nowMs : parseTime('to', input.to);
  const from = input.from === undefined ? to - RANGE_MS[defaultRange] : parseTime('from', input.from);
  if (from >= to) throw new GatewayError('invalid_request_error', 'from: must be before to');
  if (to - from > MAX_WINDOW_MS)
    throw new GatewayError('invalid_request_error', 'from: a window spans at most 366 days');
  return { from: new Date(from), to: new Date(to) };
}

function parseTime(field: string, value: string): number {
  const ms = Date.parse(value);
  if (!Number.isFinite(ms))
    throw new GatewayError(
      'invalid_request_error',
      `${field}: not a date-time (use ISO 8601, e.g. 2026-11-01T00:00:00Z)`,
    );
  return ms;
}

/** The window of equal length just before `w`. */
export function previousOf(w: SpendWindow): SpendWindow {
  const len = w.to.getTime() - w.from.getTime();
  return { from: new Date(w.from.getTime() - len), to: w.from };
}

const span = (from: number, to: number) => ({ from: new Date(from), to: new Date(to) });

export function partsOf(w: SpendWindow): WindowParts {
  const from = w.from.getTime();
  const to = w.to.getTime();
  const h1 = Math.ceil(from / HOUR_MS) * HOUR_MS;
  const h2 = Math.floor(to / HOUR_MS) * HOUR_MS;
  // Within one hour, or across a single boundary: raw rows only (at most two hours of them).
  if (h1 >= h2) return { days: null, hours: [], raw: [span(from, to)] };
  const raw: WindowParts['raw'] = [];
  if (from < h1) raw.push(span(from, h1));
  if (h2 < to) raw.push(span(h2, to));
  const d1 = Math.ceil(h1 / DAY_MS) * DAY_MS;
  const d2 = Math.floor(h2 / DAY_MS) * DAY_MS;
  if (d1 >= d2) return { days: null, hours: [span(h1, h2)], raw };
  const hours: WindowParts['hours'] = [];
  if (h1 < d1) hours.push(span(h1, d1));
  if (d2 < h2) hours.push(span(d2, h2));
  return { days: span(d1, d2), hours, raw };
}
