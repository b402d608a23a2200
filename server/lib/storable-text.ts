// Text PostgreSQL can store. Its text and jsonb types cannot hold U+0000, and a lone UTF-16
// surrogate (`"\ud800"` in JSON, valid JSON but no Unicode character) cannot be encoded as UTF-8 at
// all: such a string would reach the database only to be refused there (or, re-encoded on the way,
// be stored as U+FFFD, silently altered). Input is checked once, before any schema runs, so the
// caller gets a 400 naming the field instead.

/** Where the first unstorable string is, and why; undefined when every string can be stored. */
export interface UnstorableText {
  /** Dotted path of the string or field name ('' for the input itself). */
  path: string;
  problem: 'nul' | 'lone-surrogate';
}

/** Every string (and field name) of a parsed JSON value, checked. Iterative: input depth is the client's choice. */
export function findUnstorableText(input: unknown): UnstorableText | undefined {
  const pending: Array<[unknown, string]> = [[input, '']];
  for (let entry = pending.pop(); entry; entry = pending.pop()) {
    const [value, path] = entry;
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) return { path, problem };
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) pending.push([value[i], join(path, String(i))]);
    } else if (isPlainObject(value)) {
      for (const [key, child] of Object.entries(value)) {
        const problem = textProblem(key);
        if (problem) return { path: join(path, JSON.stringify(key).slice(1, -1)), problem };
        pending.push([child, join(path, key)]);
      }
    }
  }
  return undefined;
}

/** The 400 message for an unstorable string. */
export function unstorableTextMessage(found: UnstorableText): string {
  const field = found.path || 'input';
  return found.problem === 'nul'
    ? `${field}: must not contain NUL characters (\\u0000)`
    : `${field}: must be valid Unicode text (a lone surrogate such as \\ud800 is not a character)`;
}

/** `text` with NUL removed and lone surrogates replaced by U+FFFD: for text that must be stored whatever it holds. */
export function toStorableText(text: string): string {
  const clean = text.isWellFormed() ? text : text.toWellFormed();
  return clean.includes('\0') ? clean.replaceAll('\0', '') : clean;
}

function textProblem(text: string): UnstorableText['problem'] | undefined {
  if (text.includes('\0')) return 'nul';
  return text.isWellFormed() ? undefined : 'lone-surrogate';
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
