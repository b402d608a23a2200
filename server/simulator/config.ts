// Mutable runtime state of one simulator: pacing, model lists, faults and the request log.
// configure() is shared by the in-process API and the POST /_simulator/config admin endpoint.
import { FaultEngine } from './faults.js';
import { HiddenQuality } from './hidden-quality.js';
import type { FaultRule, RecordedRequest, SimFormat, SimulatorOptions } from './types.js';

export const DEFAULT_MODELS: Record<SimFormat, readonly string[]> = {
  openai: [
    'gpt-4o',
    'gpt-4o-mini',
    'gpt-4.1',
    'gpt-4.1-mini',
    'gpt-4.1-nano',
    'o3-mini',
    'text-embedding-3-small',
    'text-embedding-3-large',
  ],
  anthropic: ['claude-opus-4-1', 'claude-sonnet-4-5', 'claude-3-5-haiku-latest'],
  gemini: ['gemini-2.5-pro', 'gemini-2.5-flash', 'gemini-2.0-flash', 'gemini-embedding-001'],
};

const DEFAULT_OUTPUT_TOKENS = 24;
const DEFAULT_SEED = 1;
const REQUEST_LOG_SIZE = 500;

export type ConfigPatch = Partial<Omit<SimulatorOptions, 'port' | 'host'>>;

export class SimState {
  latencyMs = 0;
  chunkDelayMs = 0;
  outputTokens = DEFAULT_OUTPUT_TOKENS;
  /** Hidden quality (1-5) per model, used to answer grading requests. */
  modelQualities: Record<string, number> = {};
  /** Scripted replies, first match wins. */
  replies: Array<{ whenContains: string; reply: string }> = [];
  /** Scripted embedding similarities, first match wins. */
  embeddingSimilarities: Array<{ whenContains: string; anchor: string; similarity: number }> = [];
  models: Record<SimFormat, { list: string[]; set: Set<string> }> = {
    openai: modelEntry(DEFAULT_MODELS.openai),
    anthropic: modelEntry(DEFAULT_MODELS.anthropic),
    gemini: modelEntry(DEFAULT_MODELS.gemini),
  };
  readonly faults: FaultEngine;
  /** Hidden quality per model and cell (marked by prompt text), possibly changing at a time; the judge's noise. */
  readonly hidden: HiddenQuality;
  /** The same array for the simulator's whole life, so `sim.requests` stays a live view. */
  readonly requests: RecordedRequest[] = [];
  private readonly initial: ConfigPatch;

  constructor(opts: SimulatorOptions) {
    this.initial = { ...opts };
    this.faults = new FaultEngine(opts.seed ?? DEFAULT_SEED);
    this.hidden = new HiddenQuality(opts.seed ?? DEFAULT_SEED);
    this.configure(opts);
  }

  configure(patch: ConfigPatch): void {
    if (patch.seed !== undefined) this.faults.reseed(patch.seed);
    if (patch.latencyMs !== undefined) this.latencyMs = nonNegative(patch.latencyMs, 'latencyMs');
    if (patch.tokensPerSecond !== undefined) {
      const tps = nonNegative(patch.tokensPerSecond, 'tokensPerSecond');
      this.chunkDelayMs = tps > 0 ? 1000 / tps : 0;
    }
    if (patch.chunkDelayMs !== undefined) this.chunkDelayMs = nonNegative(patch.chunkDelayMs, 'chunkDelayMs');
    if (patch.outputTokens !== undefined)
      this.outputTokens = Math.max(1, Math.floor(nonNegative(patch.outputTokens, 'outputTokens')));
    if (patch.modelQualities !== undefined) this.modelQualities = { ...patch.modelQualities };
    this.hidden.configure(patch);
    if (patch.replies !== undefined) {
      if (
        !Array.isArray(patch.replies) ||
        !patch.replies.every((r) => typeof r?.whenContains === 'string' && typeof r?.reply === 'string')
      )
        throw new TypeError('replies must be an array of {whenContains, reply} strings');
      this.replies = patch.replies.map((r) => ({ whenContains: r.whenContains, reply: r.reply }));
    }
    if (patch.embeddingSimilarities !== undefined) {
      if (
        !Array.isArray(patch.embeddingSimilarities) ||
        !patch.embeddingSimilarities.every(
          (r) =>
            typeof r?.whenContains === 'string' &&
            typeof r?.anchor === 'string' &&
            typeof r?.similarity === 'number' &&
            r.similarity >= -1 &&
            r.similarity <= 1,
        )
      )
        throw new TypeError('embeddingSimilarities must be an array of {whenContains, anchor, similarity in [-1, 1]}');
      this.embeddingSimilarities = patch.embeddingSimilarities.map((r) => ({ ...r }));
    }
    if (patch.models) {
      for (const f of ['openai', 'anthropic', 'gemini'] as const) {
        const list = patch.models[f];
        if (list === undefined) continue;
        if (!Array.isArray(list) || !list.every((m) => typeof m === 'string'))
          throw new TypeError(`models.${f} must be an array of strings`);
        this.models[f] = modelEntry(list);
      }
    }
    if (patch.faults !== undefined) {
      if (!Array.isArray(patch.faults)) throw new TypeError('faults must be an array');
      this.setFaults(patch.faults);
    }
  }

  setFaults(rules: FaultRule[]): void {
    this.faults.set(rules);
  }

  /** Back to the startup options: pacing, models, faults (counters restarted), seed; log emptied. */
  reset(): void {
    this.latencyMs = 0;
    this.chunkDelayMs = 0;
    this.outputTokens = DEFAULT_OUTPUT_TOKENS;
    this.modelQualities = {};
    this.hidden.configure({ cellQualities: [], gradeNoise: 0, seed: this.initial.seed ?? DEFAULT_SEED });
    this.replies = [];
    for (const f of ['openai', 'anthropic', 'gemini'] as const) this.models[f] = modelEntry(DEFAULT_MODELS[f]);
    this.faults.set([]);
    this.faults.reseed(this.initial.seed ?? DEFAULT_SEED);
    this.configure(this.initial);
    this.requests.length = 0;
  }

  record(r: RecordedRequest): void {
    // Dropping from the front is a short memmove at this size; cheaper than ring index bookkeeping
    // for the readers, who want a plain ordered array.
    if (this.requests.length >= REQUEST_LOG_SIZE) this.requests.shift();
    this.requests.push(r);
  }

  snapshot(): Record<string, unknown> {
    return {
      latencyMs: this.latencyMs,
      chunkDelayMs: this.chunkDelayMs,
      outputTokens: this.outputTokens,
      models: {
        openai: this.models.openai.list,
        anthropic: this.models.anthropic.list,
        gemini: this.models.gemini.list,
      },
      faults: this.faults.list(),
    };
  }
}

function modelEntry(list: readonly string[]): { list: string[]; set: Set<string> } {
  return { list: [...list], set: new Set(list) };
}

function nonNegative(v: unknown, name: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
    throw new TypeError(`${name} must be a non-negative number`);
  return v;
}
