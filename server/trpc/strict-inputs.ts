import type { AnyRouter } from '@trpc/server';

// trpc-to-openapi turns on coercion (`_def.coerce = true`) for every number, boolean and date in a
// REST input schema, bodies included, and it mutates the shared schema, so the tRPC side would
// coerce too: `{"enabled": "yes"}` would become `true`. We lock `coerce` on every schema that did
// not ask for it, so bodies are validated strictly. Query parameters that need it declare it
// explicitly (z.coerce.number(), z.stringbool()).

const COERCIBLE = new Set(['number', 'boolean', 'bigint', 'date']);
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'nonoptional', 'catch']);

interface ZodLike {
  _zod?: { def: Record<string, unknown> & { type?: string } };
}

function lock(schema: ZodLike, seen: Set<unknown>): void {
  const def = schema?._zod?.def;
  if (!def || seen.has(def)) return;
  seen.add(def);
  const type = def.type ?? '';
  if (COERCIBLE.has(type)) {
    if (!def.coerce)
      Object.defineProperty(def, 'coerce', { get: () => false, set: () => undefined, configurable: false });
    return;
  }
  if (WRAPPERS.has(type)) return lock(def.innerType as ZodLike, seen);
  if (type === 'object') for (const s of Object.values((def.shape ?? {}) as Record<string, ZodLike>)) lock(s, seen);
  if (type === 'array') lock(def.element as ZodLike, seen);
  if (type === 'union') for (const s of (def.options ?? []) as ZodLike[]) lock(s, seen);
  if (type === 'pipe') lock(def.in as ZodLike, seen);
}

export function lockInputCoercion(router: AnyRouter): void {
  const seen = new Set<unknown>();
  for (const procedure of Object.values(router._def.procedures) as Array<{ _def: { inputs?: ZodLike[] } }>) {
    for (const input of procedure._def.inputs ?? []) lock(input, seen);
  }
}
