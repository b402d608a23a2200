import type { z } from 'zod';
import type { Dispatcher } from 'undici';
import type { Database } from '../../db/client.js';
import type { CustomModel } from '../../db/schema/custom-providers.js';
import type { WorkspaceCustomProvider } from '../../gateway/workspace-providers.js';
import { requireKeyring, resealAll, type Keyring } from '../../lib/encryption.js';
import { GatewayError, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { Logger } from '../../lib/logger.js';
import { providerDefinition } from '../../providers/catalog.js';
import { createAdapter } from '../../providers/factory.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import { ProviderError, type ProviderFamily } from '../../providers/types.js';
import { checkProviderUrl } from '../../providers/url-guard.js';
import type { ActorRef, AuditService } from '../audit/service.js';
import { customProvidersRepository, type CustomProviderRow } from './repository.js';
import type {
  CreateCustomProviderInput,
  CustomModelInput,
  CustomProvider,
  CustomProviderList,
  DeletedCustomProvider,
  UpdateCustomProviderInput,
} from './schemas.js';

// A workspace's own upstreams. The base URL is user input the server will call: it is checked when
// given (a clear 400) and the data plane calls it through a pool that checks every connection's
// address again. The key is sealed like a provider key; audit rows carry its last 4 characters.

const DISCOVERY_TIMEOUT_MS = 10_000;
/** Names that already mean something in `provider/model`. */
const RESERVED = new Set(['simulator']);

export const customProviderContext = (tenantId: string, id: string) => `custom_provider:${tenantId}:${id}`;

export interface CustomProviderServiceDeps {
  db: Database;
  audit: AuditService;
  logger: Logger;
  keyring: Keyring | null;
  allowPrivateUrls: boolean;
  guardedDispatcher: () => Dispatcher | undefined;
  /** The workspace's providers as the data plane serves them now (status in listings). */
  registryFor: (tenantId: string) => ProviderRegistry;
  /** Applies a workspace's change on this node before the answer (the others hear the NOTIFY). */
  applied: (tenantId: string) => Promise<void>;
}

function modelOf(m: z.infer<typeof CustomModelInput>): CustomModel {
  return {
    id: m.id,
    inputPerMillionUsd: m.inputPerMillionUsd ?? null,
    outputPerMillionUsd: m.outputPerMillionUsd ?? null,
    vision: m.vision,
    tools: m.tools,
    json: m.json,
  };
}

function auditView(r: CustomProviderRow) {
  return {
    name: r.name,
    family: r.family,
    baseUrl: r.baseUrl,
    maskedKey: r.last4 ? `…${r.last4}` : null,
    models: r.models,
    discover: r.discover,
  };
}

export class CustomProviderService {
  constructor(private readonly d: CustomProviderServiceDeps) {}

  async list(tenantId: string): Promise<z.infer<typeof CustomProviderList>> {
    const rows = await customProvidersRepository.list(this.d.db, tenantId);
    const registry = this.d.registryFor(tenantId);
    return { items: rows.map((r) => this.toDto(r, registry)) };
  }

  async get(tenantId: string, id: string): Promise<z.infer<typeof CustomProvider>> {
    const row = await customProvidersRepository.get(this.d.db, tenantId, id);
    if (!row) throw notFound('Custom provider', id);
    return this.toDto(row, this.d.registryFor(tenantId));
  }

  async create(
    tenantId: string,
    actor: ActorRef,
    input: z.infer<typeof CreateCustomProviderInput>,
  ): Promise<z.infer<typeof CustomProvider>> {
    if (providerDefinition(input.name) || RESERVED.has(input.name))
      throw new GatewayError('invalid_request_error', `name: '${input.name}' is a built-in provider's name`);
    const baseUrl = input.baseUrl.replace(/\/+$/, '');
    await checkProviderUrl(baseUrl, this.d.allowPrivateUrls);
    if (input.models.length === 0 && !input.discover)
      throw new GatewayError('invalid_request_error', 'models: list at least one model, or set discover: true');
    const key = input.key ?? null;
    if (key) this.requireKeyring();
    await this.check(input.name, input.family, baseUrl, key, input.discover, input.models.length > 0);
    const id = newId('cp');
    const sealed = key ? this.requireKeyring().seal(key, customProviderContext(tenantId, id)) : null;
    const row = await this.d.db.transaction(async (tx) => {
      const saved = await customProvidersRepository.insert(tx, tenantId, {
        id,
        name: input.name,
        family: input.family,
        baseUrl,
        ciphertext: sealed?.ciphertext ?? null,
        keyId: sealed?.keyId ?? null,
        last4: key ? key.slice(-4) : null,
        models: input.models.map(modelOf),
        discover: input.discover,
      });
      if (!saved)
        throw new GatewayError('conflict_error', `This workspace already has a provider named '${input.name}'`);
      await this.d.audit.record(tx, {
        tenantId,
        actor,
        action: 'custom_provider.create',
        targetType: 'custom_provider',
        targetId: id,
        before: null,
        after: auditView(saved),
      });
      await customProvidersRepository.announceChange(tx, tenantId);
      return saved;
    });
    await this.d.applied(tenantId);
    return this.toDto(row, this.d.registryFor(tenantId));
  }

  async update(
    tenantId: string,
    actor: ActorRef,
    input: z.infer<typeof UpdateCustomProviderInput>,
  ): Promise<z.infer<typeof CustomProvider>> {
    const current = await customProvidersRepository.get(this.d.db, tenantId, input.id);
    if (!current) throw notFound('Custom provider', input.id);
    const baseUrl = input.baseUrl?.replace(/\/+$/, '') ?? current.baseUrl;
    if (input.baseUrl !== undefined) await checkProviderUrl(baseUrl, this.d.allowPrivateUrls);
    const models = input.models?.map(modelOf) ?? current.models;
    const discover = input.discover ?? current.discover;
    if (models.length === 0 && !discover)
      throw new GatewayError('invalid_request_error', 'models: list at least one model, or set discover: true');
    const set: Parameters<typeof customProvidersRepository.update>[3] = { baseUrl, models, discover };
    if (input.key !== undefined) {
      const sealed = input.key
        ? this.requireKeyring().seal(input.key, customProviderContext(tenantId, current.id))
        : null;
      set.ciphertext = sealed?.ciphertext ?? null;
      set.keyId = sealed?.keyId ?? null;
      set.last4 = input.key ? input.key.slice(-4) : null;
    }
    if (input.key !== undefined || input.baseUrl !== undefined || (discover && !current.discover)) {
      const key = input.key !== undefined ? input.key : this.openKey(current);
      await this.check(current.name, current.family, baseUrl, key, discover, models.length > 0);
    }
    const row = await this.d.db.transaction(async (tx) => {
      const before = await customProvidersRepository.get(tx, tenantId, input.id, true);
      if (!before) throw notFound('Custom provider', input.id);
      const saved = await customProvidersRepository.update(tx, tenantId, input.id, set);
      await this.d.audit.record(tx, {
        tenantId,
        actor,
        action: 'custom_provider.update',
        targetType: 'custom_provider',
        targetId: input.id,
        before: auditView(before),
        after: auditView(saved!),
      });
      await customProvidersRepository.announceChange(tx, tenantId);
      return saved!;
    });
    await this.d.applied(tenantId);
    return this.toDto(row, this.d.registryFor(tenantId));
  }

  async remove(tenantId: string, actor: ActorRef, id: string): Promise<z.infer<typeof DeletedCustomProvider>> {
    await this.d.db.transaction(async (tx) => {
      const gone = await customProvidersRepository.remove(tx, tenantId, id);
      if (!gone) throw notFound('Custom provider', id);
      await this.d.audit.record(tx, {
        tenantId,
        actor,
        action: 'custom_provider.delete',
        targetType: 'custom_provider',
        targetId: id,
        before: auditView(gone),
        after: null,
      });
      await customProvidersRepository.announceChange(tx, tenantId);
    });
    await this.d.applied(tenantId);
    return { id, deleted: true };
  }

  /** A workspace's providers, keys opened, for the data plane. */
  async openProviders(tenantId: string): Promise<WorkspaceCustomProvider[]> {
    return (await customProvidersRepository.list(this.d.db, tenantId)).flatMap((r) => this.opened(r));
  }

  async openAllProviders(): Promise<Map<string, WorkspaceCustomProvider[]>> {
    const out = new Map<string, WorkspaceCustomProvider[]>();
    for (const r of await customProvidersRepository.listAll(this.d.db)) {
      const list = out.get(r.tenantId) ?? [];
      list.push(...this.opened(r));
      out.set(r.tenantId, list);
    }
    return out;
  }

  private opened(r: CustomProviderRow): WorkspaceCustomProvider[] {
    let apiKey: string | null;
    try {
      apiKey = this.openKey(r);
    } catch (err) {
      this.d.logger.error(
        { tenantId: r.tenantId, provider: r.name, err: (err as Error).message },
        'a custom provider key does not open: the provider is left out',
      );
      return [];
    }
    return [
      {
        name: r.name,
        family: r.family as ProviderFamily,
        baseUrl: r.baseUrl,
        apiKey,
        models: r.models.map((m) => ({
          id: m.id,
          inputPerMillionUsd: m.inputPerMillionUsd,
          outputPerMillionUsd: m.outputPerMillionUsd,
          vision: m.vision,
          tools: m.tools,
          json: m.json,
        })),
        discover: r.discover,
      },
    ];
  }

  private openKey(r: CustomProviderRow): string | null {
    if (!r.ciphertext || !r.keyId) return null;
    return this.requireKeyring().open(
      { ciphertext: r.ciphertext, keyId: r.keyId },
      customProviderContext(r.tenantId, r.id),
    );
  }

  private requireKeyring(): Keyring {
    return requireKeyring(this.d.keyring);
  }

  /**
   * With discovery on, asks the models endpoint now: a key it refuses is a 400, and so is an
   * endpoint that cannot be asked when no model is listed to fall back on.
   */
  private async check(
    name: string,
    family: string,
    baseUrl: string,
    key: string | null,
    discover: boolean,
    hasModels: boolean,
  ): Promise<void> {
    if (!discover) return;
    const dispatcher = this.d.guardedDispatcher();
    const adapter = createAdapter({
      name,
      family: family as ProviderFamily,
      baseUrl,
      builtinModels: [],
      ...(key ? { apiKey: key } : {}),
      ...(dispatcher ? { dispatcher } : {}),
    });
    try {
      await adapter.listModels({ signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS), timeoutMs: DISCOVERY_TIMEOUT_MS });
    } catch (err) {
      const status = err instanceof ProviderError ? err.status : 0;
      if ([400, 401, 403].includes(status))
        throw new GatewayError(
          'invalid_request_error',
          `${name} refused the key (HTTP ${status} from its models endpoint)`,
          {
            details: { code: 'provider_key_rejected', provider: name },
          },
        );
      if (!hasModels)
        throw new GatewayError(
          'invalid_request_error',
          `discover: ${name}'s models endpoint could not be asked (${status ? `HTTP ${status}` : 'no answer'}); list its models instead`,
        );
    }
  }

  private toDto(r: CustomProviderRow, registry: ProviderRegistry): z.infer<typeof CustomProvider> {
    const served = registry.get(r.name);
    const live = served?.source === 'custom' ? served : undefined;
    return {
      id: r.id,
      name: r.name,
      family: r.family,
      baseUrl: r.baseUrl,
      maskedKey: r.last4 ? `…${r.last4}` : null,
      models: r.models,
      discover: r.discover,
      active: live?.active ?? false,
      servedModels: live?.models ?? [],
      discoveryError: live?.discoveryError ?? null,
      createdAt: r.createdAt.toISOString(),
      updatedAt: r.updatedAt.toISOString(),
    };
  }
}

/** Key rotation for custom providers' keys (see resealProviderKeys). */
export async function resealCustomProviderKeys(
  db: Database,
  keyring: Keyring,
): Promise<{ resealed: number; failed: number }> {
  return resealAll(
    await customProvidersRepository.listAll(db),
    keyring,
    (row) =>
      row.ciphertext && row.keyId
        ? {
            sealed: { ciphertext: row.ciphertext, keyId: row.keyId },
            context: customProviderContext(row.tenantId, row.id),
          }
        : null,
    (row, next) =>
      db.transaction(async (tx) => {
        if (!(await customProvidersRepository.reseal(tx, row, next))) return false;
        await customProvidersRepository.announceChange(tx, row.tenantId);
        return true;
      }),
  );
}
