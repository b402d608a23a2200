import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config.js';
import { generateKeyMaterial, Keyring, parseKeyMaterial } from '../../lib/encryption.js';

// The keyring that seals stored provider keys, from the configuration: GATEWAY_ENCRYPTION_KEY
// (under GATEWAY_ENCRYPTION_KEY_ID) seals, GATEWAY_ENCRYPTION_PREVIOUS_KEYS still open older rows.
// A single-mode gateway started without a key makes one in its data directory on first need, as it
// makes its admin token: a self-hosted start needs no setting. Several nodes, or multi mode, need
// the same key set on every node.

const KEY_FILE = 'encryption.key';

export function keyringFromConfig(config: Config): Keyring | null {
  const all = new Map<string, Buffer>();
  for (const entry of (config.GATEWAY_ENCRYPTION_PREVIOUS_KEYS ?? '').split(',')) {
    const t = entry.trim();
    if (!t) continue;
    const colon = t.indexOf(':');
    if (colon <= 0) throw new Error('GATEWAY_ENCRYPTION_PREVIOUS_KEYS: expected id:key entries, comma-separated');
    all.set(t.slice(0, colon), parseKeyMaterial(t.slice(colon + 1)));
  }
  let current = config.GATEWAY_ENCRYPTION_KEY;
  if (!current && config.GATEWAY_MODE === 'single') current = dataDirKey(config.GATEWAY_DATA_DIR);
  if (!current) return null;
  all.set(config.GATEWAY_ENCRYPTION_KEY_ID, parseKeyMaterial(current));
  return new Keyring(config.GATEWAY_ENCRYPTION_KEY_ID, all);
}

function dataDirKey(dir: string): string {
  const file = path.join(dir, KEY_FILE);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dir, { recursive: true });
  const key = generateKeyMaterial();
  try {
    writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    // Another process made it first: theirs is the key.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(file, 'utf8').trim();
    throw err;
  }
  return key;
}
