import { sql } from 'drizzle-orm';
import type pg from 'pg';
import type { z } from 'zod';
import type { Database, Executor } from '../../db/client.js';
import { notify } from '../../db/listener.js';
import { CAPTURE_CHANNEL, type ExchangeCapture } from '../../gateway/exchange-capture.js';
import type { ActorRef, AuditService } from '../audit/service.js';
import type { CaptureList, CaptureSettings, UpdateCaptureSettingsInput } from './schemas.js';

type Settings = z.infer<typeof CaptureSettings>;

const DEFAULTS: Settings = { enabled: false, sampleRate: 1, retentionDays: 30 };

export interface CaptureServiceDeps {
  db: Database;
  pool: pg.Pool;
  audit: AuditService;
  capture: ExchangeCapture;
}

export class CaptureService {
  constructor(private readonly d: CaptureServiceDeps) {}

  async settings(tenantId: string, db: Executor = this.d.db): Promise<Settings> {
    const { rows } = await db.execute<{ enabled: boolean; sample_rate: number; retention_days: number }>(
      sql`select enabled, sample_rate, retention_days from exchange_capture_settings where tenant_id = ${tenantId}`,
    );
    const r = rows[0];
    return r ? { enabled: r.enabled, sampleRate: r.sample_rate, retentionDays: r.retention_days } : { ...DEFAULTS };
  }

  async update(
    tenantId: string,
    actor: ActorRef,
    input: z.infer<typeof UpdateCaptureSettingsInput>,
  ): Promise<Settings> {
    const after = await this.d.db.transaction(async (tx) => {
      const before = await this.settings(tenantId, tx);
      const next = { ...before, ...input };
      await tx.execute(sql`
        insert into exchange_capture_settings (tenant_id, enabled, sample_rate, retention_days, updated_at)
        values (${tenantId}, ${next.enabled}, ${next.sampleRate}, ${next.retentionDays}, now())
        on conflict (tenant_id) do update set enabled = excluded.enabled, sample_rate = excluded.sample_rate,
          retention_days = excluded.retention_days, updated_at = now()`);
      await this.d.audit.record(tx, {
        tenantId,
        actor,
        action: 'capture_settings.update',
        targetType: 'capture_settings',
        targetId: tenantId,
        before,
        after: next,
      });
      return next;
    });
    // This node at once; the others through NOTIFY.
    await this.d.capture.reload(tenantId);
    await notify(this.d.pool, CAPTURE_CHANNEL, tenantId).catch(() => undefined);
    return after;
  }

  async list(tenantId: string, limit: number): Promise<z.infer<typeof CaptureList>> {
    const { rows } = await this.d.db.execute<{
      request_id: string;
      messages: unknown[];
      answer: string;
      created_at: Date | string;
    }>(sql`select request_id, messages, answer, created_at from captured_exchanges
           where tenant_id = ${tenantId} order by created_at desc, request_id desc limit ${limit}`);
    return {
      items: rows.map((r) => ({
        requestId: r.request_id,
        messages: r.messages,
        answer: r.answer,
        createdAt: new Date(r.created_at).toISOString(),
      })),
    };
  }

  /** The captured exchanges of these requests (those captured), by request id. */
  async exchanges(
    tenantId: string,
    requestIds: string[],
  ): Promise<Map<string, { messages: unknown[]; answer: string }>> {
    const { rows } = await this.d.db.execute<{ request_id: string; messages: unknown[]; answer: string }>(
      sql`select request_id, messages, answer from captured_exchanges
          where tenant_id = ${tenantId} and request_id in (${sql.join(
            requestIds.map((id) => sql`${id}`),
            sql`, `,
          )})`,
    );
    return new Map(rows.map((r) => [r.request_id, { messages: r.messages, answer: r.answer }]));
  }

  /** Deletes the workspace's captured exchanges older than its retention. */
  async expire(tenantId: string): Promise<number> {
    const { retentionDays } = await this.settings(tenantId);
    const res = await this.d.db.execute(sql`
      delete from captured_exchanges where tenant_id = ${tenantId}
        and created_at < now() - make_interval(days => ${retentionDays})`);
    return res.rowCount ?? 0;
  }
}
