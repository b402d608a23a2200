// Upstream HTTP exchanges on undici's dispatch interface, with one plain handler object per call.
// undici's request() wraps every answer in a Readable stream and an AsyncResource and parses all
// of its headers into an object; a gateway call needs none of that. Here a JSON answer is
// collected as a list of buffers, a stream's events are parsed as its bytes arrive, and headers are
// decoded (undici's parseHeaders) only when an error answer needs them (Retry-After).
//
// The handlers implement undici's callback interface (onConnect, onHeaders, onData, onComplete,
// onError), which undici 7 marks deprecated but still runs natively: its request() API is built
// on it. Handlers of the newer controller interface are wrapped by undici in an adapter that
// parses every answer's headers, the cost this file avoids. undici is pinned in package.json.
import { TextDecoder } from 'node:util';
import { createParser, type EventSourceMessage, type EventSourceParser } from 'eventsource-parser';
import type { Dispatcher } from 'undici';
import type { CallScope } from './call-scope.js';

/** One parsed server-sent event. */
export interface SseEvent {
  event?: string | undefined;
  data: string;
}

/** What every exchange shares: status and raw headers, the call scope's abort, settling once. */
abstract class Exchange {
  statusCode = 0;
  rawHeaders: Buffer[] = [];
  /** Set once the exchange completed or failed. */
  settled = false;
  /** The failure, when it failed. */
  failure: Error | undefined;
  protected resumeUpstream: (() => void) | undefined;
  private abortUpstream: ((err?: Error) => void) | undefined;
  private errorBody: Buffer[] | undefined;

  constructor(protected readonly scope: CallScope) {
    scope.addEventListener('abort', this.onScopeAbort);
  }

  get ok(): boolean {
    return this.statusCode >= 200 && this.statusCode < 300;
  }

  /** Ends the exchange early (the consumer stopped): the connection is closed, not reused. */
  abort(reason: Error): void {
    if (!this.settled) this.abortUpstream?.(reason);
  }

  onConnect(abort: (err?: Error) => void): void {
    if (this.scope.aborted) abort(this.scope.reason as Error);
    else this.abortUpstream = abort;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean {
    // 1xx informational answers are followed by the real one.
    if (statusCode < 200) return true;
    this.statusCode = statusCode;
    this.rawHeaders = rawHeaders;
    this.resumeUpstream = resume;
    if (!this.ok) this.errorBody = [];
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.errorBody) {
      this.errorBody.push(chunk);
      return true;
    }
    return this.onBody(chunk);
  }

  onComplete(): void {
    if (this.settled) return;
    if (!this.errorBody) this.onBodyEnd();
    this.settle(undefined);
  }

  onError(err: Error): void {
    if (!this.settled) this.settle(err);
  }

  /** The body of an error answer (status outside 2xx), as text. */
  errorText(): string {
    return bufferText(this.errorBody ?? []);
  }

  protected abstract onBody(chunk: Buffer): boolean;
  protected abstract onBodyEnd(): void;
  protected abstract onSettled(): void;

  private readonly onScopeAbort = (): void => {
    this.abortUpstream?.(this.scope.reason as Error);
  };

  private settle(failure: Error | undefined): void {
    this.settled = true;
    this.failure = failure;
    this.scope.removeEventListener('abort', this.onScopeAbort);
    this.onSettled();
  }
}

function bufferText(chunks: readonly Buffer[]): string {
  if (chunks.length === 0) return '';
  return chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
}

/** An exchange whose whole answer is wanted at once (JSON). */
export class WholeAnswer extends Exchange {
  /** Resolves when the answer is complete; rejects with the exchange's failure. */
  readonly finished: Promise<void>;
  private readonly chunks: Buffer[] = [];
  private resolve!: () => void;
  private reject!: (err: Error) => void;

  constructor(scope: CallScope) {
    super(scope);
    this.finished = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  /** The answer's body as text (2xx answers). */
  text(): string {
    return bufferText(this.chunks);
  }

  protected onBody(chunk: Buffer): boolean {
    this.chunks.push(chunk);
    return true;
  }

  protected onBodyEnd(): void {}

  protected onSettled(): void {
    if (this.failure) this.reject(this.failure);
    else this.resolve();
  }
}

/** Events parsed ahead of the consumer before the upstream socket is paused. */
const MAX_QUEUED_EVENTS = 256;

/**
 * An exchange whose answer is a server-sent event stream, parsed as its bytes arrive. The consumer
 * pulls events with take() and waits with whenReady() when there are none; upstream reading pauses
 * while too many wait unread.
 */
export class SseAnswer extends Exchange {
  private parser: EventSourceParser | undefined;
  private decoder: TextDecoder | undefined;
  private queue: EventSourceMessage[] = [];
  private head = 0;
  private paused = false;
  private wake: (() => void) | undefined;

  /** The next parsed event, if one is waiting. */
  take(): SseEvent | undefined {
    if (this.head === this.queue.length) return undefined;
    const ev = this.queue[this.head++];
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
      if (this.paused) {
        this.paused = false;
        this.resumeUpstream?.();
      }
    }
    return ev;
  }

  /** Resolves when an event is waiting or the exchange has settled. */
  whenReady(): Promise<void> {
    if (this.head < this.queue.length || this.settled) return Promise.resolve();
    return new Promise((resolve) => {
      this.wake = resolve;
    });
  }

  protected onBody(chunk: Buffer): boolean {
    if (!this.parser) {
      this.parser = createParser({ onEvent: (ev) => this.queue.push(ev) });
      this.decoder = new TextDecoder();
    }
    this.parser.feed(this.decoder!.decode(chunk, { stream: true }));
    if (this.head < this.queue.length) this.notify();
    if (this.queue.length - this.head < MAX_QUEUED_EVENTS) return true;
    this.paused = true;
    return false;
  }

  protected onBodyEnd(): void {
    // A last event without its trailing blank line still counts.
    if (!this.parser) return;
    this.parser.feed(this.decoder!.decode());
    this.parser.reset({ consume: true });
  }

  protected onSettled(): void {
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

/** Starts an exchange on `dispatcher`; the handler receives everything that follows. */
export function dispatchExchange(
  dispatcher: Dispatcher,
  opts: {
    origin: string;
    path: string;
    method: 'GET' | 'POST';
    headers: Record<string, string>;
    body: string | null;
    timeoutMs: number;
  },
  handler: Exchange,
): void {
  const timeout = Number.isFinite(opts.timeoutMs) && opts.timeoutMs > 0 ? opts.timeoutMs : 0;
  dispatcher.dispatch(
    {
      origin: opts.origin,
      path: opts.path,
      method: opts.method,
      headers: opts.headers,
      body: opts.body,
      // The call scope's own timer bounds the whole call; these only make undici's per-phase
      // timers no shorter.
      headersTimeout: timeout,
      bodyTimeout: timeout,
    },
    handler as unknown as Dispatcher.DispatchHandler,
  );
}
