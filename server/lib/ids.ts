import { randomBytes } from 'node:crypto';

// Prefixed, readable ids (req_..., tok_..., abt_...). 16 random bytes of base62-ish entropy via
// base64url with the two symbol characters removed keeps them URL- and shell-safe.
const POOL_SIZE = 4096;
let pool = randomBytes(POOL_SIZE);
let offset = 0;

// A pooled random source: the request id is made on every chat call, so avoid one syscall each.
function nextBytes(n: number): Buffer {
  if (offset + n > POOL_SIZE) {
    pool = randomBytes(POOL_SIZE);
    offset = 0;
  }
  const out = pool.subarray(offset, offset + n);
  offset += n;
  return out;
}

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

export function randomId(length = 20): string {
  const bytes = nextBytes(length);
  let out = '';
  // 256 % 62 bias is negligible for identifiers.
  for (let i = 0; i < length; i++) out += ALPHABET[bytes[i]! % 62];
  return out;
}

export type IdPrefix = 'req' | 'tok' | 'ten' | 'aud' | 'abt' | 'fb' | 'ds' | 'run' | 'usr' | 'chatcmpl' | 'evt';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomId()}`;
}
