// Gemini API adapter. The base URL includes the version (default
// https://generativelanguage.googleapis.com/v1beta); the key travels in the x-goog-api-key header,
// never in the URL, so it cannot leak into logs of request lines.
import {
  ProviderError,
  type CallOptions,
  type ChatChunk,
  type ChatCompletion,
  type ChatRequest,
  type EmbeddingsRequest,
  type EmbeddingsResponse,
  type ProviderAdapter,
  type ProviderSettings,
} from '../types.js';
import { getJson, postJson, postSse } from '../http.js';
import { HttpAdapter } from '../http-adapter.js';
import { settleStreamError } from '../stream-errors.js';
import { estimateTokens } from '../token-count.js';
import { toGeminiRequest } from './request.js';
import { fromGeminiResponse, type GeminiResponse } from './response.js';
import { GeminiStreamTranslator } from './stream.js';

interface ModelList { models?: Array<{ name?: unknown; supportedGenerationMethods?: unknown }> }

/** Generation methods of the models this adapter can serve: chat, and embeddings. */
const SERVED_METHODS: ReadonlySet<unknown> = new Set(['generateContent', 'embedContent', 'batchEmbedContents']);

export class GeminiAdapter extends HttpAdapter implements ProviderAdapter {
  readonly family = 'gemini' as const;
  /** Kept out of the messages of errors reported inside a stream. */
  private readonly secrets: readonly string[];

  constructor(settings: ProviderSettings) {
    super(settings, settings.apiKey ? { 'x-goog-api-key': settings.apiKey } : {});
    this.secrets = settings.apiKey ? [settings.apiKey] : [];
  }

  private modelUrl(model: string, method: string): string {
    return `${this.baseUrl}/models/${model.startsWith('models/') ? model.slice(7) : model}:${method}`;
  }

  listModels(opts: CallOptions): Promise<string[]> {
    return this.discover(async () => {
      const res = await getJson<ModelList>(`${this.baseUrl}/models?pageSize=1000`, this.headers, this.http(opts));
      const ids: string[] = [];
      for (const m of Array.isArray(res?.models) ? res.models : []) {
        if (typeof m?.name !== 'string') continue;
        const methods = m.supportedGenerationMethods;
        // Models that chat or embed (routing keeps embedding models out of chat: model-kind.ts);
        // not image, video or live-audio models, which take other methods.
        if (Array.isArray(methods) && !methods.some((x) => SERVED_METHODS.has(x))) continue;
        ids.push(m.name.startsWith('models/') ? m.name.slice(7) : m.name);
      }
      return ids;
    });
  }

  async chat(req: ChatRequest, opts: CallOptions): Promise<ChatCompletion> {
    const res = await postJson<GeminiResponse>(this.modelUrl(req.model, 'generateContent'), this.headers, toGeminiRequest(req, this.name), this.http(opts));
    if (!res || typeof res !== 'object') {
      throw new ProviderError({ provider: this.name, status: 200, retryable: false, kind: 'parse', message: `${this.name} returned an empty response` });
    }
    return fromGeminiResponse(res, req.model);
  }

  async *chatStream(req: ChatRequest, opts: CallOptions): AsyncGenerator<ChatChunk, void, undefined> {
    const url = `${this.modelUrl(req.model, 'streamGenerateContent')}?alt=sse`;
    const tr = new GeminiStreamTranslator(this.name, req.model, this.secrets);
    let yielded = false;
    try {
      for await (const ev of postSse(url, this.sseHeaders, toGeminiRequest(req, this.name), this.http(opts))) {
        const chunk = tr.push(ev);
        if (chunk) {
          yielded = true;
          yield chunk;
        }
      }
      yield tr.end();
    } catch (err) {
      throw settleStreamError(err, this.name, yielded);
    }
  }

  async embeddings(req: EmbeddingsRequest, opts: CallOptions): Promise<EmbeddingsResponse> {
    const inputs = typeof req.input === 'string' ? [req.input] : req.input;
    const model = req.model.startsWith('models/') ? req.model : `models/${req.model}`;
    const dims = typeof req['dimensions'] === 'number' ? { outputDimensionality: req['dimensions'] } : {};
    const body = { requests: inputs.map((text) => ({ model, content: { parts: [{ text }] }, ...dims })) };
    const res = await postJson<{ embeddings?: Array<{ values?: number[] }> }>(this.modelUrl(req.model, 'batchEmbedContents'), this.headers, body, this.http(opts));
    if (!res || !Array.isArray(res.embeddings)) {
      throw new ProviderError({ provider: this.name, status: 200, retryable: false, kind: 'parse', message: `${this.name} returned no embeddings` });
    }
    // Gemini reports no token usage for embeddings; a character-based estimate keeps cost logging going.
    let tokens = 0;
    for (const t of inputs) tokens += estimateTokens(t);
    return {
      object: 'list',
      data: res.embeddings.map((e, index) => ({ object: 'embedding', index, embedding: e.values ?? [] })),
      model: req.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    };
  }
}
