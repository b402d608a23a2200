import type { Executor } from '../db/client.js';
import type { Logger } from '../lib/logger.js';
import { toStorableText } from '../lib/storable-text.js';
import type { Random } from '../lib/random.js';
import { judgeSamplesRepository } from './repository.js';
import type { RoutingState } from './routing/state.js';
import type { ChatCall } from './types.js';

// Picks a share of live traffic for the LLM judge (the workspace's sampleRate) and stores the
// exchange for the judge job. Off the response path: the insert is fire-and-forget and bounded,
// so a slow database drops samples instead of holding memory.

const MAX_IN_FLIGHT = 16;

export class JudgeSampler {
  private inFlight = 0;
  dropped = 0;

  constructor(
    private readonly db: Executor,
    private readonly routing: RoutingState,
    private readonly random: Random,
    private readonly logger: Logger,
  ) {}

  /** `answer` is only computed for the calls actually sampled. */
  offer(call: ChatCall, answer: () => string): void {
    if (call.costOnly) return;
    const judge = this.routing.judge(call.tenantId);
    if (!judge?.enabled || judge.sampleRate <= 0 || this.random() >= judge.sampleRate) return;
    if (this.inFlight >= MAX_IN_FLIGHT) {
      this.dropped++;
      return;
    }
    this.inFlight++;
    const prompt = call.messages.map((m) => ({
      role: m.role,
      content: typeof m.content === 'string' ? m.content : (m.content ?? []).filter((p) => p.type === 'text'),
    }));
    // A prompt may hold NUL or lone surrogates (a chat passes them on to its provider), which jsonb
    // and text refuse: the sample is stored with them replaced rather than lost.
    const promptJson = JSON.stringify(prompt, (_key, value: unknown) =>
      typeof value === 'string' ? toStorableText(value) : value,
    );
    judgeSamplesRepository
      .insert(this.db, call.tenantId, { requestId: call.requestId, promptJson, answer: toStorableText(answer()) })
      .catch((err: unknown) => this.logger.warn({ err: (err as Error).message }, 'judge sample not stored'))
      .finally(() => this.inFlight--);
  }
}
