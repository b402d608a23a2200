import type { Tier } from '../../config.js';
import type { TeamRole } from '../../db/schema/memberships.js';
import type { Database } from '../../db/client.js';
import type { PgListener } from '../../db/listener.js';
import { hashToken } from '../../lib/crypto.js';
import { GatewayError } from '../../lib/errors.js';
import { settleWithin } from '../../lib/settle-within.js';
import { TOKENS_CHANNEL, tokensRepository } from './repository.js';
import { utcMonth } from '../../lib/utc-month.js';

export interface Principal {
  tenantId: string;
  tier: Tier;
  tokenId: string;
  admin: boolean;
  spendLimitUsd: number | null;
  /** What the limit counts: all time, or the UTC calendar month (spentUsd is then this month's). */
  spendLimitPeriod: 'all_time' | 'monthly';
  /** The UTC month (YYYY-MM) spentUsd was read in: a monthly limit starts again when it changes. */
  spentMonth: string;
  /**
   * USD spent with this token: the committed total as of the last load. Authenticator.spentOf()
   * also counts what this process's calls added since (addSpend).
   */
  spentUsd: number;
  rateLimitPerMinute: number | null;
  /** The member the credential belongs to (a session, or a member's token); absent for a workspace token. */
  userId?: string;
  /** That member's role now: read-only may only read, owner and admin may change configuration. */
  role?: TeamRole;
  /** Set when the caller is a signed-in browser session (tokenId is then the session id). */
  sessionId?: string;
}

interface Entry {
  /** null: no such token, or disabled. */
  principal: Principal | null;
  /** When the database was asked for what `principal` holds (Date.now()). */
  loadedAt: number;
  /** When a request last used the entry. */
  usedAt: number;
  /** A re-read failed or took too long: until then the request path serves the entry without trying again. */
  retryAt?: number;
  /** Changes may have been missed (the LISTEN connection came back): read again before trusting it. */
  unconfirmed?: boolean;
}

// Bearer-token resolution for every authenticated path, the chat hot path included. Lookups are
// cached by token hash; nothing on the request path queries the database for a cached token (a
// query running beside a call made that call slower).
//
// How cached tokens stay current:
// - Changes made through any gateway process are announced on TOKENS_CHANNEL in the transaction
//   that makes them; every process listening drops its cache when one arrives (and when its LISTEN
//   connection comes back, since it may have missed some). A change is seen at once.
// - A timer re-reads tokens in use, all in one query: tokens with a spend limit every second (their
//   spend moves with every call), the others every FULL_REFRESH_MS as a safety net. Without a
//   LISTEN connection, every token is re-read every second.
// - An entry the refresh has not reached in time (the timer fell behind, the database did not
//   answer) is read again on the request path, one read per token at a time. A known token waits
//   STALE_READ_WAIT_MS for it at most: if the read fails or takes longer, the last answer is served
//   (for up to SERVE_STALE_MS) and the request path does not try again for STALE_RETRY_MS. So while
//   the database is unreachable, or stops answering without refusing (a network partition), calls
//   with known tokens go on at their usual speed; unknown tokens wait for the database, and get 503
//   when it fails them or has not answered within UNKNOWN_READ_WAIT_MS.
// - When the LISTEN connection comes back, announcements may have been missed: every cached token
//   is read again before it is trusted, but stays known meanwhile. Dropped instead, a database that
//   reconnected and then stopped answering held every call (all its tokens unknown) for as long as
//   the partition lasted.
const REFRESH_MS = 1_000;
const FULL_REFRESH_MS = 30_000;
/** How old an entry may get before the request path reads it again: refreshed every second... */
const STALE_MS = 2_000;
/** ...or, for a token without a spend limit while changes are announced, every FULL_REFRESH_MS. */
const STALE_LISTENING_MS = FULL_REFRESH_MS + STALE_MS;
const SERVE_STALE_MS = 5 * 60_000;
/** How long a call with a known token waits for that token's re-read before going on with what was known. */
const STALE_READ_WAIT_MS = 250;
const STALE_RETRY_MS = 1_000;
/** How long a call with a token not in the cache waits for its read before it gets 503. */
const UNKNOWN_READ_WAIT_MS = 5_000;
/** The timer's re-read is given up after this long (the next tick tries again). */
const REFRESH_TIMEOUT_MS = 5_000;
/** Entries unused this long are dropped rather than refreshed. */
const IDLE_MS = 60_000;
const MAX_ENTRIES = 10_000;
/** Generated tokens take 53 characters with their "Bearer "; an operator's admin token may be longer. */
const MEMO_HEADER_MAX = 256;
const TOUCH_FLUSH_MS = 5_000;

export interface AuthenticatorOptions {
  db: Database;
  now?: () => number;
  /** Hears token changes on TOKENS_CHANNEL (from start()). Without it, every cached token is re-read every second. */
  listener?: PgListener;
}

export class Authenticator {
  private readonly cache = new Map<string, Entry>();
  /**
   * Authorization headers seen lately, and their token's hash: a SHA-256 costs tens of µs on a cold
   * core, on every call's path before its upstream request leaves. Bounded like the cache, and only
   * headers up to MEMO_HEADER_MAX characters (made-up tokens of any length must not fill memory).
   * The tokens are held only in this process's memory, as each request's own headers are.
   */
  private readonly hashes = new Map<string, string>();
  /** Reads on the request path in flight, by token hash. */
  private readonly reading = new Map<string, Promise<Principal | null>>();
  /** Token id to when it was last used (epoch ms; a Date is made only when flushed). */
  private readonly lastUsed = new Map<string, number>();
  private readonly touchTimer: NodeJS.Timeout;
  private readonly refreshTimer: NodeJS.Timeout;
  private refreshing = false;
  /** The cache starts empty: the first full refresh is due FULL_REFRESH_MS after construction. */
  private lastFullRefresh: number;
  /** Bumped by invalidate(): a read that started before it is not cached as current. */
  private generation = 0;
  /**
   * Spend this process counted per token id: what it had read plus what its calls added. A load
   * from the database can be older than those calls' cost rows (the log writer commits them a
   * moment later), and a call can end holding a principal a refresh has replaced; this keeps their
   * spend counted either way. Spend only grows, so the larger of this and a load is the better
   * figure. Kept across cache drops. A token with a spend limit keeps its entry until a read from
   * the database shows at least as much (however long an outage holds the cost rows back: forgotten
   * earlier, the token could spend again); the others' entries go once idle for IDLE_MS.
   */
  private readonly spent = new Map<string, { usd: number; at: number; limited: boolean; month: string }>();
  private listening = false;

  constructor(private readonly opts: AuthenticatorOptions) {
    this.lastFullRefresh = this.now();
    this.touchTimer = setInterval(() => void this.flushLastUsed(), TOUCH_FLUSH_MS);
    this.touchTimer.unref();
    this.refreshTimer = setInterval(() => void this.refresh(), REFRESH_MS);
    this.refreshTimer.unref();
  }

  /** Listens for token changes (when a listener is configured). */
  async start(): Promise<void> {
    const listener = this.opts.listener;
    if (!listener || this.listening) return;
    this.listening = true;
    await listener.listen(
      TOKENS_CHANNEL,
      () => this.invalidate(),
      () => this.unconfirmAll(),
    );
  }

  /** Resolves an Authorization header to a principal or throws 401 auth_error. */
  async authenticate(header: string | undefined): Promise<Principal> {
    const principal = await this.lookup(this.hashOf(header));
    if (!principal) throw new GatewayError('auth_error', 'Invalid or disabled API token');
    this.lastUsed.set(principal.tokenId, Date.now());
    return principal;
  }

  /** Counts a call's cost rows, as they are logged, against its token (see `spent`). */
  addSpend(principal: Principal, usd: number): void {
    const at = this.now();
    this.spent.set(principal.tokenId, {
      usd: this.spentOf(principal) + usd,
      at,
      limited: principal.spendLimitUsd !== null,
      month: utcMonth(at),
    });
  }

  /**
   * What the token has spent, as far as this process knows (for its spend limit): all time, or
   * this UTC month for a monthly limit, which starts from 0 again at the month's start.
   */
  spentOf(principal: Principal): number {
    const counted = this.spent.get(principal.tokenId);
    if (principal.spendLimitPeriod === 'monthly') {
      const month = utcMonth(this.now());
      const loaded = principal.spentMonth === month ? principal.spentUsd : 0;
      return Math.max(counted?.month === month ? counted.usd : 0, loaded);
    }
    return Math.max(counted?.usd ?? 0, principal.spentUsd);
  }

  /** Forget every cached lookup (after a token change). */
  invalidate(): void {
    this.generation++;
    this.cache.clear();
  }

  /** After a reconnect of the LISTEN connection: announcements may have been missed (see the top of this file). */
  private unconfirmAll(): void {
    // A read that started before may not have seen a missed change either: not kept as current.
    this.generation++;
    for (const entry of this.cache.values()) entry.unconfirmed = true;
    // The timer's next tick reads every token in use again.
    this.lastFullRefresh = -Infinity;
  }

  async close(): Promise<void> {
    clearInterval(this.touchTimer);
    clearInterval(this.refreshTimer);
    await this.flushLastUsed();
  }

  /** Whether cached tokens without a spend limit may go FULL_REFRESH_MS between reads. */
  private get changesAnnounced(): boolean {
    return this.listening && this.opts.listener?.listening(TOKENS_CHANNEL) === true;
  }

  private staleAfter(e: Entry): number {
    return e.principal && e.principal.spendLimitUsd === null && this.changesAnnounced ? STALE_LISTENING_MS : STALE_MS;
  }

  /** The token hash of an Authorization header (its token parsed and hashed once per header). */
  private hashOf(header: string | undefined): string {
    const known = header === undefined ? undefined : this.hashes.get(header);
    if (known !== undefined) return known;
    const hash = hashToken(parseBearer(header));
    if (header!.length > MEMO_HEADER_MAX) return hash;
    if (this.hashes.size >= MAX_ENTRIES) this.hashes.delete(this.hashes.keys().next().value!);
    this.hashes.set(header!, hash);
    return hash;
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  private async lookup(hash: string): Promise<Principal | null> {
    const now = this.now();
    const entry = this.cache.get(hash);
    if (entry) {
      entry.usedAt = now;
      if (!entry.unconfirmed && now - entry.loadedAt < this.staleAfter(entry)) return entry.principal;
    }
    const known = entry?.principal && now - entry.loadedAt < SERVE_STALE_MS ? entry.principal : null;
    if (known && entry!.retryAt !== undefined && now < entry!.retryAt) return known;
    const read = this.read(hash);
    if (!known) {
      const answer = await settleWithin(read, UNKNOWN_READ_WAIT_MS);
      if (answer.ok) return answer.value;
      // A read with no answer by now is likely stuck on a connection a partition left open (TCP
      // may take minutes to give up on it): the next call starts a read of its own instead of
      // waiting on this one, so the token works as soon as the database answers again.
      if (this.reading.get(hash) === read) this.reading.delete(hash);
      throw new GatewayError('service_unavailable', 'API tokens cannot be checked: the database is unreachable', {
        cause: answer.error,
      });
    }
    const fresh = await settleWithin(read, STALE_READ_WAIT_MS);
    if (fresh.ok) return fresh.value;
    entry!.retryAt = now + STALE_RETRY_MS;
    return known;
  }

  /** Reads one token, one read per hash at a time; caches what it finds unless a change was announced meanwhile. */
  private read(hash: string): Promise<Principal | null> {
    const pending = this.reading.get(hash);
    if (pending) return pending;
    const generation = this.generation;
    const asked = this.now();
    const read: Promise<Principal | null> = this.load(hash)
      .then((principal) => {
        // A change announced while this read ran may not be in it: answer with it, but do not keep it.
        if (generation !== this.generation) return principal;
        const entry = this.cache.get(hash);
        if (!entry && this.cache.size >= MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
        this.cache.set(hash, { principal, loadedAt: asked, usedAt: entry?.usedAt ?? asked });
        return principal;
      })
      .finally(() => {
        // Not a later read's entry: this one may have been given up on (see lookup).
        if (this.reading.get(hash) === read) this.reading.delete(hash);
      });
    this.reading.set(hash, read);
    return read;
  }

  /**
   * Re-reads the tokens in use in one query: those with a spend limit, or all of them when changes
   * are not announced or the last full refresh is FULL_REFRESH_MS old. Drops entries nobody used
   * for IDLE_MS.
   */
  private async refresh(): Promise<void> {
    if (this.refreshing) return;
    const asked = this.now();
    const full = !this.changesAnnounced || asked - this.lastFullRefresh >= FULL_REFRESH_MS;
    const hashes: string[] = [];
    for (const [hash, e] of this.cache) {
      // Unknown or disabled tokens are not refreshed (anyone can send those); their entries expire.
      if (asked - e.usedAt > IDLE_MS || (!e.principal && asked - e.loadedAt >= STALE_MS)) this.cache.delete(hash);
      else if (e.principal && (full || e.principal.spendLimitUsd !== null)) hashes.push(hash);
    }
    if (full) this.lastFullRefresh = asked;
    for (const [id, s] of this.spent) if (!s.limited && asked - s.at > IDLE_MS) this.spent.delete(id);
    if (hashes.length === 0) return;
    const generation = this.generation;
    this.refreshing = true;
    try {
      const found = new Map<string, Principal>();
      // Bounded: a query the database never answers would otherwise stop every later refresh.
      const read = await settleWithin(tokensRepository.findByHashes(this.opts.db, hashes), REFRESH_TIMEOUT_MS);
      if (!read.ok) return;
      for (const row of read.value) {
        const principal = principalOf(row);
        if (principal) found.set(row.token.hash, principal);
      }
      // A change was announced while the query ran: the cache was dropped, keep it that way.
      if (generation !== this.generation) return;
      for (const hash of hashes) {
        const e = this.cache.get(hash);
        // Read again on the request path since this query was sent: keep that.
        if (!e || e.loadedAt > asked) continue;
        e.principal = found.get(hash) ?? null;
        e.loadedAt = asked;
        e.unconfirmed = false;
      }
      // The database has caught up with what this process counted: its figure is the one to use.
      for (const principal of found.values()) {
        const counted = this.spent.get(principal.tokenId);
        if (
          counted &&
          (principal.spentUsd >= counted.usd ||
            (principal.spendLimitPeriod === 'monthly' && counted.month !== principal.spentMonth))
        )
          this.spent.delete(principal.tokenId);
      }
    } catch {
      // The database did not answer: entries age, and the request path reads them past STALE_MS.
    } finally {
      this.refreshing = false;
    }
  }

  private async load(hash: string): Promise<Principal | null> {
    const found = await tokensRepository.findByHash(this.opts.db, hash);
    return found ? principalOf(found) : null;
  }

  private async flushLastUsed(): Promise<void> {
    if (this.lastUsed.size === 0) return;
    const entries = [...this.lastUsed].map(([id, at]) => ({ id, at: new Date(at) }));
    this.lastUsed.clear();
    await tokensRepository.touch(this.opts.db, entries).catch(() => undefined);
  }
}

type TokenRow = Awaited<ReturnType<typeof tokensRepository.findByHashes>>[number];

function principalOf({ token, tier, spentUsd, monthSpentUsd, month, role }: TokenRow): Principal | null {
  if (!token.enabled) return null;
  // A member's token works while they are a member, and is an admin token while they may administer.
  if (token.userId && !role) return null;
  const monthly = token.spendLimitPeriod === 'monthly';
  return {
    tenantId: token.tenantId,
    tier: tier as Tier,
    tokenId: token.id,
    admin: token.admin && (!role || role === 'owner' || role === 'admin'),
    ...(token.userId && role ? { userId: token.userId, role } : {}),
    spendLimitUsd: token.spendLimitUsd,
    spendLimitPeriod: token.spendLimitPeriod,
    spentMonth: month,
    spentUsd: (monthly ? monthSpentUsd : spentUsd) ?? 0,
    rateLimitPerMinute: token.rateLimitPerMinute,
  };
}

/** The token of an `Authorization: Bearer <token>` header; a typed auth_error when it has none. */
export function parseBearer(header: string | undefined): string {
  if (!header) throw new GatewayError('auth_error', 'Missing Authorization header (expected "Bearer <token>")');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new GatewayError('auth_error', 'Malformed Authorization header (expected "Bearer <token>")');
  return match[1]!;
}
