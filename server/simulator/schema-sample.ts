// Produces a small value that conforms to a JSON schema, for json_schema replies and tool-call
// arguments. Covers what providers accept in practice: OpenAPI-style uppercase Gemini types,
// enums/const, anyOf/oneOf/allOf, local $refs, nullable, numeric bounds and min sizes.
type Schema = Record<string, unknown>;

const MAX_DEPTH = 8;

export function sampleSchema(schema: unknown): unknown {
  const root = isObj(schema) ? schema : {};
  return sample(root, root, '', 0);
}

function sample(s: Schema, root: Schema, key: string, depth: number): unknown {
  if (depth > MAX_DEPTH) return null;
  if (typeof s.$ref === 'string') {
    const target = resolveRef(root, s.$ref);
    return target ? sample(target, root, key, depth + 1) : null;
  }
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  if ('default' in s && s.default !== undefined) return s.default;
  for (const k of ['anyOf', 'oneOf'] as const) {
    const alts = s[k];
    if (Array.isArray(alts) && alts.length > 0) {
      // Prefer a non-null alternative: a null is valid but tells the caller nothing.
      const pick = alts.find((a) => isObj(a) && typeOf(a) !== 'null') ?? alts[0];
      return sample(isObj(pick) ? pick : {}, root, key, depth + 1);
    }
  }
  if (Array.isArray(s.allOf) && s.allOf.length > 0) {
    const merged: Schema = {};
    const props: Schema = {};
    for (const part of s.allOf) {
      if (!isObj(part)) continue;
      const p = typeof part.$ref === 'string' ? (resolveRef(root, part.$ref) ?? {}) : part;
      Object.assign(merged, p);
      if (isObj(p.properties)) Object.assign(props, p.properties);
    }
    delete merged.allOf;
    if (Object.keys(props).length > 0) merged.properties = props;
    return sample(merged, root, key, depth + 1);
  }

  switch (typeOf(s)) {
    case 'object': {
      const out: Record<string, unknown> = {};
      const props = isObj(s.properties) ? s.properties : {};
      // Every property, not only the required ones: strict-mode schemas require all of them and
      // a fuller object exercises more of the caller's parsing.
      for (const [name, sub] of Object.entries(props)) out[name] = sample(isObj(sub) ? sub : {}, root, name, depth + 1);
      return out;
    }
    case 'array': {
      const item = isObj(s.items) ? s.items : {};
      const n = Math.max(1, num(s.minItems) ?? 1);
      const arr: unknown[] = [];
      for (let i = 0; i < n && i < 16; i++) arr.push(sample(item, root, key, depth + 1));
      return arr;
    }
    case 'integer':
      return Math.ceil(numberIn(s, 1));
    case 'number':
      return numberIn(s, 1.5);
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return stringFor(s, key);
  }
}

function typeOf(s: Schema): string {
  let t = s.type;
  if (Array.isArray(t)) t = t.find((x) => typeof x === 'string' && x.toLowerCase() !== 'null') ?? t[0];
  if (typeof t === 'string') return t.toLowerCase();
  if (isObj(s.properties)) return 'object';
  if (s.items !== undefined) return 'array';
  return 'string';
}

function numberIn(s: Schema, fallback: number): number {
  const min = num(s.minimum) ?? (num(s.exclusiveMinimum) !== undefined ? num(s.exclusiveMinimum)! + 1 : undefined);
  const max = num(s.maximum) ?? (num(s.exclusiveMaximum) !== undefined ? num(s.exclusiveMaximum)! - 1 : undefined);
  let v = min ?? fallback;
  if (max !== undefined && v > max) v = max;
  return v;
}

function stringFor(s: Schema, key: string): string {
  switch (s.format) {
    case 'date-time':
      return '2025-01-01T00:00:00Z';
    case 'date':
      return '2025-01-01';
    case 'time':
      return '00:00:00';
    case 'email':
      return 'user@example.com';
    case 'uri':
    case 'url':
      return 'https://example.com';
    case 'uuid':
      return '00000000-0000-4000-8000-000000000000';
  }
  let v = key ? `sample ${key}` : 'sample';
  const minLength = num(s.minLength);
  if (minLength !== undefined && v.length < minLength) v = v.padEnd(minLength, 'x');
  const maxLength = num(s.maxLength);
  if (maxLength !== undefined && v.length > maxLength) v = v.slice(0, maxLength);
  return v;
}

function resolveRef(root: Schema, ref: string): Schema | undefined {
  if (!ref.startsWith('#')) return undefined;
  let cur: unknown = root;
  for (const raw of ref.slice(1).split('/')) {
    if (raw === '') continue;
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    cur = isObj(cur) ? cur[part] : undefined;
  }
  return isObj(cur) ? cur : undefined;
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function isObj(v: unknown): v is Schema {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
