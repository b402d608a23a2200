import type { Logger } from '../../lib/logger.js';
import type { PgListener } from '../../db/listener.js';
import type { Engine } from './patterns.js';
import { RuleSet } from './rule-set.js';

// The guardrails on the request path: every workspace's enabled rules, compiled once and held in
// memory. Loaded whole at start-up; a change reloads that workspace's rules on every node (NOTIFY on
// CHANNEL, sent by the guardrails service after it commits; the node that made the change reloads
// before it answers). A call costs no database round trip, and a workspace with no enabled rule
// costs one map lookup.

export const GUARDRAILS_CHANNEL = 'guardrails_changed';
export const SNIPPET_CHARS = 200;

export interface EnabledRule {
  id: string;
  tenantId: string;
  name: string;
  action: 'block' | 'flag';
  pattern: string;
  engine: Engine;
}

export interface Hit {
  ruleId: string;
  ruleName: string;
  action: 'block' | 'flag';
  snippet: string;
}

/** What the rules said of a call: the rule that blocks it (if any) and every rule that fired. */
export interface Verdict {
  blockedBy: Hit | null;
  hits: Hit[];
}

export interface GuardrailGateDeps {
  /** Enabled rules of one workspace, or of all of them (tenantId undefined), in evaluation order. */
  loadEnabled(tenantId?: string): Promise<EnabledRule[]>;
  listener: PgListener;
  logger: Logger;
}

export class GuardrailGate {
  private readonly byTenant = new Map<string, RuleSet>();
  /**
   * Loads are numbered as they start; per workspace, the number of the load installed last. A load
   * that finishes after a later-started one was installed is dropped (it may predate a change), and
   * a load is installed even when a later one is still running (the caller that awaits it, the node
   * that made a change, then answers with the change in force).
   */
  private loads = 0;
  private readonly installed = new Map<string, number>();

  constructor(private readonly d: GuardrailGateDeps) {}

  async start(): Promise<void> {
    await this.d.listener.listen(
      GUARDRAILS_CHANNEL,
      (tenantId) => void this.reload(tenantId),
      () => void this.reloadAll(),
    );
    await this.reloadAll();
  }

  /** Re-reads one workspace's enabled rules. */
  async reload(tenantId: string): Promise<void> {
    const seq = ++this.loads;
    try {
      const rules = await this.d.loadEnabled(tenantId);
      if (this.newer(tenantId, seq)) this.install(tenantId, rules);
    } catch (err) {
      this.d.logger.warn({ err, tenantId }, 'guardrail rules reload failed');
    }
  }

  private async reloadAll(): Promise<void> {
    const seq = ++this.loads;
    try {
      const rows = await this.d.loadEnabled();
      const grouped = new Map<string, EnabledRule[]>();
      for (const r of rows) {
        const list = grouped.get(r.tenantId);
        if (list) list.push(r);
        else grouped.set(r.tenantId, [r]);
      }
      for (const tenantId of [...this.byTenant.keys()])
        if (!grouped.has(tenantId) && this.newer(tenantId, seq)) this.byTenant.delete(tenantId);
      for (const [tenantId, list] of grouped) if (this.newer(tenantId, seq)) this.install(tenantId, list);
    } catch (err) {
      this.d.logger.warn({ err }, 'guardrail rules load failed');
    }
  }

  /** Whether load `seq` is newer than what the workspace has installed; records it if so. */
  private newer(tenantId: string, seq: number): boolean {
    if ((this.installed.get(tenantId) ?? 0) > seq) return false;
    this.installed.set(tenantId, seq);
    return true;
  }

  private install(tenantId: string, rules: EnabledRule[]): void {
    const set = RuleSet.compile(rules, this.d.logger);
    if (set) this.byTenant.set(tenantId, set);
    else this.byTenant.delete(tenantId);
  }

  /** Whether the workspace has any enabled rule (the text need not be built otherwise). */
  active(tenantId: string): boolean {
    return this.byTenant.has(tenantId);
  }

  /** Runs the workspace's enabled rules over `text`; null when none fired. */
  screen(tenantId: string, text: string): Verdict | null {
    const set = this.byTenant.get(tenantId);
    if (!set || text.length === 0) return null;
    const matchOf = set.over(text);
    let verdict: Verdict | null = null;
    for (const [i, r] of set.rules.entries()) {
      const m = matchOf(i);
      if (!m) continue;
      const hit: Hit = { ruleId: r.id, ruleName: r.name, action: r.action, snippet: m.text.slice(0, SNIPPET_CHARS) };
      verdict ??= { blockedBy: null, hits: [] };
      verdict.hits.push(hit);
      if (r.action === 'block') {
        // The first blocking rule decides; later rules need not run.
        verdict.blockedBy = hit;
        break;
      }
    }
    return verdict;
  }
}
