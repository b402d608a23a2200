import type { Database } from '../../db/client.js';
import { auditLogs, guardrailLogs } from '../../db/schema/index.js';
import { newId, newTimeOrderedId } from '../../lib/ids.js';
import type { Logger } from '../../lib/logger.js';
import type { Hit } from './gate.js';

// Every rule that fires (each block, each flag) is written to the guardrail log and to the audit
// log, off the request path: events are queued in memory and written in batches (one multi-row
// INSERT per table and flush), as the request log is. Held while the database is down, up to
// MAX_QUEUED events (the oldest are dropped past that, and counted); drained on shutdown.

const FLUSH_MS = 200;
const BATCH = 500;
const MAX_QUEUED = 20_000;

export interface GuardrailEvent {
  tenantId: string;
  requestId: string;
  tokenId: string | null;
  endpoint: 'chat' | 'embeddings';
  hit: Hit;
  at: Date;
}

export class GuardrailEventWriter {
  private queue: GuardrailEvent[] = [];
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  dropped = 0;

  constructor(
    private readonly db: Database,
    private readonly logger: Logger,
  ) {}

  record(e: GuardrailEvent): void {
    this.queue.push(e);
    if (this.queue.length > MAX_QUEUED) {
      this.queue.shift();
      this.dropped++;
    }
    if (this.queue.length >= BATCH) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }

  /** Writes what is queued (and waits for a flush under way). */
  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.flushing) await this.flushing;
    if (this.queue.length === 0) return;
    const batch = this.queue.splice(0, BATCH);
    this.flushing = this.write(batch).finally(() => {
      this.flushing = null;
    });
    await this.flushing;
    if (this.queue.length > 0) this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }

  async close(): Promise<void> {
    for (let i = 0; i < 10 && this.queue.length > 0; i++) await this.flush();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private async write(batch: GuardrailEvent[]): Promise<void> {
    try {
      await this.db.transaction(async (tx) => {
        await tx.insert(guardrailLogs).values(
          batch.map((e) => ({
            id: newTimeOrderedId('grl', e.at.getTime()),
            tenantId: e.tenantId,
            ruleId: e.hit.ruleId,
            ruleName: e.hit.ruleName,
            action: e.hit.action,
            snippet: e.hit.snippet,
            requestId: e.requestId,
            tokenId: e.tokenId,
            endpoint: e.endpoint,
            createdAt: e.at,
          })),
        );
        // The audit row names the rule, the action and the request; the matched text stays in the
        // guardrail log.
        await tx.insert(auditLogs).values(
          batch.map((e) => ({
            id: newId('aud'),
            tenantId: e.tenantId,
            actorType: 'token',
            actorId: e.tokenId,
            action: `guardrail.${e.hit.action}`,
            targetType: 'guardrail',
            targetId: e.hit.ruleId,
            after: { rule: e.hit.ruleName, requestId: e.requestId, endpoint: e.endpoint },
            createdAt: e.at,
          })),
        );
      });
    } catch (err) {
      // Put them back (oldest first) for the next flush; a database that stays down drops the oldest.
      this.logger.warn({ err: (err as Error).message, events: batch.length }, 'guardrail events not written; retrying');
      this.queue = batch.concat(this.queue);
      while (this.queue.length > MAX_QUEUED) {
        this.queue.shift();
        this.dropped++;
      }
    }
  }
}
