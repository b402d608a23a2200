import type { Tier } from '../../config.js';
import type { Database } from '../../db/client.js';
import { hashToken } from '../../lib/crypto.js';
import { GatewayError } from '../../lib/errors.js';
import { tokensRepository } from './repository.js';

export interface Principal {
  tenantId: string;
  tier: Tier;
  tokenId: string;
  admin: boolean;
  spendLimitUsd: number | null;
  /**
   * USD spent with this token: the committed total as of the last load, plus what calls through
   * this process added since (addSpend), so a token over its limit is refused here at once and in
   * other processes within a reload.
   */
  spentUsd: number;
  rateLimitPerMinute: number | null;
}

interface Entry {
  principal: Principal | null;
  loadedAt: number;
  refreshing?: Promise<void>;
}

// Bearer-token resolution for every authenticated path, the chat hot path included. Lookups are
// cached by token hash: an entry is fresh for FRESH_MS, served while it refreshes in the background
// up to STALE_MS, and re-read synchronously after that. Changes made through this process
// invalidate at once, so a disabled token elsewhere is refused within about a second.
const FRESH_MS = 1_000;
const STALE_MS = 2_000;
const MAX_ENTRIES = 10_000;
const TOUCH_FLUSH_MS = 5_000;

export interface AuthenticatorOptions {
  db: Database;
  now?: () => number;
}

export class Authenticator {
  private readonly cache = new Map<string, Entry>();
  private readonly lastUsed = new Map<string, Date>();
  private readonly touchTimer: NodeJS.Timeout;

  constructor(private readonly opts: AuthenticatorOptions) {
    this.touchTimer = setInterval(() => void this.flushLastUsed(), TOUCH_FLUSH_MS);
    this.touchTimer.unref();
  }

  /** Resolves an Authorization header to a principal or throws 401 auth_error. */
  async authenticate(header: string | undefined): Promise<Principal> {
    const token = parseBearer(header);
    const hash = hashToken(token);
    const principal = await this.lookup(hash);
    if (!principal) throw new GatewayError('auth_error', 'Invalid or disabled API token');
    this.lastUsed.set(principal.tokenId, new Date());
    return principal;
  }

  /**
   * Counts a finished call's cost against its token until the next load from the database (which
   * then holds its cost row). The principal is the cached entry itself, so later calls see it.
   */
  addSpend(principal: Principal, usd: number): void {
    principal.spentUsd += usd;
  }

  /** Forget every cached lookup (after a token change). */
  invalidate(): void {
    this.cache.clear();
  }

  async close(): Promise<void> {
    clearInterval(this.touchTimer);
    await this.flushLastUsed();
  }

  private async lookup(hash: string): Promise<Principal | null> {
    const now = (this.opts.now ?? Date.now)();
    const entry = this.cache.get(hash);
    if (entry) {
      const age = now - entry.loadedAt;
      if (age < FRESH_MS) return entry.principal;
      if (age < STALE_MS) {
        entry.refreshing ??= this.load(hash).then(
          (principal) => void this.cache.set(hash, { principal, loadedAt: Date.now() }),
          () => void (entry.refreshing = undefined),
        );
        return entry.principal;
      }
    }
    const principal = await this.load(hash);
    if (this.cache.size >= MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(hash, { principal, loadedAt: now });
    return principal;
  }

  private async load(hash: string): Promise<Principal | null> {
    const found = await tokensRepository.findByHash(this.opts.db, hash);
    if (!found || !found.token.enabled) return null;
    const { token } = found;
    return {
      tenantId: token.tenantId,
      tier: found.tier as Tier,
      tokenId: token.id,
      admin: token.admin,
      spendLimitUsd: token.spendLimitUsd,
      spentUsd: found.spentUsd ?? 0,
      rateLimitPerMinute: token.rateLimitPerMinute,
    };
  }

  private async flushLastUsed(): Promise<void> {
    if (this.lastUsed.size === 0) return;
    const entries = [...this.lastUsed].map(([id, at]) => ({ id, at }));
    this.lastUsed.clear();
    await tokensRepository.touch(this.opts.db, entries).catch(() => undefined);
  }
}

function parseBearer(header: string | undefined): string {
  if (!header) throw new GatewayError('auth_error', 'Missing Authorization header (expected "Bearer <token>")');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new GatewayError('auth_error', 'Malformed Authorization header (expected "Bearer <token>")');
  return match[1]!;
}
