// The UTC month of a time, as YYYY-MM. Spend limits, budgets and the free quota ask it on every
// call: the month last computed is kept with its bounds, so the string is built once a month
// rather than by a Date and an ISO string per call.

let last = { from: 0, to: 0, label: '' };

export function utcMonth(ms: number = Date.now()): string {
  if (ms >= last.from && ms < last.to) return last.label;
  const d = new Date(ms);
  const from = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  const to = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  last = { from, to, label: d.toISOString().slice(0, 7) };
  return last.label;
}

/** The first instant of the UTC month holding `d`. */
export function utcMonthStart(d: Date): Date {
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
}
