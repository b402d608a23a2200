// Gemini API adapter. The base URL includes the version (default
// https://generativelanguage.googleapis.com/v1beta); the key travels in the x-goog-api-key header,
// never in the URL, so it cannot leak into logs of request lines.
import pMap from 'p-map';
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
import { toGeminiRequest } from './request.js';
import { FAILED_FINISH, fromGeminiResponse, type GeminiResponse } from './response.js';
import { GeminiStreamTranslator } from './stream.js';

interface ModelList {
  models?: Array<{ name?: unknown; supportedGenerationMethods?: unknown }>;
}

/** Generation methods of the models this adapter can serve: chat, and embeddings. */
const SERVED_METHODS: ReadonlySet<unknown> = new Set(['generateContent', 'embedContent', 'batchEmbedContents']);

/** The most requests one batchEmbedContents call takes. */
const GEMINI_MAX_BATCH = 100;

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
    const res = await postJson<GeminiResponse>(
      this.modelUrl(req.model, 'generateContent'),
      this.headers,
      toGeminiRequest(req, this.name),
      this.http(opts),
    );
    if (!res || typeof res !== 'object') {
      throw new ProviderError({
        provider: this.name,
        status: 200,
        retryable: false,
        kind: 'parse',
        message: `${this.name} returned an empty response`,
      });
    }
    if (res.candidates?.some((c) => c.finishReason === FAILED_FINISH)) {
      throw new ProviderError({
        provider: this.name,
        status: 200,
        retryable: false,
        kind: 'parse',
        message: `${this.name} finished its answer with ${FAILED_FINISH} (no usable answer)`,
      });
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
          const opening = tr.openingChunk();
          if (opening) yield opening;
          yield chunk;
          const finish = tr.finishChunk();
          if (finish) yield finish;
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
    const dims = typeof req['dimensions'] === 'number' ? req['dimensions'] : undefined;
    const url = this.modelUrl(req.model, 'batchEmbedContents');
    // batchEmbedContents takes at most 100 requests; OpenAI's endpoint takes 2,048 inputs. Larger
    // inputs go as several batches, EMBED_CONCURRENCY at a time (21 at once for 2,048 inputs is what
    // draws a 429), their vectors put back in input order. A batch refused with a retryable error
    // (a 429, a 5xx) is sent once more after the wait it asked for; a failure that stays stops the
    // batches not started yet, lets those in flight finish, and names the inputs of the batches
    // answered (Google bills them) in the error it throws.
    const batches: string[][] = [];
    for (let i = 0; i < inputs.length; i += GEMINI_MAX_BATCH) batches.push(inputs.slice(i, i + GEMINI_MAX_BATCH));
    const billedInputs: string[] = [];
    let failure: unknown;
    let failed = false;
    const answers = await pMap(
      batches,
      async (batch) => {
        if (failed) return undefined;
        const requests = batch.map((text) => {
          const one: Record<string, unknown> = { model, content: { parts: [{ text }] } };
          if (dims !== undefined) one['outputDimensionality'] = dims;
          return one;
        });
        const send = () =>
          postJson<{ embeddings?: Array<{ values?: number[] }> }>(url, this.headers, { requests }, this.http(opts));
        try {
          const answer = await (batches.length === 1 ? send() : retriedOnce(send, opts.signal));
          billedInputs.push(...batch);
          return answer;
        } catch (err) {
          if (!failed) [failed, failure] = [true, err];
          return undefined;
        }
      },
      { concurrency: EMBED_CONCURRENCY },
    );
    if (failed) {
      if (failure instanceof ProviderError && billedInputs.length > 0) failure.billedInputs = billedInputs;
      throw failure;
    }
    const data: EmbeddingsResponse['data'] = [];
    for (const [i, res] of answers.entries()) {
      if (!res || !Array.isArray(res.embeddings) || res.embeddings.length !== batches[i]!.length) {
        throw new ProviderError({
          provider: this.name,
          status: 200,
          retryable: false,
          kind: 'parse',
          message: `${this.name} returned no embedding for some inputs`,
        });
      }
      for (const e of res.embeddings) data.push({ object: 'embedding', index: data.length, embedding: e.values ?? [] });
    }
    // Gemini reports no token usage for embeddings: the core counts the input.
    return { object: 'list', data, model: req.model };
  }
}

/** Batches of one embeddings call sent at a time. */
const EMBED_CONCURRENCY = 4;
/** The longest a batch waits to be sent again (a Retry-After beyond it fails the call instead). */
const MAX_BATCH_RETRY_WAIT_MS = 2_000;

/** `send`, and once more after a retryable failure (waiting what the provider asked, within bounds). */
async function retriedOnce<T>(send: () => Promise<T>, signal: CallOptions['signal']): Promise<T> {
  try {
    return await send();
  } catch (err) {
    if (!(err instanceof ProviderError) || !err.retryable || signal.aborted) throw err;
    const wait = err.retryAfterMs ?? 250;
    if (wait > MAX_BATCH_RETRY_WAIT_MS) throw err;
    await new Promise((resolve) => setTimeout(resolve, wait));
    if (signal.aborted) throw err;
    return send();
  }
}
