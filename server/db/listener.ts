import { sql, type SQL } from 'drizzle-orm';
import pg from 'pg';
import type { Logger } from '../lib/logger.js';

// One LISTEN connection per process for every channel (routing state, token changes, provider
// reloads, the live tap), reconnecting when it drops, so changes made by any gateway process reach
// every process sharing the database. One connection rather than one per channel: a deployment of
// many gateway nodes against a managed PostgreSQL counts its connections.
//
// A channel may have several subscribers (the authenticator and the live tap both hear token
// changes); notifications reach them in the order PostgreSQL delivers them, which is commit order
// across all the channels of the connection. A channel is LISTENed while it has a subscriber and
// UNLISTENed when its last one leaves. An advertised channel can be seen from other processes
// (listenersPresent): while it is listened, the connection holds a shared advisory lock keyed on
// the channel's name, which the database drops with the connection.

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

/** First key of the advisory locks that advertise a listened channel (the second is the channel's hashtext). */
const PRESENCE_LOCK = 0x6c_73_6e; // 'lsn'

interface Subscriber {
  onMessage: (payload: string) => void;
  /** Called after a reconnect: messages may have been missed, so the subscriber reloads. */
  onReconnect: () => void;
  advertise: boolean;
}

export interface ListenOptions {
  /** Let other processes see that this one listens on the channel (listenersPresent). */
  advertise?: boolean;
}

/** One connection and what is LISTENed (and advertised) on it. */
interface Connection {
  client: pg.Client;
  listened: Set<string>;
  advertised: Set<string>;
  /** LISTEN/UNLISTEN statements run one after the other, each on the state the previous one left. */
  queue: Promise<void>;
}

export class PgListener {
  private readonly channels = new Map<string, Set<Subscriber>>();
  private conn: Connection | undefined;
  /** Callers of listened() waiting for their channel, resolved once it is LISTENed. */
  private readonly waiting = new Map<string, Array<{ resolve: () => void; reject: (err: Error) => void }>>();
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
   * Delivers `channel`'s notifications to `onMessage`, beside the channel's other subscribers.
   * Resolves once the LISTEN is in place (at once when the connection is down: the channel is
   * LISTENed when it comes back, and onReconnect is called then), with the function that ends
   * this subscription.
   */
  async listen(
    channel: string,
    onMessage: (payload: string) => void,
    onReconnect: () => void = () => undefined,
    opts: ListenOptions = {},
  ): Promise<() => Promise<void>> {
    const subscriber: Subscriber = { onMessage, onReconnect, advertise: opts.advertise === true };
    let subscribers = this.channels.get(channel);
    if (!subscribers) this.channels.set(channel, (subscribers = new Set()));
    subscribers.add(subscriber);
    await this.sync();
    let active = true;
    return async () => {
      if (!active) return;
      active = false;
      subscribers.delete(subscriber);
      if (subscribers.size === 0 && this.channels.get(channel) === subscribers) this.channels.delete(channel);
      await this.sync();
    };
  }

  /** Whether notifications sent on `channel` now will arrive. */
  listening(channel: string): boolean {
    return this.conn?.listened.has(channel) === true;
  }

  /** Resolves once `channel` is LISTENed (at once if it is); rejects if the listener closes first. */
  listened(channel: string): Promise<void> {
    if (this.listening(channel)) return Promise.resolve();
    if (this.closed) return Promise.reject(new Error('listener closed'));
    return new Promise((resolve, reject) => {
      const list = this.waiting.get(channel) ?? [];
      list.push({ resolve, reject });
      this.waiting.set(channel, list);
    });
  }

  /** Backend pid of the connection (diagnostics and tests); undefined while it is down. */
  async backendPid(): Promise<number | undefined> {
    const client = this.conn?.client;
    if (!client) return undefined;
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
    return rows[0]?.pid;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    for (const list of this.waiting.values()) for (const w of list) w.reject(new Error('listener closed'));
    this.waiting.clear();
    const client = this.conn?.client;
    this.conn = undefined;
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
      if (msg.payload === undefined) return;
      const subscribers = this.channels.get(msg.channel);
      if (subscribers) for (const s of subscribers) s.onMessage(msg.payload);
    });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    const conn: Connection = { client, listened: new Set(), advertised: new Set(), queue: Promise.resolve() };
    try {
      await client.connect();
      // Until nothing is missing: a channel registered while a LISTEN was on its way is taken too.
      while (this.pendingStatements(conn).length) await this.apply(conn);
      if (this.closed) {
        await client.end().catch(() => undefined);
        return;
      }
      this.conn = conn;
      this.startHeartbeat(client);
      this.wake();
      if (isReconnect) for (const subscribers of this.channels.values()) for (const s of subscribers) s.onReconnect();
    } catch (err) {
      await client.end().catch(() => undefined);
      if (!isReconnect) throw err;
      this.scheduleReconnect();
    }
  }

  /** Brings the current connection in line with the subscriptions (no-op while it is down). */
  private sync(): Promise<void> {
    const conn = this.conn;
    if (!conn) return Promise.resolve();
    // A failure here is the connection dropping: the reconnect LISTENs every channel anew.
    conn.queue = conn.queue
      .then(() => this.apply(conn))
      .catch((err: unknown) =>
        this.logger.debug({ err: (err as Error).message }, 'LISTEN change failed; redone on reconnect'),
      );
    return conn.queue;
  }

  /** The statements that would bring `conn` in line with the subscriptions. */
  private pendingStatements(conn: Connection): Array<{ sql: string; done: () => void }> {
    const out: Array<{ sql: string; done: () => void }> = [];
    const lockArgs = (c: string) => `${PRESENCE_LOCK}, hashtext(${pg.escapeLiteral(c)})`;
    // LISTEN before advertising, and the lock released before UNLISTEN: whoever sees the lock is heard.
    for (const [channel, subscribers] of this.channels) {
      if (!conn.listened.has(channel))
        out.push({ sql: `listen ${pg.escapeIdentifier(channel)}`, done: () => conn.listened.add(channel) });
      const advertise = [...subscribers].some((s) => s.advertise);
      if (advertise && !conn.advertised.has(channel))
        out.push({
          sql: `select pg_advisory_lock_shared(${lockArgs(channel)})`,
          done: () => conn.advertised.add(channel),
        });
    }
    for (const channel of conn.advertised) {
      if (![...(this.channels.get(channel) ?? [])].some((s) => s.advertise))
        out.push({
          sql: `select pg_advisory_unlock_shared(${lockArgs(channel)})`,
          done: () => conn.advertised.delete(channel),
        });
    }
    for (const channel of conn.listened) {
      if (!this.channels.has(channel))
        out.push({ sql: `unlisten ${pg.escapeIdentifier(channel)}`, done: () => conn.listened.delete(channel) });
    }
    return out;
  }

  /** Runs what is pending on `conn` in one round trip. */
  private async apply(conn: Connection): Promise<void> {
    const pending = this.pendingStatements(conn);
    if (!pending.length) return;
    await conn.client.query(pending.map((p) => p.sql).join('; '));
    for (const p of pending) p.done();
    if (this.conn === conn) this.wake();
  }

  /** Resolves the listened() waiters whose channel is now LISTENed. */
  private wake(): void {
    for (const [channel, list] of this.waiting) {
      if (!this.listening(channel)) continue;
      this.waiting.delete(channel);
      for (const w of list) w.resolve();
    }
  }

  private lost(client: pg.Client): void {
    // Only the connection in use: a failed attempt is retried by connect() itself.
    if (this.conn?.client !== client) return;
    this.conn = undefined;
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = undefined;
    this.scheduleReconnect();
  }

  private startHeartbeat(client: pg.Client): void {
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    let waiting = false;
    this.heartbeatTimer = setInterval(() => {
      if (waiting || this.conn?.client !== client) return;
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

/**
 * Whether any process (this one included) listens on `channel` with `advertise`, in this
 * database: a publisher that would otherwise NOTIFY into the void asks this first.
 */
export async function listenersPresent(db: pg.Pool | pg.ClientBase, channel: string): Promise<boolean> {
  const { rows } = await db.query<{ present: boolean }>(
    `select exists(
       select 1 from pg_locks
        where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database())
          and classid = $1::int8::text::oid and objid = (hashtext($2)::int8 & 4294967295)::text::oid and objsubid = 2
     ) as present`,
    [PRESENCE_LOCK, channel],
  );
  return rows[0]?.present === true;
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
