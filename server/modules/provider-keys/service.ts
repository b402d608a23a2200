import type { z } from 'zod';
import type { Dispatcher } from 'undici';
import type { Database } from '../../db/client.js';
import type { WorkspaceKey } from '../../gateway/workspace-providers.js';
import { maskSecret, requireKeyring, resealAll, type Keyring } from '../../lib/encryption.js';
import { GatewayError, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { Logger } from '../../lib/logger.js';
import { providerDefinition } from '../../providers/catalog.js';
import { createAdapter } from '../../providers/factory.js';
import { ProviderError, type ProviderSettings } from '../../providers/types.js';
import { checkProviderUrl } from '../../providers/url-guard.js';
import type { ActorRef, AuditService } from '../audit/service.js';
import { providerKeysRepository, type ProviderKeyRow } from './repository.js';
import type { CreateProviderKeyInput, DeletedProviderKey, ProviderKey, ProviderKeyList } from './schemas.js';

// A workspace's own keys for built-in providers. Stored sealed (AES-256-GCM, the row's tenant and
// provider bound in), listed masked, never logged or audited in the clear: an audit row carries the
// provider, the masked key and the key id only. The data plane holds the opened keys in memory
// (gateway/workspace-providers.ts) and hears every change on its channel.

const VERIFY_TIMEOUT_MS = 10_000;

/** What a sealed provider key is bound to: a ciphertext moved to another row does not open. */
export const providerKeyContext = (tenantId: string, provider: string) => `provider_key:${tenantId}:${provider}`;

export interface ProviderKeyServiceDeps {
  db: Database;
  audit: AuditService;
  logger: Logger;
  /** Null when no encryption key is configured: keys cannot be stored (400 on create). */
  keyring: Keyring | null;
  allowPrivateUrls: boolean;
  /** The pool that refuses private addresses at connect time, for a base URL the workspace gives. */
  guardedDispatcher: () => Dispatcher | undefined;
  /** The deployment's address for a built-in provider (to check a key given without one). */
  deploymentBaseUrl: (provider: string) => string | undefined;
  /** Applies a workspace's change on this node before the answer (the others hear the NOTIFY). */
  applied: (tenantId: string) => Promise<void>;
}

function toDto(r: ProviderKeyRow): z.infer<typeof ProviderKey> {
  return {
    id: r.id,
    provider: r.provider,
    baseUrl: r.baseUrl,
    maskedKey: `…${r.last4}`,
    keyId: r.keyId,
    verified: r.verified,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

/** What the audit log keeps of a key: never the key. */
function auditView(r: ProviderKeyRow) {
  return { provider: r.provider, baseUrl: r.baseUrl, maskedKey: `…${r.last4}`, keyId: r.keyId, verified: r.verified };
}

export class ProviderKeyService {
  constructor(private readonly d: ProviderKeyServiceDeps) {}

  async list(tenantId: string): Promise<z.infer<typeof ProviderKeyList>> {
    return { items: (await providerKeysRepository.list(this.d.db, tenantId)).map(toDto) };
  }

  async create(
    tenantId: string,
    actor: ActorRef,
    input: z.infer<typeof CreateProviderKeyInput>,
  ): Promise<z.infer<typeof ProviderKey>> {
    const keyring = this.requireKeyring();
    const def = providerDefinition(input.provider);
    if (!def || def.local || !def.apiKeyEnv)
      throw new GatewayError(
        'invalid_request_error',
        `provider: '${input.provider}' is not a built-in provider that takes a key (custom providers: POST /v1/admin/providers)`,
      );
    const baseUrl = input.baseUrl ? input.baseUrl.replace(/\/+$/, '') : null;
    if (baseUrl) await checkProviderUrl(baseUrl, this.d.allowPrivateUrls);
    const verified = await this.verify(
      {
        name: def.name,
        family: def.family,
        baseUrl: baseUrl ?? this.d.deploymentBaseUrl(def.name) ?? def.defaultBaseUrl,
        apiKey: input.key,
        builtinModels: [],
      },
      baseUrl !== null,
    );
    const sealed = keyring.seal(input.key, providerKeyContext(tenantId, def.name));
    const saved = await this.d.db.transaction(async (tx) => {
      const before = await providerKeysRepository.findByProvider(tx, tenantId, def.name);
      const row = await providerKeysRepository.upsert(tx, tenantId, {
        id: before?.id ?? newId('pk'),
        provider: def.name,
        baseUrl,
        ciphertext: sealed.ciphertext,
        keyId: sealed.keyId,
        last4: input.key.slice(-4),
        verified,
      });
      await this.d.audit.record(tx, {
        tenantId,
        actor,
        action: before ? 'provider_key.replace' : 'provider_key.create',
        targetType: 'provider_key',
        targetId: row.id,
        before: before ? auditView(before) : null,
        after: auditView(row),
      });
      await providerKeysRepository.announceChange(tx, tenantId);
      return row;
    });
    await this.d.applied(tenantId);
    return toDto(saved);
  }

  async remove(tenantId: string, actor: ActorRef, id: string): Promise<z.infer<typeof DeletedProviderKey>> {
    await this.d.db.transaction(async (tx) => {
      const gone = await providerKeysRepository.remove(tx, tenantId, id);
      if (!gone) throw notFound('Provider key', id);
      await this.d.audit.record(tx, {
        tenantId,
        actor,
        action: 'provider_key.delete',
        targetType: 'provider_key',
        targetId: id,
        before: auditView(gone),
        after: null,
      });
      await providerKeysRepository.announceChange(tx, tenantId);
    });
    await this.d.applied(tenantId);
    return { id, deleted: true };
  }

  /** A workspace's keys, opened, for the data plane. A row that does not open is left out (and logged). */
  async openKeys(tenantId: string): Promise<WorkspaceKey[]> {
    return this.opened(await providerKeysRepository.list(this.d.db, tenantId));
  }

  /** Every workspace's keys, opened, by workspace. */
  async openAllKeys(): Promise<Map<string, WorkspaceKey[]>> {
    const out = new Map<string, WorkspaceKey[]>();
    for (const k of await providerKeysRepository.listAll(this.d.db)) {
      const [opened] = this.opened([k]);
      const list = out.get(k.tenantId) ?? [];
      if (opened) list.push(opened);
      out.set(k.tenantId, list);
    }
    return out;
  }

  private opened(rows: ProviderKeyRow[]): WorkspaceKey[] {
    const out: WorkspaceKey[] = [];
    for (const r of rows) {
      try {
        if (!this.d.keyring) throw new Error('no encryption key is configured');
        const apiKey = this.d.keyring.open(
          { ciphertext: r.ciphertext, keyId: r.keyId },
          providerKeyContext(r.tenantId, r.provider),
        );
        out.push({ provider: r.provider, apiKey, baseUrl: r.baseUrl });
      } catch (err) {
        this.d.logger.error(
          { tenantId: r.tenantId, keyRow: r.id, err: (err as Error).message },
          'a stored provider key does not open: the workspace uses the deployment key for that provider, if allowed',
        );
      }
    }
    return out;
  }

  private requireKeyring(): Keyring {
    return requireKeyring(this.d.keyring);
  }

  /**
   * Asks the provider's models endpoint with the key. A key it refuses (400, 401, 403) is a typed
   * 400; when it cannot be asked (down, unreachable, no such endpoint) the key is kept unverified.
   */
  private async verify(settings: ProviderSettings, ownUrl: boolean): Promise<boolean> {
    const dispatcher = ownUrl ? this.d.guardedDispatcher() : undefined;
    if (dispatcher) settings.dispatcher = dispatcher;
    const adapter = createAdapter(settings);
    try {
      await adapter.listModels({ signal: AbortSignal.timeout(VERIFY_TIMEOUT_MS), timeoutMs: VERIFY_TIMEOUT_MS });
      return true;
    } catch (err) {
      if (err instanceof ProviderError && [400, 401, 403].includes(err.status))
        throw new GatewayError(
          'invalid_request_error',
          `${settings.name} refused the key ${maskSecret(settings.apiKey ?? '')} (HTTP ${err.status} from its models endpoint)`,
          { details: { code: 'provider_key_rejected', provider: settings.name } },
        );
      return false;
    }
  }
}

/**
 * Key rotation: every row sealed under an earlier key is opened and sealed again under the current
 * one (`npm run rotate-keys`). Returns how many rows were re-sealed; a row that does not open with
 * any configured key is counted as failed and left as it is.
 */
export async function resealProviderKeys(
  db: Database,
  keyring: Keyring,
): Promise<{ resealed: number; failed: number }> {
  return resealAll(
    await providerKeysRepository.listAll(db),
    keyring,
    (row) => ({
      sealed: { ciphertext: row.ciphertext, keyId: row.keyId },
      context: providerKeyContext(row.tenantId, row.provider),
    }),
    (row, next) =>
      db.transaction(async (tx) => {
        if (!(await providerKeysRepository.reseal(tx, row, next))) return false;
        await providerKeysRepository.announceChange(tx, row.tenantId);
        return true;
      }),
  );
}
