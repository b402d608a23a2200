import { pathToFileURL } from 'node:url';
import { loadConfig, type Config } from './config.js';
import type { Database } from './db/client.js';
import { setupDatabase } from './db/setup.js';
import { resealCustomProviderKeys } from './modules/custom-providers/service.js';
import { keyringFromConfig } from './modules/provider-keys/keyring-config.js';
import { resealProviderKeys } from './modules/provider-keys/service.js';

// `npm run rotate-keys`: after GATEWAY_ENCRYPTION_KEY is replaced (the old one moved to
// GATEWAY_ENCRYPTION_PREVIOUS_KEYS under its id), every stored key sealed under an old one is sealed
// again under the current one. Running gateways hear each change and reload the workspace; once it
// reports nothing left, the old key can leave the configuration.

export interface RotationReport {
  keyId: string;
  providerKeys: { resealed: number; failed: number };
  customProviders: { resealed: number; failed: number };
}

export async function rotateKeys(config: Config, db: Database): Promise<RotationReport> {
  const keyring = keyringFromConfig(config);
  if (!keyring) throw new Error('GATEWAY_ENCRYPTION_KEY is not set: there is no key to rotate to');
  return {
    keyId: keyring.currentId,
    providerKeys: await resealProviderKeys(db, keyring),
    customProviders: await resealCustomProviderKeys(db, keyring),
  };
}

async function main(): Promise<void> {
  const config = loadConfig();
  const database = await setupDatabase(config);
  try {
    const report = await rotateKeys(config, database.handle.db);
    const failed = report.providerKeys.failed + report.customProviders.failed;
    console.log(
      `Sealed under ${report.keyId}: ${report.providerKeys.resealed} provider keys, ${report.customProviders.resealed} custom provider keys re-sealed` +
        (failed ? `; ${failed} could not be opened with any configured key` : ''),
    );
    if (failed) process.exitCode = 1;
  } finally {
    await database.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    console.error((err as Error).message);
    process.exit(1);
  });
}
