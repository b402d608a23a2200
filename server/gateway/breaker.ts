// Per-provider circuit breaker. After FAILURE_THRESHOLD consecutive retryable failures (or an
// upstream Retry-After) the provider is skipped for a cool-down; then one probe request is let
// through (half-open): success closes the circuit, failure reopens it with a longer cool-down.

export type BreakerState = 'closed' | 'open' | 'half-open';

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
  probing: boolean;
}

export class CircuitBreakers {
  private readonly circuits = new Map<string, Circuit>();
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

  /** Whether a call may go to this provider now; in half-open state only one probe at a time. */
  allow(provider: string): boolean {
    const c = this.circuits.get(provider);
    if (!c || c.openUntil === 0) return true;
    if (this.now() < c.openUntil) return false;
    if (c.probing) return false;
    c.probing = true;
    return true;
  }

  success(provider: string): void {
    const c = this.circuits.get(provider);
    if (c) this.circuits.delete(provider);
  }

  failure(provider: string, retryAfterMs?: number): void {
    const c = this.circuits.get(provider) ?? { failures: 0, openUntil: 0, cooldownMs: 0, probing: false };
    c.failures++;
    const wasProbing = c.probing;
    c.probing = false;
    if (retryAfterMs !== undefined && retryAfterMs > 0) {
      // The provider told us when to come back: do not send before then.
      c.openUntil = Math.max(c.openUntil, this.now() + Math.min(retryAfterMs, this.maxCooldown));
    } else if (wasProbing || c.failures >= this.threshold) {
      c.cooldownMs = c.cooldownMs ? Math.min(c.cooldownMs * 2, this.maxCooldown) : this.baseCooldown;
      c.openUntil = this.now() + c.cooldownMs;
    }
    this.circuits.set(provider, c);
  }

  snapshot(): Record<string, { state: BreakerState; consecutiveFailures: number; openUntil: string | null }> {
    const out: Record<string, { state: BreakerState; consecutiveFailures: number; openUntil: string | null }> = {};
    for (const [name, c] of this.circuits) {
      out[name] = { state: this.state(name), consecutiveFailures: c.failures, openUntil: c.openUntil ? new Date(c.openUntil).toISOString() : null };
    }
    return out;
  }
}
