import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import express from 'express';
import pg from 'pg';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { registerTailCommand } from '../../../cli/commands/tail.js';
import { LiveBus, LIVE_CHANNEL, encodeLivePayload, type LiveEvent } from '../../../server/gateway/live-bus.js';
import type { CommittedRequest } from '../../../server/gateway/log-writer.js';
import { LIVE_PATH, SseWriter, mountLive } from '../../../server/http/live.js';
import { createLogger } from '../../../server/lib/logger.js';
import { TOKENS_CHANNEL } from '../../../server/modules/tokens/repository.js';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';
import type { TestTenant } from '../../support/harness.js';
import { expectTypedError } from '../../support/security.js';

// The live tap: chat completions through the gateway show up on GET /v1/analytics/live of their
// own workspace only, events NOTIFYed by another process arrive too, keep-alives flow, and a
// client going away releases its subscription.

const logger = createLogger('silent');
let c: ChatEnv;
let other: TestTenant;
let bus: LiveBus;
let ownBus = false;
/** The route on the gateway itself when it is mounted there, else on a small app of this file. */
let liveUrl: string;
/** A mount with a short keep-alive interval. */
let fastUrl: string;
const servers: Server[] = [];
const extraBuses: LiveBus[] = [];

async function listen(app: express.Express): Promise<string> {
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  c = await startChatEnv();
  other = await c.env.createTenant();
  const services = c.env.services as typeof c.env.services & { liveBus?: LiveBus };
  if (services.liveBus) {
    bus = services.liveBus;
  } else {
    // Not wired into the service container yet: publish from the log writer's commit hook here.
    bus = new LiveBus({
      pool: c.env.database.pool,
      connectionString: c.env.databaseUrl,
      logger,
      idleMs: 300,
      reconnectMs: 100,
    });
    ownBus = true;
    const writer = services.dataPlane.logWriter as unknown as {
      opts: { onCommitted?: (rows: CommittedRequest[]) => void };
    };
    writer.opts.onCommitted = (rows) => bus.publish(rows);
  }
  const deps = { auth: services.auth, logger, liveBus: bus };
  const mounted = await c.env.http('GET', LIVE_PATH);
  if (mounted.status === 401) {
    liveUrl = c.env.baseUrl;
  } else {
    const app = express();
    mountLive(app, deps);
    liveUrl = await listen(app);
  }
  const fast = express();
  mountLive(fast, deps, { keepAliveMs: 100 });
  fastUrl = await listen(fast);
});

afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  for (const b of extraBuses) await b.close();
  if (ownBus) await bus.close();
  await c?.close();
});

interface Tail {
  status: number;
  events: LiveEvent[];
  named: EventSourceMessage[];
  comments: string[];
  close(): void;
  closed: Promise<void>;
  /** The server ended the stream (or the client closed it). */
  ended: boolean;
}

async function tail(base: string, token: string): Promise<Tail> {
  const controller = new AbortController();
  const res = await fetch(`${base}${LIVE_PATH}`, {
    headers: { authorization: `Bearer ${token}` },
    signal: controller.signal,
  });
  const t: Tail = {
    status: res.status,
    events: [],
    named: [],
    comments: [],
    close: () => controller.abort(),
    closed: Promise.resolve(),
    ended: false,
  };
  expect(res.headers.get('content-type')).toContain('text/event-stream');
  const parser = createParser({
    onEvent: (e) => (e.event ? t.named.push(e) : t.events.push(JSON.parse(e.data) as LiveEvent)),
    onComment: (comment) => t.comments.push(comment.trim()),
  });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  t.closed = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        parser.feed(decoder.decode(value, { stream: true }));
      }
    } catch {
      // aborted
    } finally {
      t.ended = true;
    }
  })();
  await until(() => t.comments.includes('connected'), 'the connected comment');
  return t;
}

async function until(check: () => boolean, what: string, timeoutMs = 8_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function ask(content: string, token = c.tenant.token) {
  const { data, response } = await c
    .openai(token)
    .chat.completions.create({
      model: 'openai/gpt-4o-mini',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content },
      ],
    })
    .withResponse();
  return {
    data: data as unknown as {
      usage: { prompt_tokens: number; completion_tokens: number };
      _gateway: { cost: number };
    },
    id: response.headers.get('x-gateway-request-id')!,
  };
}

function committed(tenantId: string, id: string, preview: string): CommittedRequest {
  return {
    row: {
      id,
      tenantId,
      createdAt: new Date(),
      tokenId: null,
      latencyMs: 42,
      taskType: 'qa',
      complexity: 'simple',
      routedBy: 'classification',
      provider: 'openai',
      model: 'gpt-4o-mini',
      usedFallback: false,
      usedLlmFallback: false,
      cached: false,
      cacheType: null,
      tokensSavedInput: 0,
      tokensSavedOutput: 0,
      inputTokens: 7,
      outputTokens: 9,
      streamed: false,
      status: 'ok',
      errorType: null,
      abTestId: null,
      variant: null,
      promptVersionId: null,
      endpoint: 'chat',
    },
    costUsd: 0.00001,
    preview,
  };
}

describe('live tap', () => {
  it("streams live, cached and streaming completions of the caller's workspace only", async () => {
    const mine = await tail(liveUrl, c.tenant.token);
    const theirs = await tail(liveUrl, other.token);
    try {
      const question = `live question ${Math.random()}`;
      const first = await ask(question);
      const cached = await ask(question);
      const { data: stream, response } = await c
        .openai()
        .chat.completions.create({
          model: 'openai/gpt-4o-mini',
          messages: [{ role: 'user', content: `streamed ${Math.random()}` }],
          stream: true,
        })
        .withResponse();
      for await (const _chunk of stream) {
        // drain
      }
      const streamedId = response.headers.get('x-gateway-request-id')!;
      const foreign = await ask('from the other workspace', other.token);

      await until(() => mine.events.length >= 3, 'three events');
      const byId = new Map(mine.events.map((e) => [e.id, e]));
      expect(byId.get(first.id)).toEqual({
        id: first.id,
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        provider: 'openai',
        model: 'gpt-4o-mini',
        taskType: null,
        complexity: null,
        routedBy: 'user-override',
        cached: false,
        status: 'ok',
        latencyMs: expect.any(Number),
        inputTokens: first.data.usage.prompt_tokens,
        outputTokens: first.data.usage.completion_tokens,
        cost: first.data._gateway.cost,
        preview: question,
        endpoint: 'chat',
      });
      expect(first.data._gateway.cost).toBeGreaterThan(0);
      expect(byId.get(cached.id)).toMatchObject({ cached: true, latencyMs: 0, cost: 0, preview: question });
      expect(byId.get(streamedId)).toMatchObject({ status: 'ok', cached: false, provider: 'openai' });
      expect(byId.has(foreign.id)).toBe(false);

      await until(() => theirs.events.length >= 1, "the other workspace's event");
      expect(theirs.events.map((e) => e.id)).toEqual([foreign.id]);
      // The event is published after the row is committed.
      const rows = await c.query('select id from requests where id = any($1)', [[first.id, cached.id, streamedId]]);
      expect(rows).toHaveLength(3);
    } finally {
      mine.close();
      theirs.close();
    }
  });

  it('delivers events published by another gateway process, and raw NOTIFYs on the channel', async () => {
    const mine = await tail(liveUrl, c.tenant.token);
    const theirs = await tail(liveUrl, other.token);
    const pool = new pg.Pool({ connectionString: c.env.databaseUrl, max: 1 });
    try {
      // A second process: its own pool and bus on the same database.
      const remote = new LiveBus({ pool, connectionString: c.env.databaseUrl, logger });
      extraBuses.push(remote);
      remote.publish([
        committed(c.tenant.tenantId, 'req_remote_1', 'from elsewhere'),
        committed(other.tenantId, 'req_remote_2', 'not yours'),
      ]);
      await until(() => mine.events.some((e) => e.id === 'req_remote_1'), 'the remote event');
      expect(mine.events.find((e) => e.id === 'req_remote_1')).toMatchObject({
        preview: 'from elsewhere',
        cost: 0.00001,
        inputTokens: 7,
        outputTokens: 9,
        routedBy: 'classification',
      });
      await until(() => theirs.events.some((e) => e.id === 'req_remote_2'), "the other tenant's remote event");
      expect(mine.events.some((e) => e.id === 'req_remote_2')).toBe(false);

      const payload = encodeLivePayload({ tenantId: c.tenant.tenantId, ...committedEvent('req_remote_3') });
      await pool.query('select pg_notify($1, $2)', [LIVE_CHANNEL, payload]);
      await until(() => mine.events.some((e) => e.id === 'req_remote_3'), 'the raw NOTIFY');
      expect(theirs.events.some((e) => e.id === 'req_remote_3')).toBe(false);
      // Garbage on the channel is ignored.
      await pool.query('select pg_notify($1, $2)', [LIVE_CHANNEL, 'not json']);
    } finally {
      mine.close();
      theirs.close();
      await pool.end();
    }
  });

  it('publishes at most maxPending events, dropping the oldest, and sends what is queued on close', async () => {
    const mine = await tail(liveUrl, c.tenant.token);
    const pool = new pg.Pool({ connectionString: c.env.databaseUrl, max: 1 });
    try {
      const remote = new LiveBus({ pool, connectionString: c.env.databaseUrl, logger, maxPending: 3 });
      remote.publish(['b1', 'b2', 'b3', 'b4'].map((id) => committed(c.tenant.tenantId, `req_bound_${id}`, id)));
      remote.publish([committed(c.tenant.tenantId, 'req_bound_b5', 'b5')]);
      expect(remote.stats.publishDropped).toBe(2);
      // Closed before the queued rows were even encoded: they are still sent.
      await remote.close();
      expect(remote.stats.published).toBe(3);
      await until(() => mine.events.some((e) => e.id === 'req_bound_b5'), 'the newest event');
      await new Promise((r) => setTimeout(r, 100));
      expect(mine.events.filter((e) => e.id.startsWith('req_bound_')).map((e) => e.id)).toEqual([
        'req_bound_b3',
        'req_bound_b4',
        'req_bound_b5',
      ]);
    } finally {
      mine.close();
      await pool.end();
    }
  });

  it('publishes nothing while no process listens, and every event committed after a new listener is ready', async () => {
    // A channel of its own: no other listener of this file counts.
    const channel = `gateway_live_presence_${process.pid}`;
    const pools = [
      new pg.Pool({ connectionString: c.env.databaseUrl, max: 1 }),
      new pg.Pool({ connectionString: c.env.databaseUrl, max: 1 }),
    ];
    const publisher = new LiveBus({
      pool: pools[0]!,
      connectionString: c.env.databaseUrl,
      logger,
      channel,
      presenceMs: 300,
    });
    const listener = new LiveBus({
      pool: pools[1]!,
      connectionString: c.env.databaseUrl,
      logger,
      channel,
      presenceMs: 300,
    });
    try {
      publisher.publish([committed(c.tenant.tenantId, 'req_presence_1', 'nobody listens')]);
      await until(() => publisher.stats.unobserved === 1, 'the unobserved event to be dropped');
      expect(publisher.stats.published).toBe(0);
      // The publisher's "nobody listens" answer is fresh now; ready has to outlast it.
      const received: LiveEvent[] = [];
      const subscription = listener.subscribe(c.tenant.tenantId, (e) => received.push(e));
      await subscription.ready;
      publisher.publish([committed(c.tenant.tenantId, 'req_presence_2', 'watched')]);
      await until(() => received.some((e) => e.id === 'req_presence_2'), 'the event committed after ready');
      expect(received.map((e) => e.id)).toEqual(['req_presence_2']);
      expect(publisher.stats).toMatchObject({ published: 1, unobserved: 1 });
      subscription.unsubscribe();
    } finally {
      await listener.close();
      await publisher.close();
      await Promise.all(pools.map((p) => p.end()));
    }
  });

  it('sends keep-alive comments while idle', async () => {
    const t = await tail(fastUrl, c.tenant.token);
    try {
      await until(() => t.comments.filter((x) => x === 'keep-alive').length >= 2, 'two keep-alives', 3_000);
    } finally {
      t.close();
    }
  });

  it('releases the subscription when the client disconnects', async () => {
    // Streams closed by earlier tests are released asynchronously.
    await until(() => bus.subscriberCount() === 0, 'earlier streams to be released');
    const t = await tail(fastUrl, c.tenant.token);
    expect(bus.subscriberCount(c.tenant.tenantId)).toBe(1);
    t.close();
    await t.closed;
    await until(() => bus.subscriberCount(c.tenant.tenantId) === 0, 'the subscriber to go');
    if (ownBus && bus.subscriberCount() === 0)
      await until(() => !bus.listening, 'the idle LISTEN connection to close', 3_000);
  });

  it('ends open streams when the bus ends its subscriptions (shutdown)', async () => {
    await until(() => bus.subscriberCount() === 0, 'earlier streams to be released');
    const t = await tail(fastUrl, c.tenant.token);
    bus.endAll();
    await t.closed;
    expect(bus.subscriberCount()).toBe(0);
  });

  it('reconnects the LISTEN connection when it drops', async () => {
    const t = await tail(fastUrl, c.tenant.token);
    const pool = new pg.Pool({ connectionString: c.env.databaseUrl, max: 1 });
    try {
      const pid = await bus.listenerPid();
      expect(pid).toBeGreaterThan(0);
      // The live tap LISTENs on the process's one LISTEN connection, beside routing and tokens.
      expect(pid).toBe(await c.env.services.listener.backendPid());
      const reconnects = bus.stats.reconnects;
      await pool.query('select pg_terminate_backend($1)', [pid]);
      await until(() => bus.stats.reconnects > reconnects && bus.listening, 'the reconnect');
      const remote = new LiveBus({ pool, connectionString: c.env.databaseUrl, logger });
      extraBuses.push(remote);
      remote.publish([committed(c.tenant.tenantId, 'req_after_reconnect', 'still here')]);
      await until(() => t.events.some((e) => e.id === 'req_after_reconnect'), 'an event after the reconnect');
    } finally {
      t.close();
      await pool.end();
    }
  });

  async function createToken(name: string): Promise<{ id: string; token: string }> {
    const res = await c.env.http('POST', '/v1/admin/tokens', { token: c.tenant.token, body: { name } });
    expect(res.status).toBe(200);
    return res.body;
  }

  it('ends a stream once its token is disabled: the next request of the workspace is not shown', async () => {
    const tap = await createToken('tap-disabled');
    const t = await tail(liveUrl, tap.token);
    const watcher = await tail(liveUrl, c.tenant.token);
    try {
      const disabled = await c.env.http('PATCH', `/v1/admin/tokens/${tap.id}`, {
        token: c.tenant.token,
        body: { enabled: false },
      });
      expect(disabled.status).toBe(200);
      const after = await ask('asked after the tap token was disabled');
      await until(() => t.ended, 'the stream of the disabled token to end');
      // The event was published (another stream of the workspace got it); the revoked one did not.
      await until(() => watcher.events.some((e) => e.id === after.id), 'the event on the admin stream');
      expect(t.events).toEqual([]);
    } finally {
      t.close();
      watcher.close();
    }
  });

  it('ends a stream whose token another process deletes, before any event committed after the change', async () => {
    const tap = await createToken('tap-deleted');
    const t = await tail(liveUrl, tap.token);
    const watcher = await tail(liveUrl, c.tenant.token);
    const pool = new pg.Pool({ connectionString: c.env.databaseUrl, max: 1 });
    try {
      // What another gateway process does: the change and its announcement in one transaction,
      // then an event of the workspace committed right after it.
      const remote = new LiveBus({ pool, connectionString: c.env.databaseUrl, logger });
      extraBuses.push(remote);
      const client = await pool.connect();
      try {
        await client.query('begin');
        await client.query('delete from api_tokens where id = $1', [tap.id]);
        await client.query('select pg_notify($1, $2)', [TOKENS_CHANNEL, tap.id]);
        await client.query('commit');
      } finally {
        client.release();
      }
      remote.publish([committed(c.tenant.tenantId, 'req_after_token_delete', 'not for the deleted token')]);
      await until(() => watcher.events.some((e) => e.id === 'req_after_token_delete'), 'the event on the admin stream');
      await until(() => t.ended, 'the stream of the deleted token to end');
      expect(t.events).toEqual([]);
    } finally {
      t.close();
      watcher.close();
      await pool.end();
    }
  });

  it('keeps a stream whose token changed but may still read, and holds back no event', async () => {
    const tap = await createToken('tap-renamed');
    const t = await tail(liveUrl, tap.token);
    try {
      const renamed = await c.env.http('PATCH', `/v1/admin/tokens/${tap.id}`, {
        token: c.tenant.token,
        body: { name: 'tap-renamed-again' },
      });
      expect(renamed.status).toBe(200);
      const after = await ask('asked after the tap token was renamed');
      await until(() => t.events.some((e) => e.id === after.id), 'the event after the rename');
      expect(t.ended).toBe(false);
    } finally {
      t.close();
    }
  });

  it('holds at most 10 streams open per token: the eleventh is a 429, and closing one makes room', async () => {
    const created = await c.env.http('POST', '/v1/admin/tokens', {
      token: c.tenant.token,
      body: { name: 'many tails' },
    });
    const token = created.body.token;
    const open = await Promise.all(Array.from({ length: 10 }, () => tail(liveUrl, token)));
    try {
      const refused = await fetch(`${liveUrl}${LIVE_PATH}`, { headers: { authorization: `Bearer ${token}` } });
      expect(refused.status).toBe(429);
      expect(((await refused.json()) as { error: { type: string } }).error.type).toBe('rate_limit_error');
      // Another token of the workspace is not counted with this one.
      const other = await tail(liveUrl, c.tenant.token);
      expect(other.status).toBe(200);
      other.close();
      open.pop()!.close();
      let again: Response | undefined;
      for (let i = 0; i < 50; i++) {
        again = await fetch(`${liveUrl}${LIVE_PATH}`, { headers: { authorization: `Bearer ${token}` } });
        if (again.status === 200) break;
        await again.body?.cancel();
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(again!.status).toBe(200);
      await again!.body?.cancel();
    } finally {
      for (const t of open) t.close();
    }
  });

  it('refuses missing and unknown tokens with the typed 401', async () => {
    expectTypedError(await fetchJson(`${liveUrl}${LIVE_PATH}`), 401, 'auth_error');
    expectTypedError(await fetchJson(`${liveUrl}${LIVE_PATH}`, 'gw_not-a-real-token'), 401, 'auth_error');
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await c.env.http('GET', '/openapi.json')).body;
    expect(doc.paths[LIVE_PATH]?.get?.responses?.['200']?.content?.['text/event-stream']).toBeDefined();
    expect(doc.paths[LIVE_PATH].get.operationId).toBe('analytics-live');
  });
});

describe('gatewayctl tail', () => {
  async function runTail(args: string[], during: () => Promise<void>, token = c.tenant.token): Promise<string> {
    const program = new Command('gatewayctl')
      .option('--url <url>')
      .option('--token <token>')
      .option('--json')
      .exitOverride()
      .configureOutput({ writeErr: () => undefined });
    registerTailCommand(program);
    const out: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      out.push(String(chunk));
      return true;
    });
    try {
      await until(() => bus.subscriberCount(c.tenant.tenantId) === 0, 'earlier streams to be released');
      const running = program.parseAsync(['node', 'gatewayctl', '--url', liveUrl, '--token', token, ...args]);
      await until(() => bus.subscriberCount(c.tenant.tenantId) === 1, 'the tail to subscribe');
      await new Promise((r) => setTimeout(r, 100));
      await during();
      await running;
    } finally {
      spy.mockRestore();
    }
    return out.join('');
  }

  it('prints one line per request and exits after --count', async () => {
    const asked: string[] = [];
    const out = await runTail(['tail', '--count', '2'], async () => {
      asked.push((await ask('tail one')).id, (await ask('tail two')).id);
    });
    const lines = out.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      new RegExp(
        `^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d  ${asked[0]}  openai/gpt-4o-mini  user-override  -  ok  \\d+ ms  \\d+->\\d+ tok  \\$[0-9.e-]+ "tail one"$`,
      ),
    );
    expect(lines[1]).toContain(asked[1]);
  });

  it('--json prints each raw event', async () => {
    let id = '';
    const out = await runTail(['--json', 'tail', '--count', '1'], async () => {
      id = (await ask('tail json')).id;
    });
    expect(JSON.parse(out.trim())).toMatchObject({ id, preview: 'tail json', routedBy: 'user-override' });
  });

  it('fails with the gateway error for a bad token', async () => {
    const program = new Command('gatewayctl')
      .option('--url <url>')
      .option('--token <token>')
      .option('--json')
      .exitOverride();
    registerTailCommand(program);
    await expect(
      program.parseAsync(['node', 'gatewayctl', '--url', liveUrl, '--token', 'gw_nope', 'tail']),
    ).rejects.toThrow(/^auth_error: /);
  });
});

describe('slow consumers', () => {
  it('queue at most maxQueue events, drop the oldest and report the count once drained', () => {
    const written: string[] = [];
    let full = false;
    let onDrain: (() => void) | undefined;
    const target = {
      write(chunk: string) {
        written.push(chunk);
        return !full;
      },
      once(_event: 'drain', listener: () => void) {
        onDrain = listener;
      },
    };
    const writer = new SseWriter(target, 3);
    writer.event({ n: 0 });
    full = true;
    writer.event({ n: 1 }); // accepted by the socket, which is now full
    for (let n = 2; n < 10; n++) writer.event({ n });
    writer.comment('keep-alive'); // not queued
    expect(writer.queued).toBe(3);
    expect(writer.dropped).toBe(5);
    expect(written).toHaveLength(2);
    full = false;
    onDrain!();
    expect(written.slice(2)).toEqual([
      'event: dropped\ndata: {"dropped":5,"totalDropped":5}\n\n',
      'data: {"n":7}\n\n',
      'data: {"n":8}\n\n',
      'data: {"n":9}\n\n',
    ]);
    expect(writer.queued).toBe(0);
  });

  it('hold() keeps events back until release(), and close() discards what was held', () => {
    const written: string[] = [];
    const target = { write: (chunk: string) => (written.push(chunk), true), once: () => undefined };
    const writer = new SseWriter(target, 10);
    writer.event({ n: 0 });
    writer.hold();
    writer.event({ n: 1 });
    writer.comment('keep-alive');
    expect(written).toEqual(['data: {"n":0}\n\n']);
    writer.release();
    writer.event({ n: 2 });
    expect(written).toEqual(['data: {"n":0}\n\n', 'data: {"n":1}\n\n', 'data: {"n":2}\n\n']);
    writer.hold();
    writer.event({ n: 3 });
    writer.close();
    writer.release();
    expect(written).toHaveLength(3);
  });

  it('keeps NOTIFY payloads under 8000 bytes', () => {
    const huge = 'é'.repeat(20_000);
    const payload = encodeLivePayload({ tenantId: 'ten_x', ...committedEvent('req_big'), preview: huge });
    expect(Buffer.byteLength(payload)).toBeLessThanOrEqual(7_900);
    const parsed = JSON.parse(payload);
    expect(parsed).toMatchObject({ tenantId: 'ten_x', id: 'req_big' });
    expect(parsed.preview.length).toBeGreaterThan(100);
  });
});

function committedEvent(id: string): LiveEvent {
  return {
    id,
    createdAt: new Date().toISOString(),
    provider: 'openai',
    model: 'gpt-4o-mini',
    taskType: null,
    complexity: null,
    routedBy: 'user-override',
    cached: false,
    status: 'ok',
    latencyMs: 1,
    inputTokens: 1,
    outputTokens: 1,
    cost: 0,
    preview: 'hi',
    endpoint: 'chat',
  };
}

async function fetchJson(url: string, token?: string) {
  const res = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.status, body: (await res.json()) as any };
}
