// The month-end projection of /v1/spend/trajectory: month to date plus the mean daily spend of the
// last (up to) seven whole days times the days left, with a ~95% band from the spread of those days
// (the daily spend taken as independent draws: the sum over n days has sd x sqrt(n)).

export interface Projection {
  method: string;
  projectedMonthUsd: number;
  lowUsd: number;
  highUsd: number;
  daysElapsed: number;
  daysRemaining: number;
}

const WINDOW_DAYS = 7;
const round = (v: number) => Math.round(v * 1e6) / 1e6;

/** `daily`: spend of each day of the month so far, the last one (today) partial. */
export function projectMonth(daily: number[], daysElapsed: number, daysRemaining: number): Projection {
  const monthToDate = daily.reduce((s, v) => s + v, 0);
  // Whole days only: today is partial and would pull the rate down. On the first day, today's
  // rate so far is all there is.
  const whole = daily.slice(0, -1).slice(-WINDOW_DAYS);
  let rate: number;
  let spread = 0;
  let method: string;
  if (whole.length > 0) {
    rate = whole.reduce((s, v) => s + v, 0) / whole.length;
    if (whole.length > 1) {
      const variance = whole.reduce((s, v) => s + (v - rate) ** 2, 0) / (whole.length - 1);
      spread = 1.96 * Math.sqrt(variance) * Math.sqrt(daysRemaining);
    }
    method = `month to date + mean daily spend of the last ${whole.length} whole day(s) x ${round(daysRemaining)} day(s) left; band: +/-1.96 x sd of those days x sqrt(days left)`;
  } else {
    rate = daysElapsed > 0 ? monthToDate / daysElapsed : 0;
    method = `month to date + today's spend rate so far x ${round(daysRemaining)} day(s) left (no whole day yet: no band)`;
  }
  const projected = monthToDate + rate * daysRemaining;
  return {
    method,
    projectedMonthUsd: round(projected),
    lowUsd: round(Math.max(monthToDate, projected - spread)),
    highUsd: round(projected + spread),
    daysElapsed: round(daysElapsed),
    daysRemaining: round(daysRemaining),
  };
}
