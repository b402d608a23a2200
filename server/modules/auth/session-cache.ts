import type { Tier } from '../../config.js';
import type { Database } from '../../db/client.js';
import type { PgListener } from '../../db/listener.js';
import { hashToken } from '../../lib/crypto.js';
import { GatewayError } from '../../lib/errors.js';
import { settleWithin } from '../../lib/settle-within.js';
import type { Principal } from '../tokens/authenticator.js';
import { SESSIONS_CHANNEL, authRepository } from './repository.js';

export interface SessionPrincipal {
  principal: Principal;
  /** What a cookie-authenticated change must carry in X-CSRF-Token. */
  csrf: string;
  email: string;
  expiresAt: number;
}

interface Entry {
  found: SessionPrincipal | null;
  loadedAt: number;
}

// Session cookies resolved from memory, like bearer tokens (modules/tokens/authenticator.ts): a
// session not seen before costs one database read, then it is served from this cache. Sign-out,
// revocation and a member's role change or removal are announced on SESSIONS_CHANNEL in the
// transaction that makes them, and every process drops its cache when one arrives (or when its
// LISTEN connection comes back). As a safety net an entry is read again after RECHECK_MS (and
// every second while changes are not being heard). Expiry needs no read: it is checked against the
// time held in the entry.
const RECHECK_MS = 30_000;
const RECHECK_UNHEARD_MS = 1_000;
const MAX_ENTRIES = 10_000;
const SERVE_STALE_MS = 5 * 60_000;
/** How long a request waits for a session's read before serving what was known (or 503). */
const READ_WAIT_MS = 5_000;

export class SessionCache {
  private readonly cache = new Map<string, Entry>();
  private readonly reading = new Map<string, Promise<SessionPrincipal | null>>();
  private generation = 0;
  private listening = false;

  constructor(
    private readonly db: Database,
    private readonly listener?: PgListener,
  ) {}

  async start(): Promise<void> {
    if (!this.listener || this.listening) return;
    this.listening = true;
    await this.listener.listen(
      SESSIONS_CHANNEL,
      () => this.invalidate(),
      () => this.invalidate(),
    );
  }

  invalidate(): void {
    this.generation++;
    this.cache.clear();
  }

  /** The session a cookie value names, or 401 auth_error. */
  async authenticate(secret: string): Promise<SessionPrincipal> {
    const hash = hashToken(secret);
    const now = Date.now();
    const entry = this.cache.get(hash);
    const found = entry && now - entry.loadedAt < this.recheckMs() ? entry.found : await this.readOrStale(hash, entry);
    if (!found || found.expiresAt <= now) throw new GatewayError('auth_error', 'The session has ended: sign in again');
    return found;
  }

  /**
   * A fresh read; when the database does not answer, what was known (for up to SERVE_STALE_MS),
   * else 503: a known session keeps working through an outage, as a known token does.
   */
  private async readOrStale(hash: string, entry: Entry | undefined): Promise<SessionPrincipal | null> {
    const pending = this.read(hash);
    const read = await settleWithin(pending, READ_WAIT_MS);
    if (read.ok) return read.value;
    // A read stuck on a connection a partition left open: the next request starts its own.
    if (this.reading.get(hash) === pending) this.reading.delete(hash);
    if (entry && Date.now() - entry.loadedAt < SERVE_STALE_MS) return entry.found;
    throw new GatewayError('service_unavailable', 'Sessions cannot be checked: the database is unreachable', {
      cause: read.error,
    });
  }

  private recheckMs(): number {
    return this.listener?.listening(SESSIONS_CHANNEL) ? RECHECK_MS : RECHECK_UNHEARD_MS;
  }

  private read(hash: string): Promise<SessionPrincipal | null> {
    const pending = this.reading.get(hash);
    if (pending) return pending;
    const generation = this.generation;
    const asked = Date.now();
    const read = authRepository
      .sessionByHash(this.db, hash)
      .then((row) => {
        const found = row?.role
          ? {
              principal: sessionPrincipal(row.session, row.tier as Tier, row.role),
              csrf: row.session.csrf,
              email: row.email,
              expiresAt: row.session.expiresAt.getTime(),
            }
          : null;
        // A change announced while this read ran may not be in it: answer with it, do not keep it.
        if (generation === this.generation) {
          if (this.cache.size >= MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
          this.cache.set(hash, { found, loadedAt: asked });
        }
        return found;
      })
      .finally(() => {
        if (this.reading.get(hash) === read) this.reading.delete(hash);
      });
    this.reading.set(hash, read);
    return read;
  }
}

type SessionWithRole = NonNullable<Awaited<ReturnType<typeof authRepository.sessionByHash>>>;

function sessionPrincipal(
  s: SessionWithRole['session'],
  tier: Tier,
  role: NonNullable<SessionWithRole['role']>,
): Principal {
  return {
    tenantId: s.tenantId,
    tier,
    tokenId: s.id,
    admin: role === 'owner' || role === 'admin',
    spendLimitUsd: null,
    spendLimitPeriod: 'all_time',
    spentMonth: '',
    spentUsd: 0,
    rateLimitPerMinute: null,
    userId: s.userId,
    role,
    sessionId: s.id,
  };
}
