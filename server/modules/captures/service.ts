import type pg from 'pg';
import type { z } from 'zod';
import type { Database, Executor } from '../../db/client.js';
import { notify } from '../../db/listener.js';
import { captureRepository } from '../../gateway/capture-repository.js';
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
    const r = await captureRepository.settings(db, tenantId);
    return r ? { enabled: r.enabled, sampleRate: r.sampleRate, retentionDays: r.retentionDays } : { ...DEFAULTS };
  }

  async update(
    tenantId: string,
    actor: ActorRef,
    input: z.infer<typeof UpdateCaptureSettingsInput>,
  ): Promise<Settings> {
    const after = await this.d.db.transaction(async (tx) => {
      const before = await this.settings(tenantId, tx);
      const next = { ...before, ...input };
      await captureRepository.putSettings(tx, tenantId, next);
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
    const rows = await captureRepository.latest(this.d.db, tenantId, limit);
    return {
      items: rows.map((r) => ({
        requestId: r.requestId,
        messages: r.messages,
        answer: r.answer,
        createdAt: r.createdAt.toISOString(),
      })),
    };
  }

  /** The captured exchanges of these requests (those captured), by request id. */
  async exchanges(
    tenantId: string,
    requestIds: string[],
  ): Promise<Map<string, { messages: unknown[]; answer: string }>> {
    const rows = await captureRepository.byRequests(this.d.db, tenantId, requestIds);
    return new Map(rows.map((r) => [r.requestId, { messages: r.messages, answer: r.answer }]));
  }

  /** Deletes the workspace's captured exchanges older than its retention. */
  async expire(tenantId: string): Promise<number> {
    const { retentionDays } = await this.settings(tenantId);
    return captureRepository.deleteOlderThan(this.d.db, tenantId, retentionDays);
  }
}
