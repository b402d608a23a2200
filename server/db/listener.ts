import { sql, type SQL } from 'drizzle-orm';
import pg from 'pg';
import type { Logger } from '../lib/logger.js';

// One LISTEN connection per process for every channel that must always be heard (routing state,
// token changes), reconnecting when it drops, so changes made by any gateway process reach every
// process sharing the database. One connection rather than one per channel: a deployment of many
// gateway nodes against a managed PostgreSQL counts its connections. (The live tap keeps its own:
// it listens only while someone watches, and other processes detect it by its application name.)

/** How the connection shows in pg_stat_activity. */
export const LISTENER_APPLICATION_NAME = 'gateway listen';

/**
 * A connection can die without closing (a NAT or firewall forgetting it, a failover behind a
 * virtual IP): nothing arrives, and nothing says so. Every HEARTBEAT_MS the connection is asked a
 * `select 1`; no answer within HEARTBEAT_TIMEOUT_MS, and it is dropped and replaced (a reconnect
 * tells the subscribers, who reload what they may have missed).
 */
const HEARTBEAT_MS = 10_000;
const HEARTBEAT_TIMEOUT_MS = 5_000;

interface Channel {
  onMessage: (payload: string) => void;
  /** Called after a reconnect: messages may have been missed, so the subscriber reloads. */
  onReconnect: () => void;
}

export class PgListener {
  private readonly channels = new Map<string, Channel>();
  private client: pg.Client | undefined;
  /** Channels LISTENed on the current client. */
  private listened = new Set<string>();
  private closed = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: string,
    private readonly logger: Logger,
    private readonly reconnectMs = 1_000,
    private readonly heartbeat = { everyMs: HEARTBEAT_MS, timeoutMs: HEARTBEAT_TIMEOUT_MS },
  ) {}

  /** Connects; throws when the first attempt fails (later drops reconnect on their own). */
  async start(): Promise<void> {
    await this.connect(false);
  }

  /**
   * Delivers `channel`'s notifications to `onMessage`. Resolves once the LISTEN is in place (at
   * once when the connection is down: the channel is LISTENed when it comes back).
   */
  async listen(
    channel: string,
    onMessage: (payload: string) => void,
    onReconnect: () => void = () => undefined,
  ): Promise<void> {
    if (this.channels.has(channel)) throw new Error(`already listening on ${channel}`);
    this.channels.set(channel, { onMessage, onReconnect });
    const client = this.client;
    if (!client) return;
    // A failure here is the connection dropping: the reconnect LISTENs the channel and calls onReconnect.
    await this.listenAll(client).catch((err: unknown) =>
      this.logger.debug({ channel, err: (err as Error).message }, 'LISTEN failed; retried on reconnect'),
    );
  }

  /** Whether notifications sent on `channel` now will arrive. */
  listening(channel: string): boolean {
    return this.client !== undefined && this.listened.has(channel);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(isReconnect: boolean): Promise<void> {
    const client = new pg.Client({
      connectionString: this.url,
      application_name: LISTENER_APPLICATION_NAME,
      keepAlive: true,
      keepAliveInitialDelayMillis: this.heartbeat.everyMs,
      // A database that does not answer must not hold a reconnect forever.
      connectionTimeoutMillis: this.heartbeat.timeoutMs,
    });
    client.on('notification', (msg) => {
      if (msg.payload !== undefined) this.channels.get(msg.channel)?.onMessage(msg.payload);
    });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      this.listened = new Set();
      // Until none is missing: a channel registered while a LISTEN was on its way is taken too.
      while ([...this.channels.keys()].some((c) => !this.listened.has(c))) await this.listenAll(client);
      if (this.closed) {
        await client.end().catch(() => undefined);
        return;
      }
      this.client = client;
      this.startHeartbeat(client);
      if (isReconnect) for (const c of this.channels.values()) c.onReconnect();
    } catch (err) {
      await client.end().catch(() => undefined);
      if (!isReconnect) throw err;
      this.scheduleReconnect();
    }
  }

  /** LISTENs every registered channel not yet LISTENed on `client` (one statement for all of them). */
  private async listenAll(client: pg.Client): Promise<void> {
    const missing = [...this.channels.keys()].filter((c) => !this.listened.has(c));
    if (!missing.length) return;
    await client.query(missing.map((c) => `listen ${pg.escapeIdentifier(c)}`).join('; '));
    for (const c of missing) this.listened.add(c);
  }

  private lost(client: pg.Client): void {
    // Only the connection in use: a failed attempt is retried by connect() itself.
    if (this.client !== client) return;
    this.client = undefined;
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = undefined;
    this.scheduleReconnect();
  }

  private startHeartbeat(client: pg.Client): void {
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    let waiting = false;
    this.heartbeatTimer = setInterval(() => {
      if (waiting || this.client !== client) return;
      waiting = true;
      const timeout = setTimeout(() => {
        this.logger.warn({ timeoutMs: this.heartbeat.timeoutMs }, 'LISTEN connection did not answer; replacing it');
        this.lost(client);
        // It may never close on its own: cut its socket rather than wait for a goodbye.
        destroySocket(client);
      }, this.heartbeat.timeoutMs);
      client
        .query('select 1')
        .catch(() => undefined)
        .finally(() => {
          clearTimeout(timeout);
          waiting = false;
        });
    }, this.heartbeat.everyMs);
    this.heartbeatTimer.unref();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.logger.debug({ channels: [...this.channels.keys()] }, 'reconnecting LISTEN client');
      void this.connect(true);
    }, this.reconnectMs);
    this.retryTimer.unref();
  }
}

/** Send a notification through any pool connection (or inside a transaction: delivered on commit). */
export async function notify(
  db: { query: (text: string, values: unknown[]) => Promise<unknown> },
  channel: string,
  payload: string,
): Promise<void> {
  await db.query('select pg_notify($1, $2)', [channel, payload]);
}

/** notify() through a drizzle handle or transaction (delivered when the transaction commits). */
export async function notifyIn(
  db: { execute: (query: SQL) => Promise<unknown> },
  channel: string,
  payload: string,
): Promise<void> {
  await db.execute(sql`select pg_notify(${channel}, ${payload})`);
}

/** Cuts a client's socket at once (pg has no public way: end() waits for the server's answer). */
function destroySocket(client: pg.Client): void {
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}
