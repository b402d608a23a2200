import type { Executor } from '../db/client.js';
import type { PgListener } from '../db/listener.js';
import type { Logger } from '../lib/logger.js';
import type { Random } from '../lib/random.js';
import { toStorableText } from '../lib/storable-text.js';
import { captureRepository } from './capture-repository.js';
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
    private readonly db: Executor,
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
    const rows = await captureRepository.enabledRates(this.db);
    this.rates.clear();
    for (const r of rows) this.rates.set(r.tenantId, r.sampleRate);
  }

  async reload(tenantId: string): Promise<void> {
    const row = await captureRepository.settings(this.db, tenantId);
    if (row?.enabled) this.rates.set(tenantId, row.sampleRate);
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
    // A prompt may hold NUL or lone surrogates, which jsonb refuses: stored with them replaced.
    const storable = JSON.parse(
      JSON.stringify(messages, (_key, value: unknown) => (typeof value === 'string' ? toStorableText(value) : value)),
    ) as unknown[];
    captureRepository
      .insert(this.db, call.tenantId, call.requestId, storable, toStorableText(answer()))
      .catch((err: unknown) => this.logger.warn({ err: (err as Error).message }, 'captured exchange not stored'))
      .finally(() => this.inFlight--);
  }
}
