import type pg from 'pg';
import type { z } from 'zod';
import type { Database } from '../../db/client.js';
import { sql } from 'drizzle-orm';
import type { GuardrailLogRow, GuardrailRuleRow } from '../../db/schema/index.js';
import { BUILTIN_GROUP, BUILTIN_RULES } from '../../gateway/guardrails/builtin.js';
import type { GuardrailEventWriter } from '../../gateway/guardrails/events.js';
import { GUARDRAILS_CHANNEL, type EnabledRule, type GuardrailGate } from '../../gateway/guardrails/gate.js';
import { vetPattern, type Engine } from '../../gateway/guardrails/patterns.js';
import { decodeCursor, keysetPage } from '../../lib/cursor.js';
import { GatewayError, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { SYSTEM_ACTOR, type ActorRef, type AuditService } from '../audit/service.js';
import { guardrailsRepository as repo } from './repository.js';
import type {
  CreateGuardrailInput,
  GuardrailLogEntry,
  GuardrailLogPage,
  GuardrailRule,
  ListGuardrailLogsInput,
  UpdateGuardrailInput,
} from './schemas.js';

type Dto = z.infer<typeof GuardrailRule>;

export const MAX_CUSTOM_RULES = 100;

export interface GuardrailServiceDeps {
  db: Database;
  pool: pg.Pool;
  audit: AuditService;
  gate: GuardrailGate;
  events: GuardrailEventWriter;
}

export class GuardrailService {
  readonly gate: GuardrailGate;
  readonly events: GuardrailEventWriter;

  constructor(private readonly d: GuardrailServiceDeps) {
    this.gate = d.gate;
    this.events = d.events;
  }

  /** The workspace's rules; the first call seeds the built-ins (disabled, action block). */
  async list(tenantId: string): Promise<Dto[]> {
    let rows = await repo.list(this.d.db, tenantId);
    const have = new Set(rows.map((r) => r.builtinKey));
    if (BUILTIN_RULES.some((b) => !have.has(b.key))) {
      await this.seed(tenantId);
      rows = await repo.list(this.d.db, tenantId);
    }
    return rows.map(toDto);
  }

  private async seed(tenantId: string): Promise<void> {
    const base = Date.now();
    await this.d.db.transaction(async (tx) => {
      const inserted = await repo.insertBuiltins(
        tx,
        BUILTIN_RULES.map((b, i) => ({
          id: newId('grd'),
          tenantId,
          name: b.name,
          group: BUILTIN_GROUP,
          type: 'builtin',
          builtinKey: b.key,
          pattern: b.pattern,
          action: 'block',
          enabled: false,
          engine: 'js',
          // One millisecond apart: listed and evaluated in their shipped order.
          createdAt: new Date(base + i),
          updatedAt: new Date(base + i),
        })),
      );
      for (const row of inserted)
        await this.d.audit.record(tx, {
          tenantId,
          actor: SYSTEM_ACTOR,
          action: 'guardrail.seed',
          targetType: 'guardrail',
          targetId: row.id,
          after: summary(row),
        });
    });
  }

  async create(tenantId: string, actor: ActorRef, input: z.infer<typeof CreateGuardrailInput>): Promise<Dto> {
    const engine = await vetPattern(input.pattern);
    const row = await this.d.db.transaction(async (tx) => {
      if ((await repo.countCustom(tx, tenantId)) >= MAX_CUSTOM_RULES)
        throw new GatewayError(
          'conflict_error',
          `A workspace holds at most ${MAX_CUSTOM_RULES} custom guardrail rules`,
        );
      const created = await repo.insert(tx, {
        id: newId('grd'),
        tenantId,
        name: input.name,
        group: input.group,
        type: 'regex',
        builtinKey: null,
        pattern: input.pattern,
        action: input.action,
        enabled: input.enabled,
        engine,
      });
      await this.d.audit.record(tx, {
        tenantId,
        actor,
        action: 'guardrail.create',
        targetType: 'guardrail',
        targetId: created.id,
        after: summary(created),
      });
      await tx.execute(sql`select pg_notify(${GUARDRAILS_CHANNEL}, ${tenantId})`);
      return created;
    });
    await this.gate.reload(tenantId);
    return toDto(row);
  }

  async update(tenantId: string, actor: ActorRef, input: z.infer<typeof UpdateGuardrailInput>): Promise<Dto> {
    // Vetting may take a second or two (outside any transaction): a pattern saved is always vetted.
    const engine: Engine | undefined = input.pattern !== undefined ? await vetPattern(input.pattern) : undefined;
    const row = await this.change(tenantId, actor, input.id, 'guardrail.update', (before) => {
      const patch: Partial<GuardrailRuleRow> = {};
      if (input.enabled !== undefined) patch.enabled = input.enabled;
      if (input.action !== undefined) patch.action = input.action;
      if (input.name !== undefined) patch.name = input.name;
      if (input.pattern !== undefined && input.pattern !== before.pattern) {
        patch.pattern = input.pattern;
        patch.engine = engine!;
      }
      return patch;
    });
    return toDto(row);
  }

  async reset(tenantId: string, actor: ActorRef, id: string): Promise<Dto> {
    const row = await this.change(tenantId, actor, id, 'guardrail.reset', (before) => {
      const shipped = BUILTIN_RULES.find((b) => b.key === before.builtinKey);
      if (!shipped)
        throw new GatewayError('conflict_error', `Guardrail rule '${id}' is a custom rule: only built-ins reset`);
      return { name: shipped.name, pattern: shipped.pattern, action: 'block', engine: 'js' };
    });
    return toDto(row);
  }

  async remove(tenantId: string, actor: ActorRef, id: string): Promise<{ id: string; deleted: true }> {
    await this.d.db.transaction(async (tx) => {
      const before = await repo.getForUpdate(tx, tenantId, id);
      if (!before) throw notFound('Guardrail rule', id);
      if (before.builtinKey)
        throw new GatewayError(
          'conflict_error',
          `Guardrail rule '${id}' is built in: disable it instead of deleting it`,
        );
      await repo.remove(tx, tenantId, id);
      await this.d.audit.record(tx, {
        tenantId,
        actor,
        action: 'guardrail.delete',
        targetType: 'guardrail',
        targetId: id,
        before: summary(before),
      });
      await tx.execute(sql`select pg_notify(${GUARDRAILS_CHANNEL}, ${tenantId})`);
    });
    await this.gate.reload(tenantId);
    return { id, deleted: true };
  }

  async logs(
    tenantId: string,
    input: z.infer<typeof ListGuardrailLogsInput>,
  ): Promise<z.infer<typeof GuardrailLogPage>> {
    const limit = input?.limit ?? 50;
    const rows = await repo.logs(this.d.db, tenantId, {
      limit: limit + 1,
      ruleId: input?.ruleId,
      before: input?.cursor ? decodeCursor(input.cursor) : undefined,
    });
    return keysetPage(rows, limit, logDto);
  }

  /** Enabled rules for the gate: one workspace's, or every workspace's at start-up. */
  async loadEnabled(tenantId?: string): Promise<EnabledRule[]> {
    return (await repo.enabled(this.d.db, tenantId)).map((r) => ({
      id: r.id,
      tenantId: r.tenantId,
      name: r.name,
      action: r.action as EnabledRule['action'],
      pattern: r.pattern,
      engine: r.engine as Engine,
    }));
  }

  private async change(
    tenantId: string,
    actor: ActorRef,
    id: string,
    action: string,
    patchOf: (before: GuardrailRuleRow) => Partial<GuardrailRuleRow>,
  ): Promise<GuardrailRuleRow> {
    const row = await this.d.db.transaction(async (tx) => {
      const before = await repo.getForUpdate(tx, tenantId, id);
      if (!before) throw notFound('Guardrail rule', id);
      const after = await repo.update(tx, tenantId, id, patchOf(before));
      await this.d.audit.record(tx, {
        tenantId,
        actor,
        action,
        targetType: 'guardrail',
        targetId: id,
        before: summary(before),
        after: summary(after),
      });
      await tx.execute(sql`select pg_notify(${GUARDRAILS_CHANNEL}, ${tenantId})`);
      return after;
    });
    await this.gate.reload(tenantId);
    return row;
  }
}

function summary(r: GuardrailRuleRow) {
  return { name: r.name, group: r.group, type: r.type, pattern: r.pattern, action: r.action, enabled: r.enabled };
}

function toDto(r: GuardrailRuleRow): Dto {
  return {
    id: r.id,
    name: r.name,
    group: r.group,
    type: r.type as Dto['type'],
    pattern: r.pattern,
    action: r.action as Dto['action'],
    enabled: r.enabled,
    engine: r.engine as Dto['engine'],
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

function logDto(r: GuardrailLogRow): z.infer<typeof GuardrailLogEntry> {
  return {
    id: r.id,
    ruleId: r.ruleId,
    ruleName: r.ruleName,
    action: r.action as 'block' | 'flag',
    snippet: r.snippet,
    requestId: r.requestId,
    endpoint: r.endpoint as 'chat' | 'embeddings',
    createdAt: r.createdAt.toISOString(),
  };
}
