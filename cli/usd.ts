// Every USD amount gatewayctl prints (costs, spend, limits, list prices) goes through usd(), so the
// same amount reads the same in every command. Amounts span many orders of magnitude: an
// embeddings call costs a few hundred-millionths of a dollar, a month's spend thousands. So an
// amount is always in plain decimals (never 4.00e-8), with four significant digits for the smallest,
// at least four decimals (a hundredth of a cent: the finest spend limit the gateway takes) and at
// most eight; trailing zeros are trimmed down to whole cents.

const SIGNIFICANT_DIGITS = 4;
const MIN_DECIMALS = 4;
const MAX_DECIMALS = 8;
const CENTS = 2;
const SMALLEST = 10 ** -MAX_DECIMALS;

/** "$0.00", "$0.00000004", "$0.0000165", "$0.075", "$2.50", "$12.3456", "$1,234.5679". */
export function usd(value: number | string): string {
  const v = Number(value);
  if (!Number.isFinite(v)) return '-';
  if (v === 0) return '$0.00';
  const sign = v < 0 ? '-' : '';
  const abs = Math.abs(v);
  // A real amount that would round to zero must not read as free.
  if (abs < SMALLEST / 2) return `${sign}<$${SMALLEST.toFixed(MAX_DECIMALS)}`;
  const magnitude = Math.floor(Math.log10(abs));
  const decimals = Math.min(MAX_DECIMALS, Math.max(MIN_DECIMALS, SIGNIFICANT_DIGITS - 1 - magnitude));
  const [whole = '0', fraction = ''] = abs.toFixed(decimals).split('.');
  const shown = fraction.replace(/0+$/, '').padEnd(CENTS, '0');
  return `${sign}$${Number(whole).toLocaleString('en-US')}.${shown}`;
}
