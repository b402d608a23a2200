import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Keyring, parseKeyMaterial } from '../../server/lib/encryption.js';

// AES-256-GCM sealing of stored provider keys: round trip, binding to its row, tampering, rotation.

const k1 = randomBytes(32);
const k2 = randomBytes(32);

describe('Keyring', () => {
  it('seals and opens, with a fresh nonce each time', () => {
    const ring = new Keyring('k1', new Map([['k1', k1]]));
    const a = ring.seal('sk-secret', 'ctx');
    const b = ring.seal('sk-secret', 'ctx');
    expect(a.ciphertext).not.toBe(b.ciphertext);
    expect(a.ciphertext).not.toContain('sk-secret');
    expect(ring.open(a, 'ctx')).toBe('sk-secret');
  });

  it('does not open under another context, after tampering, or without its key', () => {
    const ring = new Keyring('k1', new Map([['k1', k1]]));
    const sealed = ring.seal('sk-secret', 'provider_key:ten_a:openai');
    expect(() => ring.open(sealed, 'provider_key:ten_b:openai')).toThrow(/does not open/);
    const parts = sealed.ciphertext.split('.');
    const body = Buffer.from(parts[3]!, 'base64url');
    body[0]! ^= 1;
    parts[3] = body.toString('base64url');
    expect(() => ring.open({ ...sealed, ciphertext: parts.join('.') }, 'provider_key:ten_a:openai')).toThrow();
    expect(() => ring.open({ ...sealed, keyId: 'k9' }, 'provider_key:ten_a:openai')).toThrow(/not configured/);
  });

  it('opens old rows with a previous key while sealing with the current one', () => {
    const old = new Keyring('k1', new Map([['k1', k1]])).seal('sk-old', 'c');
    const ring = new Keyring(
      'k2',
      new Map([
        ['k1', k1],
        ['k2', k2],
      ]),
    );
    expect(ring.open(old, 'c')).toBe('sk-old');
    expect(ring.isStale(old.keyId)).toBe(true);
    expect(ring.seal('x', 'c').keyId).toBe('k2');
  });

  it('takes keys as base64 or hex, 32 bytes only', () => {
    expect(parseKeyMaterial(k1.toString('base64'))).toEqual(k1);
    expect(parseKeyMaterial(k1.toString('hex'))).toEqual(k1);
    expect(() => parseKeyMaterial('c2hvcnQ=')).toThrow(/32 bytes/);
  });
});
