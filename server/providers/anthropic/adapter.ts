// Anthropic Messages API adapter. The base URL has no version segment (default
// https://api.anthropic.com); the adapter appends /v1/messages and /v1/models.
// Anthropic has no embeddings endpoint, so the optional embeddings method is omitted.
import {
  ProviderError,
  type CallOptions,
  type ChatChunk,
  type ChatCompletion,
  type ChatRequest,
  type ProviderAdapter,
  type ProviderSettings,
} from '../types.js';
import { getJson, jsonHeaders, postJson, postSse, type HttpOptions } from '../http.js';
import { isAbortedError } from '../http-errors.js';
import { settleStreamError } from '../stream-errors.js';
import { toAnthropicRequest } from './request.js';
import { fromAnthropicResponse, type AnthropicResponse } from './response.js';
import { AnthropicStreamTranslator } from './stream.js';

export const ANTHROPIC_VERSION = '2023-06-01';

export class AnthropicAdapter implements ProviderAdapter {
  readonly name: string;
  readonly family = 'anthropic' as const;
  private readonly baseUrl: string;
  private readonly headers: Record<string, string>;
  private readonly sseHeaders: Record<string, string>;
  private readonly builtinModels: string[];

  constructor(settings: ProviderSettings) {
    this.name = settings.name;
    this.baseUrl = settings.baseUrl.replace(/\/+$/, '');
    const auth: Record<string, string> = { 'anthropic-version': ANTHROPIC_VERSION };
    if (settings.apiKey) auth['x-api-key'] = settings.apiKey;
    this.headers = jsonHeaders(auth);
    this.sseHeaders = jsonHeaders(auth, 'text/event-stream');
    this.builtinModels = settings.builtinModels;
  }

  private http(opts: CallOptions): HttpOptions {
    return { provider: this.name, signal: opts.signal, timeoutMs: opts.timeoutMs };
  }

  async listModels(opts: CallOptions): Promise<string[]> {
    try {
      const res = await getJson<{ data?: Array<{ id?: unknown }> }>(`${this.baseUrl}/v1/models?limit=1000`, this.headers, this.http(opts));
      const ids = (Array.isArray(res?.data) ? res.data : []).map((m) => m?.id).filter((id): id is string => typeof id === 'string');
      return ids.length > 0 ? ids : this.builtinModels;
    } catch (err) {
      if (isAbortedError(err)) throw err;
      return this.builtinModels;
    }
  }

  async chat(req: ChatRequest, opts: CallOptions): Promise<ChatCompletion> {
    const { body, jsonTool } = toAnthropicRequest(req);
    const res = await postJson<AnthropicResponse>(`${this.baseUrl}/v1/messages`, this.headers, body, this.http(opts));
    if (!res || !Array.isArray(res.content)) {
      throw new ProviderError({ provider: this.name, status: 200, retryable: false, kind: 'parse', message: `${this.name} returned a message without content` });
    }
    return fromAnthropicResponse(res, jsonTool);
  }

  async *chatStream(req: ChatRequest, opts: CallOptions): AsyncGenerator<ChatChunk, void, undefined> {
    const { body, jsonTool } = toAnthropicRequest(req);
    body.stream = true;
    const tr = new AnthropicStreamTranslator(this.name, req.model, jsonTool);
    let yielded = false;
    try {
      for await (const ev of postSse(`${this.baseUrl}/v1/messages`, this.sseHeaders, body, this.http(opts))) {
        const chunk = tr.push(ev);
        if (chunk) {
          yielded = true;
          yield chunk;
        }
      }
      tr.end();
    } catch (err) {
      throw settleStreamError(err, this.name, yielded);
    }
  }
}
