import { randomBytes } from 'node:crypto';
import type { Logger } from '../../../lib/logger.js';
import { forgetRawJson } from '../../../providers/raw-json.js';
import type { ChatCompletion, Usage } from '../../../providers/types.js';
import { newId, nowSeconds } from '../../../providers/util.js';
import type { ChatCall, Target } from '../../types.js';
import { type CachedCompletion, worthReplaying } from '../exact-cache.js';
import type { EmbeddingTarget } from './embedding-model.js';
import { type SemanticParts, semanticParts } from './request-parts.js';
import type { SemanticCacheStore, StoredEntry } from './store.js';
import { VectorIndex } from './vector-index.js';

// The semantic cache: the second layer behind the exact cache. A request whose last user turn is
// worded like one answered before, with everything else in it exactly equal (request-parts.ts),
// gets that answer. Entries live in Postgres (they survive restarts) and, per workspace, in this
// process's memory once the workspace is first served: one vector index per context key, so only
// requests with the same context are ever compared. The embedding of the last turn is a real
// upstream call, logged as a cost row of its own (request id semcache-<request id>).

/** Embeds `text` with `target` on behalf of `call` (logs the cost row); a unit vector. */
export type Embed = (call: ChatCall, target: EmbeddingTarget, text: string) => Promise<Float32Array>;

export interface SemanticCacheOptions {
  store: SemanticCacheStore;
  embed: Embed;
  /** The embedding model now (null: none available, the layer is off). */
  embeddingTarget: () => EmbeddingTarget | null;
  threshold: number;
  ttlMs: number;
  /** Entries per workspace; the least recently used go beyond it. */
  maxEntries: number;
  logger: Logger;
  /** How long a lookup waits for a workspace's first load before it counts as a miss. */
  loadWaitMs?: number;
}

/** What a miss carries to the store step, so the answer is not embedded twice. */
export interface SemanticMiss {
  parts: SemanticParts;
  vector: Float32Array;
  embeddingModel: string;
}

export type SemanticLookup = { hit: CachedCompletion & { similarity: number } } | { miss: SemanticMiss };

interface Entry {
  key: number;
  /** The row id; null while its insert is under way. */
  id: number | null;
  contextKey: string;
  provider: string;
  model: string;
  vector: Float32Array;
  completion: ChatCompletion;
  inputTokens: number;
  outputTokens: number;
  expiresAt: number;
  /** Evicted while its insert was under way: deleted once the id is known. */
  gone?: boolean;
}

class Workspace {
  /** Insertion order is recency: a hit moves its entry to the end, eviction takes the first. */
  readonly entries = new Map<number, Entry>();
  readonly partitions = new Map<string, VectorIndex>();
  readonly byId = new Map<number, number>();
}

export class SemanticCache {
  /** Per process: notifications this process sent are not applied twice. */
  readonly origin = randomBytes(6).toString('hex');
  private workspaces = new Map<string, Promise<Workspace>>();
  private loadedFor: string | undefined;
  private nextKey = 1;
  /** Lookups answered, for /v1/cache/stats (this process). */
  readonly tally = { lookups: 0, hits: 0, embedFailures: 0 };

  constructor(private readonly opts: SemanticCacheOptions) {}

  /** The answer for a reworded request, or what storing its answer needs; null when the layer cannot look. */
  async lookup(call: ChatCall, target: Target): Promise<SemanticLookup | null> {
    const et = this.opts.embeddingTarget();
    if (!et) return null;
    const parts = semanticParts(call.tenantId, target.provider, target.model, call.body, call.messages);
    if (!parts) return null;
    this.tally.lookups++;
    let vector: Float32Array;
    let ws: Workspace | undefined;
    try {
      [vector, ws] = await Promise.all([this.opts.embed(call, et, parts.lastTurn), this.workspace(call.tenantId, et)]);
    } catch (err) {
      // An embedding that failed is a miss without a store: the chat call itself goes on.
      this.tally.embedFailures++;
      this.opts.logger.debug({ err: (err as Error).message }, 'semantic cache: embedding failed');
      return null;
    }
    const miss: SemanticLookup = { miss: { parts, vector, embeddingModel: modelId(et) } };
    if (!ws) return miss;
    const near = ws.partitions.get(parts.contextKey)?.nearest(vector);
    if (!near || near.similarity < this.opts.threshold) return miss;
    const entry = ws.entries.get(near.key);
    if (!entry) return miss;
    if (entry.expiresAt <= Date.now()) {
      this.evict(call.tenantId, ws, entry);
      return miss;
    }
    // Most recently used: last in line for eviction.
    ws.entries.delete(entry.key);
    ws.entries.set(entry.key, entry);
    this.tally.hits++;
    return {
      hit: {
        completion: replay(entry.completion),
        inputTokens: entry.inputTokens,
        outputTokens: entry.outputTokens,
        similarity: near.similarity,
      },
    };
  }

  /** Keeps a completed answer for its miss (off the response path; a failure is logged, never thrown). */
  store(call: ChatCall, target: Target, miss: SemanticMiss, completion: ChatCompletion, usage: Usage): void {
    if (!worthReplaying(completion)) return;
    const et = this.opts.embeddingTarget();
    if (!et || modelId(et) !== miss.embeddingModel) return;
    const tenantId = call.tenantId;
    void this.workspace(tenantId, et, Infinity).then((ws) => {
      if (!ws) return;
      const entry = this.add(tenantId, ws, {
        id: null,
        contextKey: miss.parts.contextKey,
        provider: target.provider,
        model: target.model,
        vector: miss.vector,
        completion,
        inputTokens: usage.prompt_tokens,
        outputTokens: usage.completion_tokens,
        expiresAt: Date.now() + this.opts.ttlMs,
      });
      this.opts.store
        .insert(
          {
            tenantId,
            provider: entry.provider,
            model: entry.model,
            contextKey: entry.contextKey,
            embeddingModel: miss.embeddingModel,
            embedding: entry.vector,
            completion,
            inputTokens: entry.inputTokens,
            outputTokens: entry.outputTokens,
            expiresAt: new Date(entry.expiresAt),
          },
          this.origin,
        )
        .then((id) => {
          entry.id = id;
          ws.byId.set(id, entry.key);
          if (entry.gone) this.deleteRows(tenantId, [id]);
        })
        .catch((err: unknown) =>
          this.opts.logger.warn({ err: (err as Error).message }, 'semantic cache entry not stored'),
        );
    });
  }

  /** Drops the workspace's entries (of one provider/model when given) here and in the database. */
  async clear(tenantId: string, scope: { provider: string; model: string } | null): Promise<number> {
    const n = await this.opts.store.clear(tenantId, scope, this.origin);
    await this.forget(tenantId, scope);
    return n;
  }

  /** The workspace's live entries per provider/model (from the database: every process's). */
  counts(tenantId: string): Promise<Array<{ provider: string; model: string; entries: number }>> {
    return this.opts.store.counts(tenantId);
  }

  /** Applies another process's announcement (NOTIFY semantic_cache). */
  onNotification(payload: string): void {
    let msg: { t?: string; id?: number; clear?: boolean; p?: string | null; m?: string | null; o?: string };
    try {
      msg = JSON.parse(payload);
    } catch {
      return;
    }
    if (!msg.t || msg.o === this.origin || !this.workspaces.has(msg.t)) return;
    const tenantId = msg.t;
    if (msg.clear) {
      void this.forget(tenantId, msg.p && msg.m ? { provider: msg.p, model: msg.m } : null);
      return;
    }
    if (typeof msg.id !== 'number') return;
    const id = msg.id;
    void Promise.all([this.workspaces.get(tenantId), this.opts.store.get(tenantId, id)])
      .then(([ws, row]) => {
        if (ws && row && !ws.byId.has(id)) this.addStored(tenantId, ws, row);
      })
      .catch((err: unknown) =>
        this.opts.logger.debug({ err: (err as Error).message }, 'semantic cache: entry not fetched'),
      );
  }

  /** After a lost LISTEN connection, announcements may have been missed: workspaces load afresh. */
  reset(): void {
    this.workspaces.clear();
  }

  /** Entries held in this process for a workspace (tests, stats). */
  async held(tenantId: string): Promise<number> {
    const ws = await this.workspaces.get(tenantId);
    return ws?.entries.size ?? 0;
  }

  /**
   * The workspace's entries in memory, loaded on first use. A lookup waits at most loadWaitMs for
   * the first load (a large workspace), and counts as a miss meanwhile.
   */
  private async workspace(
    tenantId: string,
    et: EmbeddingTarget,
    waitMs = this.opts.loadWaitMs ?? 250,
  ): Promise<Workspace | undefined> {
    const model = modelId(et);
    // Another embedding model: what is held is not comparable with new vectors.
    if (this.loadedFor !== model) {
      this.workspaces.clear();
      this.loadedFor = model;
    }
    let loading = this.workspaces.get(tenantId);
    if (!loading) {
      loading = this.load(tenantId, model);
      this.workspaces.set(tenantId, loading);
      loading.catch(() => {
        if (this.workspaces.get(tenantId) === loading) this.workspaces.delete(tenantId);
      });
    }
    if (waitMs === Infinity) return loading;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), waitMs);
    });
    try {
      return await Promise.race([loading, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async load(tenantId: string, embeddingModel: string): Promise<Workspace> {
    await this.opts.store.purgeExpired(tenantId).catch(() => 0);
    const rows = await this.opts.store.load(tenantId, embeddingModel, this.opts.maxEntries);
    const ws = new Workspace();
    // Oldest first, so the newest are the last to be evicted. In slices, giving the event loop back
    // between them: adding to a large graph costs a fraction of a millisecond an entry, and a
    // workspace of 100,000 must not hold every other request up while it loads.
    for (let i = rows.length - 1; i >= 0; i--) {
      this.addStored(tenantId, ws, rows[i]!);
      if (i % LOAD_SLICE === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    // Large partitions build their graphs in slices: served once they are in.
    for (const index of ws.partitions.values()) await index.indexed();
    return ws;
  }

  private addStored(tenantId: string, ws: Workspace, row: StoredEntry): void {
    const entry = this.add(tenantId, ws, {
      id: row.id,
      contextKey: row.contextKey,
      provider: row.provider,
      model: row.model,
      vector: row.embedding,
      completion: row.completion,
      inputTokens: row.inputTokens,
      outputTokens: row.outputTokens,
      expiresAt: row.expiresAt.getTime(),
    });
    ws.byId.set(row.id, entry.key);
  }

  private add(tenantId: string, ws: Workspace, fields: Omit<Entry, 'key'>): Entry {
    const entry: Entry = { key: this.nextKey++, ...fields };
    let index = ws.partitions.get(entry.contextKey);
    if (!index) {
      index = new VectorIndex(entry.vector.length);
      ws.partitions.set(entry.contextKey, index);
    }
    if (index.dimensions !== entry.vector.length) return entry;
    index.add(entry.key, entry.vector);
    ws.entries.set(entry.key, entry);
    // Beyond the cap, the least recently used go (first in the map).
    const over: number[] = [];
    while (ws.entries.size > this.opts.maxEntries) {
      const oldest = ws.entries.values().next().value as Entry;
      this.drop(ws, oldest);
      if (oldest.id !== null) over.push(oldest.id);
      else oldest.gone = true;
    }
    this.deleteRows(tenantId, over);
    return entry;
  }

  private evict(tenantId: string, ws: Workspace, entry: Entry): void {
    this.drop(ws, entry);
    if (entry.id !== null) this.deleteRows(tenantId, [entry.id]);
    else entry.gone = true;
  }

  private drop(ws: Workspace, entry: Entry): void {
    ws.entries.delete(entry.key);
    if (entry.id !== null) ws.byId.delete(entry.id);
    const index = ws.partitions.get(entry.contextKey);
    index?.remove(entry.key);
    if (index && index.size === 0) ws.partitions.delete(entry.contextKey);
  }

  private deleteRows(tenantId: string, ids: number[]): void {
    if (ids.length === 0) return;
    this.opts.store
      .remove(tenantId, ids)
      .catch((err: unknown) =>
        this.opts.logger.warn({ err: (err as Error).message }, 'semantic cache: eviction not stored'),
      );
  }

  private async forget(tenantId: string, scope: { provider: string; model: string } | null): Promise<void> {
    const loading = this.workspaces.get(tenantId);
    if (!loading) return;
    if (!scope) {
      this.workspaces.delete(tenantId);
      return;
    }
    const ws = await loading.catch(() => undefined);
    if (!ws) return;
    for (const entry of [...ws.entries.values()])
      if (entry.provider === scope.provider && entry.model === scope.model) this.drop(ws, entry);
  }
}

/** Entries added between two yields to the event loop while a workspace loads. */
const LOAD_SLICE = 200;

const modelId = (t: EmbeddingTarget) => `${t.provider}/${t.model}`;

/** A stored answer replayed: a fresh id and created, as every answer has; the stored one is shared. */
function replay(stored: ChatCompletion): ChatCompletion {
  const completion: ChatCompletion = { ...stored, id: newId('chatcmpl-'), created: nowSeconds() };
  forgetRawJson(completion);
  return completion;
}
