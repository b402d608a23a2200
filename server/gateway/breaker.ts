// Per-provider circuit breaker. After FAILURE_THRESHOLD consecutive retryable failures (or an
// upstream Retry-After) the provider is skipped for a cool-down; then one probe request is let
// through (half-open): success closes the circuit, failure reopens it with a longer cool-down.
//
// Looking at a circuit (mayTry) never changes it: a request lists its fallback candidates up
// front but tries few of them, and only the attempt actually sent claims the probe (claim). A
// probe that ends without a verdict on the provider (the client left, the request itself was
// refused) is released for the next request; a lease bounds a probe whose end is never reported.

export type BreakerState = 'closed' | 'open' | 'half-open';

/**
 * What claim() grants: 'denied' (skip the provider), 'free' (closed circuit: send, nothing to give
 * back) or 'probe' (this attempt is the half-open circuit's one probe: report its end).
 */
export type AttemptPermit = 'denied' | 'free' | 'probe';

export interface BreakerOptions {
  failureThreshold?: number;
  baseCooldownMs?: number;
  maxCooldownMs?: number;
  now?: () => number;
}

interface Circuit {
  failures: number;
  openUntil: number;
  cooldownMs: number;
  /** When the probe in flight stops blocking others (its lease ends); 0 when none is. */
  probeUntil: number;
}

export class CircuitBreakers {
  private readonly circuits = new Map<string, Circuit>();
  /** Times each provider's circuit opened (metrics: an opening shorter than a scrape interval shows here). */
  readonly openings = new Map<string, number>();
  private readonly threshold: number;
  private readonly baseCooldown: number;
  private readonly maxCooldown: number;
  private readonly now: () => number;

  constructor(opts: BreakerOptions = {}) {
    this.threshold = opts.failureThreshold ?? 5;
    this.baseCooldown = opts.baseCooldownMs ?? 10_000;
    this.maxCooldown = opts.maxCooldownMs ?? 300_000;
    this.now = opts.now ?? Date.now;
  }

  state(provider: string): BreakerState {
    const c = this.circuits.get(provider);
    if (!c || c.openUntil === 0) return 'closed';
    return this.now() < c.openUntil ? 'open' : 'half-open';
  }

  /**
   * Whether a call could be sent to this provider now: closed, or half-open with no probe in
   * flight. Changes nothing: listing a candidate does not claim its probe.
   */
  mayTry(provider: string): boolean {
    const c = this.circuits.get(provider);
    if (!c || c.openUntil === 0) return true;
    const now = this.now();
    return now >= c.openUntil && now >= c.probeUntil;
  }

  /**
   * Called right before an attempt is sent. On a half-open circuit the first caller becomes the
   * probe for `leaseMs` at most (the upstream timeout: its verdict is in by then); the others are
   * denied until it reports its end (success, failure or release) or its lease runs out.
   */
  claim(provider: string, leaseMs: number): AttemptPermit {
    const c = this.circuits.get(provider);
    if (!c || c.openUntil === 0) return 'free';
    const now = this.now();
    if (now < c.openUntil || now < c.probeUntil) return 'denied';
    c.probeUntil = now + Math.max(1, leaseMs);
    return 'probe';
  }

  /** The probe ended without a verdict on the provider: the next request may probe. */
  release(provider: string): void {
    const c = this.circuits.get(provider);
    if (c) c.probeUntil = 0;
  }

  success(provider: string): void {
    this.circuits.delete(provider);
  }

  /** Forgets a provider's failures: its credentials or address changed, so they say nothing now. */
  reset(provider: string): void {
    this.circuits.delete(provider);
  }

  /** Forgets the circuits of providers not in `providers` (removed by a reload: nothing can close them). */
  retainOnly(providers: ReadonlySet<string>): void {
    for (const name of this.circuits.keys()) if (!providers.has(name)) this.circuits.delete(name);
  }

  /**
   * A failed attempt. Only a failed probe lengthens the cool-down: the failures of requests sent
   * before the circuit opened (many, under concurrency) or while it was open (a last resort sent
   * anyway) count, but do not push the provider's return further away.
   */
  failure(provider: string, retryAfterMs?: number): void {
    const c = this.circuits.get(provider) ?? { failures: 0, openUntil: 0, cooldownMs: 0, probeUntil: 0 };
    c.failures++;
    const wasProbing = c.probeUntil !== 0;
    c.probeUntil = 0;
    const now = this.now();
    const wasOpen = now < c.openUntil;
    if (retryAfterMs !== undefined && retryAfterMs > 0) {
      // The provider told us when to come back: do not send before then.
      c.openUntil = Math.max(c.openUntil, now + Math.min(retryAfterMs, this.maxCooldown));
    } else if (wasProbing) {
      c.cooldownMs = c.cooldownMs ? Math.min(c.cooldownMs * 2, this.maxCooldown) : this.baseCooldown;
      c.openUntil = now + c.cooldownMs;
    } else if (c.failures >= this.threshold && now >= c.openUntil) {
      // Opens (or, half-open with no probe out, opens again) for the cool-down it had.
      c.cooldownMs ||= this.baseCooldown;
      c.openUntil = now + c.cooldownMs;
    }
    if (!wasOpen && now < c.openUntil) this.openings.set(provider, (this.openings.get(provider) ?? 0) + 1);
    this.circuits.set(provider, c);
  }

  snapshot(): Record<string, { state: BreakerState; consecutiveFailures: number; openUntil: string | null }> {
    const out: Record<string, { state: BreakerState; consecutiveFailures: number; openUntil: string | null }> = {};
    for (const [name, c] of this.circuits) {
      out[name] = {
        state: this.state(name),
        consecutiveFailures: c.failures,
        openUntil: c.openUntil ? new Date(c.openUntil).toISOString() : null,
      };
    }
    return out;
  }
}
