// One adapter for every provider that speaks the OpenAI Chat Completions API (OpenAI, Mistral,
// Groq, Together, DeepSeek, xAI, OpenRouter, Fireworks, Ollama/vLLM, the simulator). The gateway
// already speaks this format, so requests and responses pass through nearly untouched.
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
import { getJson, postJson, postSse, secretsOf } from '../http.js';
import { HttpAdapter } from '../http-adapter.js';
import { settleStreamError } from '../stream-errors.js';
import { forgetRawJson } from '../raw-json.js';
import { isRecord } from '../util.js';
import { withBillingDetail } from '../usage.js';
import { isErrorFinish, renamedFinish, withReasoningInCompletion } from './answer-rules.js';
import { flattenContentChunks } from './content-chunks.js';
import { withAcceptedFields, type AcceptedFields, type AcceptedFieldsFor } from './accepted-fields.js';
import { forOpenAIFormat } from './request.js';
import { modelListingOf } from './models.js';
import type { ListsModelKinds, ModelListing } from '../model-kind.js';
import { OpenAIStreamNormalizer } from './stream.js';

export interface OpenAICompatibleOptions {
  /**
   * Send `stream_options: { include_usage: true }` on streams. Some servers reject the field
   * (Mistral answers 422) but report usage on their own; for those set this to false.
   */
  streamUsageOption?: boolean;
  /** How this provider's reasoning models take a request (see vendors/); as sent when unset. */
  reasoningRules?: AcceptedFieldsFor;
  /** For an API that refuses fields it does not define: the ones it takes (see accepted-fields.ts). */
  acceptedFields?: AcceptedFields;
  /** The API knows the `developer` role (OpenAI's); when unset, such messages go as `system`. */
  developerRole?: boolean;
  /** A provider's own change to a request, after the field rules (vendors/); may refuse it. */
  adjustRequest?: (body: ChatRequest, provider: string) => ChatRequest;
}

export class OpenAICompatibleAdapter extends HttpAdapter implements ProviderAdapter, ListsModelKinds {
  readonly family = 'openai-compatible' as const;
  private readonly streamUsageOption: boolean;
  private readonly reasoningRules: AcceptedFieldsFor | undefined;
  private readonly acceptedFields: AcceptedFields | undefined;
  private readonly developerRole: boolean;
  private readonly adjustRequest: ((body: ChatRequest, provider: string) => ChatRequest) | undefined;

  constructor(settings: ProviderSettings, options: OpenAICompatibleOptions = {}) {
    super(settings, settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {});
    this.streamUsageOption = options.streamUsageOption ?? true;
    this.reasoningRules = options.reasoningRules;
    this.acceptedFields = options.acceptedFields;
    this.developerRole = options.developerRole ?? false;
    this.adjustRequest = options.adjustRequest;
  }

  /** `body` as the provider and model take it: as it is unless one of them needs it reshaped. */
  private shaped(body: ChatRequest): ChatRequest {
    const rules = this.reasoningRules?.(body.model);
    const shaped = rules ? withAcceptedFields(body, rules, this.name) : body;
    const accepted = this.acceptedFields ? withAcceptedFields(shaped, this.acceptedFields, this.name) : shaped;
    return this.adjustRequest ? this.adjustRequest(accepted, this.name) : accepted;
  }

  async listModels(opts: CallOptions): Promise<string[]> {
    return (await this.listModelKinds(opts)).ids;
  }

  /**
   * The models the provider lists, in OpenAI's shape or Together's bare array (models.ts), and
   * those its listing marks as not for chat. A listing without a single model id (an empty list,
   * or an answer in a shape not known here) is thrown like a failed request, so that the registry
   * falls back to the built-in list and says why (`discoveryError`) instead of doing so silently.
   */
  async listModelKinds(opts: CallOptions): Promise<ModelListing> {
    const answer = await getJson<unknown>(`${this.baseUrl}/models`, this.headers, this.http(opts));
    const listing = modelListingOf(answer);
    this.requireListed(listing.ids);
    return listing;
  }

  async chat(req: ChatRequest, opts: CallOptions): Promise<ChatCompletion> {
    // chat() is the non-streaming call whatever the incoming request said; the body is only copied
    // when stream fields have to be dropped.
    let body: ChatRequest = req;
    if (req.stream !== undefined || req.stream_options !== undefined) {
      const { stream: _stream, stream_options: _options, ...rest } = req;
      body = rest;
    }
    const messages = forOpenAIFormat(req.messages, this.developerRole);
    if (messages !== req.messages) body = Object.assign({}, body, { messages });
    body = this.shaped(body);
    // The answer keeps its upstream JSON text: it goes back to the client as it came.
    const res = await postJson<ChatCompletion>(
      `${this.baseUrl}/chat/completions`,
      this.headers,
      body,
      this.http(opts),
      true,
    );
    // A broken answer (no choice, or a choice without its message) is the provider's fault, like
    // one that is not JSON: the call falls back, and nothing of it is cached.
    if (!res || !Array.isArray(res.choices) || res.choices.length === 0) {
      throw new ProviderError({
        provider: this.name,
        status: 200,
        retryable: false,
        kind: 'parse',
        message: `${this.name} returned a completion without choices`,
      });
    }
    for (const choice of res.choices) {
      if (!isRecord(choice) || !isRecord(choice.message)) {
        throw new ProviderError({
          provider: this.name,
          status: 200,
          retryable: false,
          kind: 'parse',
          message: `${this.name} returned a choice without its message`,
        });
      }
      // In OpenAI's terms (answer-rules.ts): an "error" finish is a failed answer, not one to pass on or cache.
      if (isErrorFinish(choice.finish_reason)) {
        throw new ProviderError({
          provider: this.name,
          status: 200,
          retryable: false,
          kind: 'parse',
          message: `${this.name} ended its answer with finish_reason "error" (the provider failed mid-answer)`,
        });
      }
      const renamed = choice.finish_reason ? renamedFinish(choice.finish_reason) : undefined;
      if (renamed) {
        choice.finish_reason = renamed;
        forgetRawJson(res);
      }
      // Mistral's thinking and text chunks, as OpenAI's content and reasoning_content (content-chunks.ts).
      if (flattenContentChunks(choice.message as unknown as Record<string, unknown>, false)) forgetRawJson(res);
    }
    if (res.usage && withReasoningInCompletion(res.usage)) forgetRawJson(res);
    // The service tier the call was billed at (OpenAI's flex and priority tiers; usage.ts).
    const tier = (res as { service_tier?: unknown }).service_tier;
    if (res.usage && typeof tier === 'string') withBillingDetail(res.usage, { serviceTier: tier });
    return res;
  }

  async *chatStream(req: ChatRequest, opts: CallOptions): AsyncGenerator<ChatChunk, void, undefined> {
    // Copied key by key, not with a rest pattern or spread: see upstreamBody in gateway/pipeline.ts.
    const body = {} as ChatRequest;
    for (const key in req) if (key !== 'stream_options') body[key] = req[key];
    body.messages = forOpenAIFormat(req.messages, this.developerRole);
    body.stream = true;
    if (this.streamUsageOption) body.stream_options = Object.assign({}, req.stream_options, { include_usage: true });
    const norm = new OpenAIStreamNormalizer(this.name, req.model, secretsOf(this.headers));
    let yielded = false;
    try {
      for await (const ev of postSse(
        `${this.baseUrl}/chat/completions`,
        this.sseHeaders,
        this.shaped(body),
        this.http(opts),
      )) {
        const chunk = norm.push(ev);
        if (chunk) {
          yielded = true;
          // The held openings (one per choice index), in arrival order, before the first content.
          for (let opening = norm.takeOpening(); opening; opening = norm.takeOpening()) yield opening;
          yield chunk;
        }
      }
      const last = norm.end();
      if (last) {
        yielded = true;
        yield last;
      }
    } catch (err) {
      throw settleStreamError(err, this.name, yielded);
    }
  }

  async embeddings(req: EmbeddingsRequest, opts: CallOptions): Promise<EmbeddingsResponse> {
    // The answer keeps its upstream JSON text: a batch of float vectors is large, and goes back to
    // the client as it came instead of being encoded again.
    const res = await postJson<EmbeddingsResponse>(
      `${this.baseUrl}/embeddings`,
      this.headers,
      req,
      this.http(opts),
      true,
    );
    if (!res || !Array.isArray(res.data)) {
      throw new ProviderError({
        provider: this.name,
        status: 200,
        retryable: false,
        kind: 'parse',
        message: `${this.name} returned embeddings without data`,
      });
    }
    return res;
  }
}
