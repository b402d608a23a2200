import type { EmbeddingsRequest, EmbeddingsResponse } from '../contracts/chat.js';
import type { GatewayMeta, NamedMembers } from './chat-types.js';
import { jsonAnswerOf, postJson } from './http.js';

// `gw.embeddings.create(body)` against POST /v1/embeddings: OpenAI's embeddings request and
// answer, plus `_gateway`. The model is always named; there is no routing stage.

/** OpenAI's embeddings body. `model` is `provider/model` or a bare id. */
export interface GatewayEmbeddingsRequest extends Omit<NamedMembers<EmbeddingsRequest>, 'input'> {
  /** Text, texts, or token arrays (OpenAI-compatible providers only). */
  input: string | string[] | number[] | number[][];
  dimensions?: number;
  /** base64: each vector as base64 of little-endian float32. */
  encoding_format?: 'float' | 'base64';
  /** Any other field, passed through where the provider supports it. */
  [k: string]: unknown;
}

export type GatewayEmbeddings = EmbeddingsResponse & { _gateway: GatewayMeta };

export interface EmbeddingsCallOptions {
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

export interface EmbeddingsApi {
  create(body: GatewayEmbeddingsRequest, opts?: EmbeddingsCallOptions): Promise<GatewayEmbeddings>;
}

const EMBEDDINGS_PATH = '/v1/embeddings';

export function embeddingsApi(
  baseUrl: string,
  headers: () => Record<string, string>,
  fetchImpl: typeof fetch,
): EmbeddingsApi {
  return {
    async create(body, opts = {}) {
      const res = await postJson(fetchImpl, `${baseUrl}${EMBEDDINGS_PATH}`, { ...headers(), ...opts.headers }, body, {
        accept: 'application/json',
        signal: opts.signal,
      });
      return jsonAnswerOf<GatewayEmbeddings>(res);
    },
  };
}
