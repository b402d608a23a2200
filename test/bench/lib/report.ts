import Table from 'cli-table3';

// Plain-text report: one table of figures with the target and PASS/MISS next to each.

export interface Row {
  metric: string;
  direct?: string;
  bare?: string;
  gateway?: string;
  /** gateway - direct */
  added?: string;
  /** gateway - bare proxy */
  own?: string;
  target?: string;
  /** PASS / MISS for targets, OK / FAIL for checks, empty for information only. */
  result?: string;
}

export function renderTable(rows: Array<Row | string>): string {
  const table = new Table({
    head: ['Metric', 'Direct', 'Bare proxy', 'Gateway', 'Added', 'Own', 'Target', 'Result'],
    style: { head: [], border: [], compact: true },
    colAligns: ['left', 'right', 'right', 'right', 'right', 'right', 'left', 'left'],
  });
  for (const r of rows) {
    if (typeof r === 'string') {
      table.push([{ colSpan: 8, content: r }]);
      continue;
    }
    table.push([
      r.metric,
      r.direct ?? '',
      r.bare ?? '',
      r.gateway ?? '',
      r.added ?? '',
      r.own ?? '',
      r.target ?? '',
      r.result ?? '',
    ]);
  }
  return table.toString();
}

export const verdict = (ok: boolean): string => (ok ? 'PASS' : 'MISS');
export const check = (ok: boolean): string => (ok ? 'OK' : 'FAIL');

export function ms(v: number, digits = 3): string {
  return Number.isFinite(v) ? `${v.toFixed(digits)} ms` : 'n/a';
}

export function signedMs(v: number, digits = 3): string {
  return Number.isFinite(v) ? `${v >= 0 ? '+' : ''}${v.toFixed(digits)} ms` : 'n/a';
}

export function int(v: number): string {
  return Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : 'n/a';
}

export function mb(v: number): string {
  return Number.isFinite(v) ? `${v.toFixed(1)} MB` : 'n/a';
}

export function signedMb(v: number): string {
  return Number.isFinite(v) ? `${v >= 0 ? '+' : ''}${v.toFixed(1)} MB` : 'n/a';
}

export function pct(v: number): string {
  return Number.isFinite(v) ? `${(v * 100).toFixed(0)}%` : 'n/a';
}
