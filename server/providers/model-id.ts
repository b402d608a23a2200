// Model-id matching shared by the pricing and capability tables. Callers pass ids as users and
// providers spell them: `provider/model`, dated snapshots (`gpt-4o-2024-08-06`,
// `claude-sonnet-4-5-20250929`), `-latest` aliases, OpenRouter's dotted versions
// (`anthropic/claude-sonnet-4.5`), and mixed case (Together's `meta-llama/Llama-3.3-...`).

/** Builds a case-insensitive lookup table. */
export function modelTable<T>(entries: Record<string, T>): Map<string, T> {
  const m = new Map<string, T>();
  for (const [k, v] of Object.entries(entries)) m.set(k.toLowerCase(), v);
  return m;
}

const DATED = /-(\d{4}-\d{2}-\d{2}|\d{8}|\d{4}|\d{3})$/;

function variants(id: string): string[] {
  const out = [id];
  const undated = id.replace(DATED, '');
  if (undated !== id) out.push(undated, `${undated}-latest`);
  if (id.endsWith('-latest')) out.push(id.slice(0, -7));
  return out;
}

/**
 * Finds a model's entry: exact id first, then without a dated or `-latest` suffix, then with leading
 * `provider/` segments removed one at a time, then with dots in versions read as dashes.
 */
export function lookupModel<T>(table: Map<string, T>, model: string, provider?: string): T | undefined {
  // The tables are static and the request path asks about the same few ids again and again
  // (pricing, tiers, capabilities per candidate), so answers are memoised per table.
  let memo = MEMO.get(table) as Map<string, { v: T | undefined }> | undefined;
  if (!memo) MEMO.set(table, (memo = new Map()));
  const key = provider ? `${provider}\0${model}` : model;
  const cached = memo.get(key);
  if (cached) return cached.v;
  if (memo.size >= MEMO_LIMIT) memo.clear();
  const v = lookupUncached(table, model, provider);
  memo.set(key, { v });
  return v;
}

const MEMO = new WeakMap<Map<string, unknown>, Map<string, { v: unknown }>>();
const MEMO_LIMIT = 10_000;

function lookupUncached<T>(table: Map<string, T>, model: string, provider?: string): T | undefined {
  const id = model.trim().toLowerCase();
  if (provider) {
    const hit = scan(table, `${provider.toLowerCase()}/${id}`);
    if (hit !== undefined) return hit;
  }
  let rest = id;
  for (;;) {
    const hit = scan(table, rest);
    if (hit !== undefined) return hit;
    const slash = rest.indexOf('/');
    if (slash < 0) break;
    rest = rest.slice(slash + 1);
  }
  if (rest.includes('.')) return scan(table, rest.replace(/(\d)\.(\d)/g, '$1-$2'));
  return undefined;
}

function scan<T>(table: Map<string, T>, id: string): T | undefined {
  for (const v of variants(id)) {
    const hit = table.get(v);
    if (hit !== undefined) return hit;
  }
  return undefined;
}

/** First `provider/` segment of an id, if any. */
export function providerPrefix(model: string): string | undefined {
  const slash = model.indexOf('/');
  return slash > 0 ? model.slice(0, slash).toLowerCase() : undefined;
}
