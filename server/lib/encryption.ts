import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { GatewayError } from './errors.js';

// Secrets the gateway must give back (provider keys it calls providers with) are stored encrypted
// with AES-256-GCM. Every row names the key it was sealed under, so the key can be rotated: the new
// key seals, the old ones still open, and a command re-seals old rows under the new one.

const IV_BYTES = 12;
const TAG_BYTES = 16;
const FORMAT = 'v1';

export interface SealedSecret {
  /** `v1.<iv>.<tag>.<ciphertext>`, base64url parts. */
  ciphertext: string;
  keyId: string;
}

export class Keyring {
  private readonly keys: Map<string, Buffer>;

  /** `current` seals; every key of `all` (current included) opens what was sealed under its id. */
  constructor(
    readonly currentId: string,
    all: ReadonlyMap<string, Buffer>,
  ) {
    this.keys = new Map(all);
    if (!this.keys.has(currentId)) throw new Error(`encryption key ${currentId} is not in the keyring`);
    for (const [id, key] of this.keys)
      if (key.length !== 32) throw new Error(`encryption key ${id} must be 32 bytes (AES-256)`);
  }

  /**
   * Seals `plaintext` under the current key. `context` (the row's tenant and purpose) is bound as
   * additional data: a ciphertext copied to another row or workspace does not open there.
   */
  seal(plaintext: string, context: string): SealedSecret {
    const key = this.keys.get(this.currentId)!;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return {
      ciphertext: [FORMAT, iv.toString('base64url'), tag.toString('base64url'), body.toString('base64url')].join('.'),
      keyId: this.currentId,
    };
  }

  /** Opens a sealed secret; throws (without the secret in the message) when the key is unknown or it was altered. */
  open(sealed: SealedSecret, context: string): string {
    const key = this.keys.get(sealed.keyId);
    if (!key) throw new Error(`encryption key ${sealed.keyId} is not configured`);
    const [format, iv, tag, body] = sealed.ciphertext.split('.');
    if (format !== FORMAT || !iv || !tag || body === undefined) throw new Error('sealed secret is malformed');
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    try {
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new Error(`sealed secret does not open under key ${sealed.keyId}`);
    }
  }

  /** Whether a row sealed under `keyId` should be re-sealed (rotation). */
  isStale(keyId: string): boolean {
    return keyId !== this.currentId;
  }
}

/** A 32-byte key from base64 (44 characters) or hex (64 characters). */
export function parseKeyMaterial(text: string): Buffer {
  const t = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(t) ? Buffer.from(t, 'hex') : Buffer.from(t, 'base64');
  if (key.length !== 32) throw new Error('an encryption key must be 32 bytes, as base64 or 64 hex digits');
  return key;
}

export function generateKeyMaterial(): string {
  return randomBytes(32).toString('base64');
}

/** What a listing shows of a secret: its last 4 characters. */
export function maskSecret(secret: string): string {
  return `…${secret.slice(-4)}`;
}

/** The keyring, or a typed 400 saying that storing a key needs one. */
export function requireKeyring(keyring: Keyring | null): Keyring {
  if (!keyring)
    throw new GatewayError(
      'invalid_request_error',
      'Storing provider keys needs GATEWAY_ENCRYPTION_KEY to be set on the gateway (32 bytes, base64)',
    );
  return keyring;
}

/**
 * Key rotation over one table's rows: every row sealed under an earlier key is opened and sealed
 * again under the current one, and written by `write` (which answers whether the row was still as
 * read). A row that does not open with any configured key is counted as failed and left as it is.
 */
export async function resealAll<Row>(
  rows: Row[],
  keyring: Keyring,
  sealedOf: (row: Row) => { sealed: SealedSecret; context: string } | null,
  write: (row: Row, next: SealedSecret) => Promise<boolean>,
): Promise<{ resealed: number; failed: number }> {
  let resealed = 0;
  let failed = 0;
  for (const row of rows) {
    const stored = sealedOf(row);
    if (!stored || !keyring.isStale(stored.sealed.keyId)) continue;
    let plain: string;
    try {
      plain = keyring.open(stored.sealed, stored.context);
    } catch {
      failed++;
      continue;
    }
    if (await write(row, keyring.seal(plain, stored.context))) resealed++;
  }
  return { resealed, failed };
}
