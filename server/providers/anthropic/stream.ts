// Anthropic streaming events -> OpenAI chat.completion.chunk objects.
//
// message_start            -> nothing yet (id, model and input tokens are remembered; the role is sent
//                             with the first real delta so a stream that dies right after message_start
//                             has yielded nothing and can still fall back)
// content_block_start      -> tool_use: tool-call delta with index, id, type, name and empty arguments
// content_block_delta      -> text_delta: content delta; input_json_delta: tool-call argument fragment;
//                             thinking_delta: reasoning_content delta (the block itself is kept for
//                             the next tool call, thinking.ts)
// content_block_stop       -> for a tool_use block that got no argument text: arguments "{}"
// message_delta            -> finish chunk (stop_reason mapped), output tokens remembered
// message_stop             -> final usage chunk with `choices: []`
// ping, other block stops  -> nothing; error -> ProviderError
//
// A tool without parameters streams as content_block_start with `input: {}` followed by only
// empty `partial_json` fragments; the non-streamed answer gives its input as {}, so the stream
// must end that call's arguments as "{}" too, never "".
import { ProviderError, type ChatChunk, type FinishReason } from '../types.js';
import type { SseEvent } from '../http.js';
import { isRetryableStatus, redact } from '../http-errors.js';
import { streamFailure } from '../stream-errors.js';
import { isRecord, newId, nowSeconds, usageChunk } from '../util.js';
import { JSON_TOOL_NAME } from './request.js';
import { mapStopReason, refusalOf, toUsage, type AnthropicUsage } from './response.js';
import { isThinkingBlock, withThinking } from './thinking.js';

type Delta = ChatChunk['choices'][number]['delta'];
type ToolCallDelta = NonNullable<Delta['tool_calls']>[number];

/** The arguments of a call whose input is empty, as JSON.stringify({}) gives them unstreamed. */
const EMPTY_INPUT = '{}';

// Anthropic error types -> the HTTP status they are documented with, so retry rules apply uniformly.
const ERROR_STATUS: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

export class AnthropicStreamTranslator {
  private id = '';
  private model: string;
  private readonly created = nowSeconds();
  private roleSent = false;
  private readonly toolIndex = new Map<number, number>();
  private readonly jsonBlocks = new Set<number>();
  /** Tool and JSON-tool blocks (by block index) that have received argument text. */
  private readonly blocksWithInput = new Set<number>();
  private nextTool = 0;
  /** The model the request named: the tool calls' thinking blocks are kept for it (thinking.ts). */
  private readonly requestedModel: string;
  /** Thinking blocks since the last tool call, in order (allocated with a stream's first one). */
  private thinking: Array<Record<string, unknown>> | undefined;
  /** Those blocks by block index, while their deltas stream. */
  private thinkingAt: Map<number, Record<string, unknown>> | undefined;
  private input = 0;
  private cacheWrite = 0;
  private cacheRead = 0;
  /** Of the cache writes, those written for 1 hour. */
  private cacheWrite1h = 0;
  private serviceTier: string | null = null;
  private completion = 0;
  private done = false;
  private finish: FinishReason = null;

  /** `secrets`: credentials to keep out of error messages (an upstream may echo them back). */
  constructor(
    private readonly provider: string,
    model: string,
    private readonly jsonTool: boolean,
    private readonly secrets: readonly string[] = [],
  ) {
    this.model = model;
    this.requestedModel = model;
  }

  get finished(): boolean {
    return this.done;
  }

  push(ev: SseEvent): ChatChunk | undefined {
    if (this.done || ev.data === '') return undefined;
    const e: unknown = JSON.parse(ev.data);
    if (!isRecord(e)) return undefined;
    switch (e['type']) {
      case 'message_start': {
        const msg = isRecord(e['message']) ? e['message'] : {};
        if (typeof msg['id'] === 'string') this.id = msg['id'];
        if (typeof msg['model'] === 'string') this.model = msg['model'];
        this.takeUsage(msg['usage'] as AnthropicUsage | undefined);
        return undefined;
      }
      case 'content_block_start':
        return this.blockStart(e['index'] as number, isRecord(e['content_block']) ? e['content_block'] : {});
      case 'content_block_delta':
        return this.blockDelta(e['index'] as number, isRecord(e['delta']) ? e['delta'] : {});
      case 'content_block_stop':
        return this.blockStop(e['index'] as number);
      case 'message_delta': {
        const delta = isRecord(e['delta']) ? e['delta'] : {};
        this.finish = mapStopReason(delta['stop_reason'] as string | null | undefined);
        if (this.finish === 'tool_calls' && this.jsonBlocks.size > 0 && this.nextTool === 0) this.finish = 'stop';
        this.takeUsage(e['usage'] as AnthropicUsage | undefined);
        // A refusal says why in the finish chunk, as OpenAI streams `delta.refusal`.
        const refusal = refusalOf({
          stop_reason: delta['stop_reason'] as string | null | undefined,
          stop_details: isRecord(delta['stop_details']) ? delta['stop_details'] : null,
        });
        return this.chunk(refusal === null ? {} : { refusal }, this.finish ?? 'stop');
      }
      case 'message_stop':
        // Anthropic always sends message_delta with the stop_reason first: a stream that carried
        // neither that nor any content is a broken answer, not an empty one (the gateway falls back).
        if (this.finish === null && !this.roleSent)
          throw streamFailure(this.provider, 'stream ended without an answer (no content and no stop_reason)');
        this.done = true;
        return usageChunk(
          this.id || newId('msg_'),
          this.created,
          this.model,
          toUsage({
            input_tokens: this.input,
            output_tokens: this.completion,
            cache_creation_input_tokens: this.cacheWrite,
            cache_read_input_tokens: this.cacheRead,
            cache_creation: { ephemeral_1h_input_tokens: this.cacheWrite1h },
            service_tier: this.serviceTier,
          }),
        );
      case 'error':
        throw this.errorEvent(e['error']);
      default:
        // ping and event types added later carry nothing to forward.
        return undefined;
    }
  }

  /** Call when the SSE stream ends; a stream without message_stop was cut short. */
  end(): void {
    if (!this.done) throw streamFailure(this.provider, 'stream ended before message_stop');
  }

  private blockStart(index: number, block: Record<string, unknown>): ChatChunk | undefined {
    if (block['type'] === 'text') {
      const text = block['text'];
      return typeof text === 'string' && text !== '' && !this.jsonTool ? this.chunk({ content: text }) : undefined;
    }
    if (isThinkingBlock(block)) {
      // Built up from its deltas, then kept with the next tool call (thinking.ts).
      const copy = Object.assign({}, block);
      (this.thinkingAt ??= new Map()).set(index, copy);
      (this.thinking ??= []).push(copy);
      return undefined;
    }
    if (block['type'] !== 'tool_use') return undefined;
    if (this.jsonTool && block['name'] === JSON_TOOL_NAME) {
      this.jsonBlocks.add(index);
      return undefined;
    }
    const toolIdx = this.nextTool++;
    this.toolIndex.set(index, toolIdx);
    const call: ToolCallDelta = {
      index: toolIdx,
      id: String(block['id'] ?? ''),
      type: 'function',
      function: { name: String(block['name'] ?? ''), arguments: '' },
    };
    if (this.thinking) {
      call.extra_content = withThinking(undefined, this.requestedModel, this.thinking);
      this.thinking = undefined;
    }
    return this.chunk({ content: null, tool_calls: [call] });
  }

  private blockDelta(index: number, delta: Record<string, unknown>): ChatChunk | undefined {
    if (delta['type'] === 'text_delta') {
      const text = delta['text'];
      return typeof text === 'string' && text !== '' && !this.jsonTool ? this.chunk({ content: text }) : undefined;
    }
    if (delta['type'] === 'input_json_delta') {
      const part = delta['partial_json'];
      if (typeof part !== 'string' || part === '') return undefined;
      this.blocksWithInput.add(index);
      if (this.jsonBlocks.has(index)) return this.chunk({ content: part });
      const toolIdx = this.toolIndex.get(index);
      if (toolIdx === undefined) return undefined;
      return this.chunk({ tool_calls: [{ index: toolIdx, function: { arguments: part } }] });
    }
    const thinking = this.thinkingAt?.get(index);
    if (thinking) {
      if (delta['type'] === 'thinking_delta' && typeof delta['thinking'] === 'string') {
        thinking['thinking'] = String(thinking['thinking'] ?? '') + delta['thinking'];
        // Shown as it comes, as the answer's reasoning_content.
        if (delta['thinking'] !== '') return this.chunk({ reasoning_content: delta['thinking'] });
      } else if (delta['type'] === 'signature_delta' && typeof delta['signature'] === 'string') {
        thinking['signature'] = delta['signature'];
      }
    }
    // citations_delta: no OpenAI equivalent.
    return undefined;
  }

  /** Closes a tool call that got no argument text with "{}", the non-streamed answer's arguments. */
  private blockStop(index: number): ChatChunk | undefined {
    if (this.blocksWithInput.has(index)) return undefined;
    if (this.jsonBlocks.has(index)) return this.chunk({ content: EMPTY_INPUT });
    const toolIdx = this.toolIndex.get(index);
    if (toolIdx === undefined) return undefined;
    return this.chunk({ tool_calls: [{ index: toolIdx, function: { arguments: EMPTY_INPUT } }] });
  }

  private chunk(delta: Delta, finish: FinishReason = null): ChatChunk {
    if (!this.id) this.id = newId('msg_');
    if (!this.roleSent) {
      this.roleSent = true;
      delta = { role: 'assistant', ...delta };
    }
    return {
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.model,
      choices: [{ index: 0, delta, finish_reason: finish }],
    };
  }

  // message_start carries the prompt counts; message_delta carries cumulative output (and, on newer
  // API versions, cumulative input and cache) counts. Each count is kept on its own, largest value
  // wins: a message_delta that repeats input_tokens without the cache counts must not drop the
  // cache reads and writes message_start reported.
  private takeUsage(u: AnthropicUsage | undefined): void {
    if (!isRecord(u)) return;
    this.input = Math.max(this.input, count(u['input_tokens']));
    this.cacheWrite = Math.max(this.cacheWrite, count(u['cache_creation_input_tokens']));
    this.cacheRead = Math.max(this.cacheRead, count(u['cache_read_input_tokens']));
    this.completion = Math.max(this.completion, count(u['output_tokens']));
    const creation = u['cache_creation'];
    if (isRecord(creation))
      this.cacheWrite1h = Math.max(this.cacheWrite1h, count(creation['ephemeral_1h_input_tokens']));
    if (typeof u['service_tier'] === 'string') this.serviceTier = u['service_tier'];
  }

  private errorEvent(err: unknown): ProviderError {
    const e = isRecord(err) ? err : {};
    const type = typeof e['type'] === 'string' ? e['type'] : 'api_error';
    const status = ERROR_STATUS[type] ?? 500;
    const msg = typeof e['message'] === 'string' ? e['message'] : type;
    const message = redact(`${this.provider} stream error: ${type}: ${msg}`, this.secrets);
    return new ProviderError({
      provider: this.provider,
      status,
      retryable: isRetryableStatus(status),
      kind: 'http',
      message,
    });
  }
}

/** A token count as reported, 0 when absent or null. */
function count(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}
