import type { SseCall } from '../http.js';
import { settleStreamError } from '../stream-errors.js';
import type { ChatChunk, ChatRequest } from '../types.js';
import { estimateUsage } from '../usage.js';
import type { OpenAIStreamNormalizer } from './stream.js';

// An OpenAI-compatible chat stream as one async iterator: each upstream event is polled from the
// call and normalised in the same step, with no async generator per layer (the HTTP events, then
// the chunks). A chunk costs its consumer one promise; on a core that idles between chunks each
// extra layer of generators was a measurable part of the time to the first chunk.
export class OpenAIChunkStream implements AsyncIterableIterator<ChatChunk> {
  /** Chunks ready to hand on: the held opening goes just before the first content chunk. */
  private readonly queued: ChatChunk[] = [];
  private done = false;
  private yielded = false;

  constructor(
    private readonly call: SseCall,
    private readonly norm: OpenAIStreamNormalizer,
    private readonly provider: string,
    /** The request, for counting tokens when the upstream reports no usage. */
    private readonly req: ChatRequest,
  ) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  async next(): Promise<IteratorResult<ChatChunk>> {
    try {
      for (;;) {
        const chunk = this.queued.shift();
        if (chunk) return { value: chunk, done: false };
        if (this.done) return { value: undefined, done: true };
        const ev = this.call.poll();
        if (ev === undefined) await this.call.ready();
        else if (ev === null) await this.finish();
        else this.accept(this.norm.push(ev));
      }
    } catch (err) {
      this.stop();
      throw settleStreamError(err, this.provider, this.yielded);
    }
  }

  async return(): Promise<IteratorResult<ChatChunk>> {
    this.stop();
    return { value: undefined, done: true };
  }

  private accept(chunk: ChatChunk | undefined): void {
    if (!chunk) return;
    this.yielded = true;
    const opening = this.norm.takeOpening();
    if (opening) this.queued.push(opening);
    this.queued.push(chunk);
  }

  /** The events are over: the final usage chunk, reported or counted. */
  private async finish(): Promise<void> {
    this.done = true;
    const last = this.norm.end();
    if (last) {
      this.yielded = true;
      this.queued.push(last);
    } else if (this.norm.needsUsageEstimate) {
      this.queued.push(this.norm.estimatedUsageChunk(await estimateUsage(this.req, this.norm.completionText())));
    }
  }

  private stop(): void {
    this.done = true;
    this.queued.length = 0;
    this.call.close();
  }
}
