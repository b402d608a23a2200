import type { SpendRow } from './repository.js';

// Week-over-week change split into volume and price-or-mix, so that the two parts add up to the
// change exactly: volume = (calls now - calls before) x cost per call before; price or mix = calls
// now x (cost per call now - before). A key new this week is all volume; one gone is all volume too.

export interface DriftItem {
  key: string;
  spendUsd: number;
  previousSpendUsd: number;
  changeUsd: number;
  calls: number;
  previousCalls: number;
  volumeUsd: number;
  priceOrMixUsd: number;
}

const round = (v: number) => Math.round(v * 1e12) / 1e12;

export function driftOf(now: SpendRow[], before: SpendRow[], keyOf: (r: SpendRow) => string): DriftItem[] {
  const cur = new Map(now.map((r) => [keyOf(r), r]));
  const prev = new Map(before.map((r) => [keyOf(r), r]));
  const keys = new Set([...cur.keys(), ...prev.keys()]);
  const items: DriftItem[] = [];
  for (const key of keys) {
    const n = cur.get(key);
    const p = prev.get(key);
    const spend = n?.cost ?? 0;
    const was = p?.cost ?? 0;
    const calls = n?.calls ?? 0;
    const previousCalls = p?.calls ?? 0;
    const change = spend - was;
    let volume: number;
    if (previousCalls === 0) volume = change;
    else volume = (calls - previousCalls) * (was / previousCalls);
    items.push({
      key,
      spendUsd: round(spend),
      previousSpendUsd: round(was),
      changeUsd: round(change),
      calls,
      previousCalls,
      volumeUsd: round(volume),
      priceOrMixUsd: round(change - volume),
    });
  }
  return items.sort((a, b) => Math.abs(b.changeUsd) - Math.abs(a.changeUsd) || a.key.localeCompare(b.key));
}
