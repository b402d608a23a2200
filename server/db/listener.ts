import pg from 'pg';
import type { Logger } from '../lib/logger.js';

// One LISTEN connection per channel and process, reconnecting when it drops, so changes made by
// any gateway process (config edits, feedback) reach every process sharing the database.

export class PgListener {
  private client: pg.Client | undefined;
  private closed = false;
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: string,
    private readonly channel: string,
    private readonly onMessage: (payload: string) => void,
    private readonly logger: Logger,
    /** Called after a reconnect: messages may have been missed, so callers reload. */
    private readonly onReconnect: () => void = () => undefined,
  ) {}

  async start(): Promise<void> {
    await this.connect(false);
  }

  /** Whether the LISTEN connection is up (notifications sent now will arrive). */
  get connected(): boolean {
    return this.client !== undefined;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.client?.end().catch(() => undefined);
  }

  private async connect(isReconnect: boolean): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    client.on('notification', (msg) => {
      if (msg.channel === this.channel && msg.payload !== undefined) this.onMessage(msg.payload);
    });
    client.on('error', () => this.scheduleReconnect());
    client.on('end', () => this.scheduleReconnect());
    try {
      await client.connect();
      await client.query(`listen ${pg.escapeIdentifier(this.channel)}`);
      this.client = client;
      if (isReconnect) this.onReconnect();
    } catch (err) {
      await client.end().catch(() => undefined);
      if (!isReconnect) throw err;
      this.scheduleReconnect();
    }
  }

  private scheduleReconnect(): void {
    if (this.closed || this.retryTimer) return;
    this.client = undefined;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.logger.debug({ channel: this.channel }, 'reconnecting LISTEN client');
      void this.connect(true);
    }, 1_000);
    this.retryTimer.unref();
  }
}

/** Send a notification through any pool connection (or inside a transaction: delivered on commit). */
export async function notify(db: { query: (text: string, values: unknown[]) => Promise<unknown> }, channel: string, payload: string): Promise<void> {
  await db.query('select pg_notify($1, $2)', [channel, payload]);
}
