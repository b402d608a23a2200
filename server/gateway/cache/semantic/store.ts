import type pg from 'pg';
import type { ChatCompletion } from '../../../providers/types.js';

// SQL for the semantic cache: the only reader and writer of semantic_cache_entries. Every
// statement is scoped by tenant_id. Inserts announce themselves (NOTIFY semantic_cache), so other
// gateway processes holding the workspace in memory add the entry too.

export const SEMANTIC_CACHE_CHANNEL = 'semantic_cache';

export interface StoredEntry {
  id: number;
  tenantId: string;
  provider: string;
  model: string;
  contextKey: string;
  embedding: Float32Array;
  completion: ChatCompletion;
  inputTokens: number;
  outputTokens: number;
  expiresAt: Date;
}

export interface NewEntry extends Omit<StoredEntry, 'id'> {
  embeddingModel: string;
}

interface Row {
  id: string | number;
  tenant_id: string;
  provider: string;
  model: string;
  context_key: string;
  embedding: Buffer;
  completion: ChatCompletion;
  input_tokens: number;
  output_tokens: number;
  expires_at: Date;
}

const COLUMNS =
  'id, tenant_id, provider, model, context_key, embedding, completion, input_tokens, output_tokens, expires_at';

function entryOf(r: Row): StoredEntry {
  // A copy: the Buffer may be a view into a larger pooled allocation with any alignment.
  const embedding = new Float32Array(r.embedding.byteLength / 4);
  Buffer.from(embedding.buffer).set(r.embedding);
  return {
    id: Number(r.id),
    tenantId: r.tenant_id,
    provider: r.provider,
    model: r.model,
    contextKey: r.context_key,
    embedding,
    completion: r.completion,
    inputTokens: r.input_tokens,
    outputTokens: r.output_tokens,
    expiresAt: r.expires_at,
  };
}

export class SemanticCacheStore {
  constructor(private readonly pool: pg.Pool) {}

  /** The workspace's live entries of one embedding model, newest first, at most `limit`. */
  async load(tenantId: string, embeddingModel: string, limit: number): Promise<StoredEntry[]> {
    const { rows } = await this.pool.query<Row>(
      `select ${COLUMNS} from semantic_cache_entries
        where tenant_id = $1 and embedding_model = $2 and expires_at > now()
        order by created_at desc limit $3`,
      [tenantId, embeddingModel, limit],
    );
    return rows.map(entryOf);
  }

  async get(tenantId: string, id: number): Promise<StoredEntry | undefined> {
    const { rows } = await this.pool.query<Row>(
      `select ${COLUMNS} from semantic_cache_entries where tenant_id = $1 and id = $2 and expires_at > now()`,
      [tenantId, id],
    );
    return rows[0] && entryOf(rows[0]);
  }

  /** Stores an entry and tells the other processes; resolves to its id. */
  async insert(e: NewEntry, origin: string): Promise<number> {
    const { rows } = await this.pool.query<{ id: string }>(
      `with added as (
         insert into semantic_cache_entries
           (tenant_id, provider, model, context_key, embedding_model, embedding, completion, input_tokens, output_tokens, expires_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning id)
       select id, pg_notify($11, json_build_object('t', $1::text, 'id', id, 'o', $12::text)::text) from added`,
      [
        e.tenantId,
        e.provider,
        e.model,
        e.contextKey,
        e.embeddingModel,
        Buffer.from(e.embedding.buffer, e.embedding.byteOffset, e.embedding.byteLength),
        JSON.stringify(e.completion),
        e.inputTokens,
        e.outputTokens,
        e.expiresAt,
        SEMANTIC_CACHE_CHANNEL,
        origin,
      ],
    );
    return Number(rows[0]!.id);
  }

  async remove(tenantId: string, ids: number[]): Promise<void> {
    if (ids.length === 0) return;
    await this.pool.query('delete from semantic_cache_entries where tenant_id = $1 and id = any($2::bigint[])', [
      tenantId,
      ids,
    ]);
  }

  /** Deletes the workspace's expired entries; resolves to how many. */
  async purgeExpired(tenantId: string): Promise<number> {
    const res = await this.pool.query(
      'delete from semantic_cache_entries where tenant_id = $1 and expires_at <= now()',
      [tenantId],
    );
    return res.rowCount ?? 0;
  }

  /** Deletes the workspace's entries (of one provider/model when given) and tells the other processes. */
  async clear(tenantId: string, scope: { provider: string; model: string } | null, origin: string): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>(
      `with gone as (
         delete from semantic_cache_entries
          where tenant_id = $1 and ($2::text is null or (provider = $2 and model = $3)) returning 1)
       select count(*)::int as n, pg_notify($4, json_build_object('t', $1::text, 'clear', true, 'p', $2::text, 'm', $3::text, 'o', $5::text)::text)
         from gone`,
      [tenantId, scope?.provider ?? null, scope?.model ?? null, SEMANTIC_CACHE_CHANNEL, origin],
    );
    return rows[0]?.n ?? 0;
  }

  /** Entries of the workspace per provider/model, for stats. */
  async counts(tenantId: string): Promise<Array<{ provider: string; model: string; entries: number }>> {
    const { rows } = await this.pool.query<{ provider: string; model: string; entries: number }>(
      `select provider, model, count(*)::int as entries from semantic_cache_entries
        where tenant_id = $1 and expires_at > now() group by 1, 2 order by 1, 2`,
      [tenantId],
    );
    return rows;
  }
}
