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
import { getJson, postJson, postSse } from '../http.js';
import { HttpAdapter } from '../http-adapter.js';
import { settleStreamError } from '../stream-errors.js';
import { toAnthropicRequest } from './request.js';
import { fromAnthropicResponse, type AnthropicResponse } from './response.js';
import { AnthropicStreamTranslator } from './stream.js';

export const ANTHROPIC_VERSION = '2023-06-01';

export class AnthropicAdapter extends HttpAdapter implements ProviderAdapter {
  readonly family = 'anthropic' as const;
  /** Kept out of the messages of errors reported inside a stream. */
  private readonly secrets: readonly string[];

  constructor(settings: ProviderSettings) {
    super(settings, {
      'anthropic-version': ANTHROPIC_VERSION,
      ...(settings.apiKey ? { 'x-api-key': settings.apiKey } : {}),
    });
    this.secrets = settings.apiKey ? [settings.apiKey] : [];
  }

  listModels(opts: CallOptions): Promise<string[]> {
    return this.discover(async () => {
      const res = await getJson<{ data?: Array<{ id?: unknown }> }>(
        `${this.baseUrl}/v1/models?limit=1000`,
        this.headers,
        this.http(opts),
      );
      return (Array.isArray(res?.data) ? res.data : [])
        .map((m) => m?.id)
        .filter((id): id is string => typeof id === 'string');
    });
  }

  async chat(req: ChatRequest, opts: CallOptions): Promise<ChatCompletion> {
    const { body, jsonTool } = toAnthropicRequest(req, this.name);
    const res = await postJson<AnthropicResponse>(`${this.baseUrl}/v1/messages`, this.headers, body, this.http(opts));
    if (!res || !Array.isArray(res.content)) {
      throw new ProviderError({
        provider: this.name,
        status: 200,
        retryable: false,
        kind: 'parse',
        message: `${this.name} returned a message without content`,
      });
    }
    return fromAnthropicResponse(res, jsonTool, req.model);
  }

  async *chatStream(req: ChatRequest, opts: CallOptions): AsyncGenerator<ChatChunk, void, undefined> {
    const { body, jsonTool } = toAnthropicRequest(req, this.name);
    body.stream = true;
    const tr = new AnthropicStreamTranslator(this.name, req.model, jsonTool, this.secrets);
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
