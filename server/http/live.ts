import type { Express, Request, Response } from 'express';
import type { LiveBus, LiveEvent } from '../gateway/live-bus.js';
import { GatewayError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import type { Principal } from '../modules/tokens/authenticator.js';
import { registerOpenApiPaths } from '../trpc/openapi.js';
import { reportError, sendError } from './errors.js';

// GET /v1/analytics/live: Server-Sent Events, one `data:` JSON event per request of the caller's
// workspace completed anywhere in the cluster (see LiveBus), `: keep-alive` comments in between.
// A consumer that reads slower than events arrive gets a bounded queue: the oldest events are
// dropped and an `event: dropped` with the count is sent once it catches up.
//
// A stream lasts only as long as its token may read. When the bus hears that the token changed
// (disabled, deleted, edited), which it does before any event committed after the change, the
// stream holds its events, reads the token again from the database and either goes on or ends
// without sending them. Every keep-alive also re-resolves the token (from the authenticator's
// cache), which covers changes nobody announced within the cache's refresh period.

export const LIVE_PATH = '/v1/analytics/live';

export interface LiveRouteDeps {
  auth: {
    authenticate(header: string | undefined): Promise<Principal>;
    /** Drops cached tokens, so the next authenticate reads the database. */
    invalidate(): void;
  };
  /** Bearer or session cookie (the services' request authenticator); without it, bearer tokens only. */
  signIn?: { requestAuth: { authenticate(req: Request): Promise<Principal> } };
  logger: Logger;
  liveBus?: LiveBus;
}

export interface LiveRouteOptions {
  /** Comment sent when nothing else was, so proxies keep the connection (default 15 s). */
  keepAliveMs?: number;
  /** Events held for a consumer that is not reading (default 1000). */
  maxQueue?: number;
}

/** The part of a response the stream writes to. */
export interface SseTarget {
  write(chunk: string): boolean;
  once(event: 'drain', listener: () => void): unknown;
}

/** Writes SSE frames with a bounded queue while the socket is full. */
export class SseWriter {
  /** Events dropped because the consumer did not keep up. */
  dropped = 0;
  private queue: string[] = [];
  private blocked = false;
  /** Events are held (queued as if the socket were full) until release(). */
  private held = false;
  private unreported = 0;
  private closed = false;

  constructor(
    private readonly target: SseTarget,
    private readonly maxQueue: number,
  ) {}

  event(data: unknown): void {
    this.frame(`data: ${JSON.stringify(data)}\n\n`, true);
  }

  comment(text: string): void {
    // Comments are only worth sending on an idle socket.
    if (!this.blocked && !this.held) this.frame(`: ${text}\n\n`, false);
  }

  /** Queue events instead of sending them until release(). */
  hold(): void {
    this.held = true;
  }

  /** Send what hold() queued, and events from now on. */
  release(): void {
    if (!this.held) return;
    this.held = false;
    if (!this.blocked) this.sendQueued();
  }

  get queued(): number {
    return this.queue.length;
  }

  close(): void {
    this.closed = true;
    this.queue = [];
  }

  private frame(text: string, droppable: boolean): void {
    if (this.closed) return;
    if (this.blocked || this.held) {
      if (!droppable) return;
      this.queue.push(text);
      if (this.queue.length > this.maxQueue) {
        const over = this.queue.length - this.maxQueue;
        this.queue.splice(0, over);
        this.dropped += over;
        this.unreported += over;
      }
      return;
    }
    this.send(text);
  }

  private send(text: string): void {
    if (this.target.write(text)) return;
    this.blocked = true;
    this.target.once('drain', () => this.drain());
  }

  private drain(): void {
    this.blocked = false;
    if (this.closed || this.held) return;
    this.sendQueued();
  }

  private sendQueued(): void {
    if (this.unreported > 0) {
      const n = this.unreported;
      this.unreported = 0;
      this.send(`event: dropped\ndata: ${JSON.stringify({ dropped: n, totalDropped: this.dropped })}\n\n`);
    }
    while (!this.blocked && this.queue.length) this.send(this.queue.shift()!);
  }
}

/**
 * Live streams a token, and this process, may hold open: each one that does not read holds up to
 * maxQueue frames, and every event is written to each. Beyond, a new subscription is a 429.
 */
const MAX_STREAMS_PER_TOKEN = 10;
const MAX_STREAMS = 1_000;

export function mountLive(app: Express, deps: LiveRouteDeps, opts: LiveRouteOptions = {}): void {
  const keepAliveMs = opts.keepAliveMs ?? 15_000;
  const maxQueue = opts.maxQueue ?? 1_000;
  const openByToken = new Map<string, number>();
  let open = 0;

  const authenticate = (req: Request) =>
    deps.signIn ? deps.signIn.requestAuth.authenticate(req) : deps.auth.authenticate(req.headers.authorization);

  app.get(LIVE_PATH, (req: Request, res: Response) => {
    authenticate(req).then(
      (principal) => stream(principal, req, res),
      (err: unknown) => reportError(deps.logger, res, err),
    );
  });

  /** Whether the stream's token, resolved again, still reads the same workspace. */
  const mayStillRead = (req: Request, principal: Principal): Promise<boolean> =>
    authenticate(req).then(
      (now) => now.tokenId === principal.tokenId && now.tenantId === principal.tenantId,
      () => false,
    );

  function stream(principal: Principal, req: Request, res: Response): void {
    const bus = deps.liveBus;
    if (!bus)
      return sendError(res, new GatewayError('service_unavailable', 'The live tap is not available on this gateway'));
    if (req.socket.destroyed) return;
    const mine = openByToken.get(principal.tokenId) ?? 0;
    if (mine >= MAX_STREAMS_PER_TOKEN || open >= MAX_STREAMS) {
      const message =
        mine >= MAX_STREAMS_PER_TOKEN
          ? `This token has ${mine} live streams open, the most it may`
          : 'This gateway has as many live streams open as it takes';
      return sendError(res, new GatewayError('rate_limit_error', `${message}: close one first`));
    }
    openByToken.set(principal.tokenId, mine + 1);
    open++;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.flushHeaders();
    req.socket.setNoDelay(true);
    const writer = new SseWriter(res, maxQueue);
    let done = false;
    const cleanup = () => {
      if (done) return;
      done = true;
      open--;
      const left = (openByToken.get(principal.tokenId) ?? 1) - 1;
      if (left > 0) openByToken.set(principal.tokenId, left);
      else openByToken.delete(principal.tokenId);
      clearInterval(keepAlive);
      subscription.unsubscribe();
      writer.close();
    };
    const end = () => {
      if (done) return;
      cleanup();
      res.end();
    };
    // Token checks in flight that hold the events back.
    let holding = 0;
    const onTokenChange = () => {
      if (done) return;
      writer.hold();
      holding++;
      // The authenticator drops its cache on the same announcement, perhaps a moment later: drop
      // it now, so this check reads the change from the database rather than the stale entry.
      deps.auth.invalidate();
      void mayStillRead(req, principal).then((ok) => {
        if (!ok) return end();
        if (--holding === 0) writer.release();
      });
    };
    // The bus ends subscriptions on shutdown: finish the response so the server can close.
    const subscription = bus.subscribe(principal.tenantId, (event: LiveEvent) => writer.event(event), end, {
      tokenId: principal.tokenId,
      onChange: onTokenChange,
    });
    const keepAlive = setInterval(() => {
      writer.comment('keep-alive');
      void mayStillRead(req, principal).then((ok) => {
        if (!ok) end();
      });
    }, keepAliveMs);
    res.on('close', cleanup);
    res.on('error', cleanup);
    // Tells the client it is subscribed: events committed from now on will arrive.
    subscription.ready.then(
      () => writer.comment('connected'),
      () => undefined,
    );
  }
}

registerOpenApiPaths({
  [LIVE_PATH]: {
    get: {
      operationId: 'analytics-live',
      tags: ['Analytics'],
      summary: 'Live tail of completed requests (Server-Sent Events)',
      description:
        'One `data:` event per request of this workspace (chat completions, live, cached or streamed, and embeddings calls) as soon as its request row is committed, from every gateway process sharing the database. ' +
        'Event fields: id, createdAt, provider, model, taskType, complexity, routedBy, cached, status, latencyMs, inputTokens, outputTokens, cost (USD), preview (start of the last user message). ' +
        'A `: connected` comment follows the subscription, `: keep-alive` comments every 15 s. A consumer that falls behind loses the oldest events and receives `event: dropped` with `{"dropped", "totalDropped"}`. Nothing is stored: events are not replayed. ' +
        'The stream ends as soon as its token is disabled or deleted: no event committed after the change is sent.',
      security: [{ bearerAuth: [] }],
      responses: {
        '200': {
          description:
            'An event stream that stays open until the client disconnects or the token is disabled or deleted',
          content: {
            'text/event-stream': {
              schema: {
                type: 'string',
                description:
                  'data: {"id":"req_...","createdAt":"...","provider":"openai","model":"gpt-4o-mini","taskType":"qa","complexity":"simple","routedBy":"classification","cached":false,"status":"ok","latencyMs":412,"inputTokens":25,"outputTokens":60,"cost":0.0000398,"preview":"What is ..."}',
              },
            },
          },
        },
        '401': {
          description: 'Missing, malformed, unknown or disabled token',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
        '503': {
          description: 'The live tap is not configured on this gateway',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      },
    },
  },
});
