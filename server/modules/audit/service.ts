import type { z } from 'zod';
import type { Database, Executor } from '../../db/client.js';
import type { AuditLogRow } from '../../db/schema/index.js';
import { decodeCursor, keysetPage } from '../../lib/cursor.js';
import { newId } from '../../lib/ids.js';
import { auditRepository } from './repository.js';
import type { AuditLogEntry, AuditLogPage, ListAuditLogsInput } from './schemas.js';

export interface ActorRef {
  type: 'token' | 'user' | 'system';
  id: string | null;
}

/** The gateway itself (a scheduled job, start-up from the configuration) as an audit actor. */
export const SYSTEM_ACTOR: ActorRef = { type: 'system', id: null };

export interface AuditEvent {
  tenantId: string;
  actor: ActorRef;
  action: string;
  targetType: string;
  targetId: string | null;
  before?: unknown;
  after?: unknown;
}

export class AuditService {
  constructor(private readonly db: Database) {}

  /** Call inside the transaction that makes the change, so both land or neither does. */
  async record(tx: Executor, e: AuditEvent): Promise<void> {
    await auditRepository.insert(tx, {
      id: newId('aud'),
      tenantId: e.tenantId,
      actorType: e.actor.type,
      actorId: e.actor.id,
      action: e.action,
      targetType: e.targetType,
      targetId: e.targetId,
      before: e.before ?? null,
      after: e.after ?? null,
    });
  }

  /**
   * Sets a workspace's on/off setting (or flips it when `enabled` is undefined) and audits the
   * change, in one transaction.
   */
  async toggle(
    tenantId: string,
    actor: ActorRef,
    enabled: boolean | undefined,
    setting: {
      action: string;
      targetType: string;
      read(tx: Executor, tenantId: string): Promise<boolean>;
      write(tx: Executor, tenantId: string, enabled: boolean): Promise<void>;
    },
  ): Promise<{ enabled: boolean }> {
    return this.db.transaction(async (tx) => {
      const before = await setting.read(tx, tenantId);
      const next = enabled ?? !before;
      await setting.write(tx, tenantId, next);
      await this.record(tx, {
        tenantId,
        actor,
        action: setting.action,
        targetType: setting.targetType,
        targetId: tenantId,
        before: { enabled: before },
        after: { enabled: next },
      });
      return { enabled: next };
    });
  }

  async list(tenantId: string, input: z.infer<typeof ListAuditLogsInput>): Promise<z.infer<typeof AuditLogPage>> {
    const rows = await auditRepository.list(this.db, tenantId, {
      limit: input.limit + 1,
      action: input.action,
      targetType: input.targetType,
      before: input.cursor ? decodeCursor(input.cursor) : undefined,
    });
    return keysetPage(rows, input.limit, toDto);
  }
}

function toDto(r: AuditLogRow): z.infer<typeof AuditLogEntry> {
  return {
    id: r.id,
    actor: { type: r.actorType as ActorRef['type'], id: r.actorId },
    action: r.action,
    targetType: r.targetType,
    targetId: r.targetId,
    before: r.before ?? null,
    after: r.after ?? null,
    createdAt: r.createdAt.toISOString(),
  };
}
