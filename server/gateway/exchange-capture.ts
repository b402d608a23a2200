import type pg from 'pg';
import type { PgListener } from '../db/listener.js';
import type { Logger } from '../lib/logger.js';
import type { Random } from '../lib/random.js';
import { toStorableText } from '../lib/storable-text.js';
import type { ChatCall } from './types.js';

// Opt-in exchange capture: stores a sampled share of a workspace's answered chat calls (messages
// and answer) in captured_exchanges, for eval cases saved from the request log. The settings of
// every workspace that opted in are held in memory (loaded at start, reloaded for a workspace when
// its settings change, on any node, through NOTIFY), so the chat path makes no database round
// trip to decide; the insert itself is fire-and-forget and bounded, as the judge sampler's.

export const CAPTURE_CHANNEL = 'gateway_capture';
const MAX_IN_FLIGHT = 16;

export class ExchangeCapture {
  /** Sample rate per workspace that has capture on. */
  private readonly rates = new Map<string, number>();
  private inFlight = 0;
  dropped = 0;

  constructor(
    private readonly pool: pg.Pool,
    private readonly logger: Logger,
    private readonly listener?: PgListener,
    private readonly random: Random = Math.random,
  ) {}

  async start(): Promise<void> {
    await this.reloadAll();
    await this.listener?.listen(
      CAPTURE_CHANNEL,
      (tenantId) => void this.reload(tenantId).catch(() => undefined),
      // Changes made while the connection was down were not heard: read everything again.
      () => void this.reloadAll().catch(() => undefined),
    );
  }

  async reloadAll(): Promise<void> {
    const { rows } = await this.pool.query<{ tenant_id: string; sample_rate: number }>(
      'select tenant_id, sample_rate from exchange_capture_settings where enabled',
    );
    this.rates.clear();
    for (const r of rows) this.rates.set(r.tenant_id, r.sample_rate);
  }

  async reload(tenantId: string): Promise<void> {
    const { rows } = await this.pool.query<{ enabled: boolean; sample_rate: number }>(
      'select enabled, sample_rate from exchange_capture_settings where tenant_id = $1',
      [tenantId],
    );
    const row = rows[0];
    if (row?.enabled) this.rates.set(tenantId, row.sample_rate);
    else this.rates.delete(tenantId);
  }

  /** `answer` is only computed for the calls actually captured. */
  offer(call: ChatCall, answer: () => string): void {
    if (call.costOnly) return;
    const rate = this.rates.get(call.tenantId);
    if (rate === undefined || rate <= 0 || (rate < 1 && this.random() >= rate)) return;
    if (this.inFlight >= MAX_IN_FLIGHT) {
      this.dropped++;
      return;
    }
    this.inFlight++;
    const messages = call.messages.map((m) => ({
      role: m.role,
      content: typeof m.content === 'string' ? m.content : (m.content ?? []).filter((p) => p.type === 'text'),
    }));
    const json = JSON.stringify(messages, (_key, value: unknown) =>
      typeof value === 'string' ? toStorableText(value) : value,
    );
    this.pool
      .query(
        'insert into captured_exchanges (tenant_id, request_id, messages, answer) values ($1, $2, $3, $4) on conflict do nothing',
        [call.tenantId, call.requestId, json, toStorableText(answer())],
      )
      .catch((err: unknown) => this.logger.warn({ err: (err as Error).message }, 'captured exchange not stored'))
      .finally(() => this.inFlight--);
  }
}
