// Anthropic Messages wire format: POST /v1/messages (JSON or named SSE events), GET /v1/models.
import {
  asArray,
  defaultMessage,
  intOrUndef,
  isObj,
  stopList,
  str,
  type Exchange,
  type FormatApi,
} from './exchange.js';
import { jsonFromHint } from './json-hint.js';
import { sendJson, sseFrame, streamFrames, type Frame } from './sse.js';
import { newId, plan, textChars, type GenRequest, type Plan, type ToolMode } from './text.js';
import { takesSampling } from '../providers/anthropic/model-rules.js';
import { thinkingOf } from './anthropic-thinking.js';

const MODEL_CREATED_AT = '2025-01-01T00:00:00Z';

/**
 * The signature of the thinking block a model that thinks by default (the Claude 5 family) starts
 * its answers with, its text omitted as the real API's default display leaves it. A tool loop must
 * send the block back, first in the assistant turn that called the tool, or the request is refused.
 */
export const SIM_THINKING_SIGNATURE = Buffer.from('simulated thinking signature').toString('base64');

/** The thinking summary a model asked to think (adaptive thinking, or a budget) shows before its answer. */
export const SIM_THINKING_TEXT = 'Weighing the question before answering.';

/** A key starting with this is refused with 401 authentication_error, as the real API refuses a wrong key. */
export const INVALID_KEY_PREFIX = 'invalid';

export const anthropicApi: FormatApi = {
  authorized: (req) => {
    const key = req.headers['x-api-key'];
    return typeof key === 'string' && key.trim() !== '' && !key.trim().startsWith(INVALID_KEY_PREFIX);
  },
  errorBody,
  serve(x) {
    // The real API rejects requests without a version header; adapters must send one.
    if (typeof x.req.headers['anthropic-version'] !== 'string') {
      return sendJson(x.res, 400, errorBody(400, 'anthropic-version: header is required'));
    }
    switch (x.kind) {
      case 'models':
        return listModels(x);
      case 'model':
        return getModel(x);
      default:
        return messages(x);
    }
  },
};

function errorType(status: number): string {
  switch (status) {
    case 400:
      return 'invalid_request_error';
    case 401:
      return 'authentication_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 529:
      return 'overloaded_error';
    default:
      return status >= 500 ? 'api_error' : 'invalid_request_error';
  }
}

function errorBody(status: number, message?: string): string {
  const msg = message ?? (status === 401 ? 'invalid x-api-key' : defaultMessage(status));
  return JSON.stringify({ type: 'error', error: { type: errorType(status), message: msg } });
}

function displayName(id: string): string {
  // claude-sonnet-4-5 -> Claude Sonnet 4.5; adjacent numeric parts are a version number.
  const out: string[] = [];
  for (const part of id.split('-')) {
    const prev = out[out.length - 1];
    if (/^\d+$/.test(part) && prev !== undefined && /^\d+(\.\d+)*$/.test(prev)) out[out.length - 1] = `${prev}.${part}`;
    else out.push(part.charAt(0).toUpperCase() + part.slice(1));
  }
  return out.join(' ');
}

function modelObject(id: string): Record<string, unknown> {
  return { type: 'model', id, display_name: displayName(id), created_at: MODEL_CREATED_AT };
}

function listModels(x: Exchange): void {
  const list = x.state.models.anthropic.list;
  sendJson(
    x.res,
    200,
    JSON.stringify({
      data: list.map(modelObject),
      has_more: false,
      first_id: list[0] ?? null,
      last_id: list[list.length - 1] ?? null,
    }),
  );
}

function getModel(x: Exchange): void {
  const id = x.pathModel ?? '';
  if (!x.state.models.anthropic.set.has(id)) return sendJson(x.res, 404, errorBody(404, `model: ${id}`));
  sendJson(x.res, 200, JSON.stringify(modelObject(id)));
}

const bad = (x: Exchange, message: string): void => sendJson(x.res, 400, errorBody(400, message));

async function messages(x: Exchange): Promise<void> {
  const b = x.body;
  const model = str(b.model);
  if (!model) return bad(x, 'model: Field required');
  const msgs = b.messages;
  if (!Array.isArray(msgs) || msgs.length === 0) return bad(x, 'messages: Field required');
  const maxTokens = intOrUndef(b.max_tokens);
  if (b.max_tokens === undefined) return bad(x, 'max_tokens: Field required');
  if (maxTokens === undefined || maxTokens < 1) return bad(x, 'max_tokens: Input should be greater than or equal to 1');
  if (!x.state.models.anthropic.set.has(model)) return sendJson(x.res, 404, errorBody(404, `model: ${model}`));
  const badImage = badImageType(msgs);
  if (badImage) return bad(x, badImage);
  const badTool = badToolSchema(b.tools);
  if (badTool) return bad(x, badTool);
  // As the real API: tool blocks in the history need tools defined, even when none may be called.
  if (asArray(b.tools).length === 0 && hasToolBlocks(msgs)) {
    return bad(x, 'Requests which include `tool_use` or `tool_result` blocks must define tools.');
  }
  // As the real API: an empty or whitespace-only stop sequence is refused.
  // As the real API for Claude Opus 4.7 on and the Claude 5 family: no sampling settings.
  if (!takesSampling(model)) {
    const sampling = ['temperature', 'top_p', 'top_k'].find((k) => b[k] !== undefined);
    if (sampling) return bad(x, `\`${sampling}\` is deprecated for this model.`);
  }
  const thinking = thinkingOf(model, b, maxTokens);
  if (typeof thinking === 'string') return bad(x, thinking);
  const thinks = thinking.thinks;
  const choice = isObj(b.tool_choice) ? b.tool_choice.type : undefined;
  if (thinks && (choice === 'any' || choice === 'tool'))
    return bad(x, 'Thinking may not be enabled when tool_choice forces tool use.');
  if (thinks) {
    const unsigned = unsignedToolTurn(msgs);
    if (unsigned) return bad(x, unsigned);
  }
  const stops = asArray(b.stop_sequences);
  if (stops.some((s) => s === '')) return bad(x, 'stop_sequences: each stop sequence must be non-empty');
  if (stops.some((s) => typeof s === 'string' && s.trim() === ''))
    return bad(x, 'stop_sequences: each stop sequence must contain non-whitespace');

  const p = plan(
    toGen(model, b, msgs, maxTokens),
    x.state.outputTokens,
    x.state.modelQualities,
    x.state.replies,
    x.state.hidden,
  );
  const id = newId('msg_');
  const stopReason = mapStop(p);
  const toolId = p.toolCall ? newId('toolu_') : '';

  // FaultRule.omitUsage: every usage object left out. FaultRule.usage: the prompt's cache reads and
  // writes and the service tier as scripted; input_tokens counts only the rest, as Anthropic's does.
  const scripted = x.usage;
  const prompt = scripted?.promptTokens ?? p.promptTokens;
  const cacheRead = scripted?.cachedTokens ?? 0;
  const write5m = scripted?.cacheWrite5mTokens ?? 0;
  const write1h = scripted?.cacheWrite1hTokens ?? 0;
  const usage = (output: number) =>
    x.omitUsage
      ? undefined
      : {
          input_tokens: Math.max(0, prompt - cacheRead - write5m - write1h),
          cache_creation_input_tokens: write5m + write1h,
          cache_read_input_tokens: cacheRead,
          cache_creation: { ephemeral_5m_input_tokens: write5m, ephemeral_1h_input_tokens: write1h },
          output_tokens: output,
          service_tier: scripted?.serviceTier ?? 'standard',
        };
  // A model asked to think shows a summary of it; one that thinks by default omits it.
  const thinkingText = thinking.askedFor ? SIM_THINKING_TEXT : '';
  const thinkingBlock = { type: 'thinking', thinking: thinkingText, signature: SIM_THINKING_SIGNATURE };
  if (b.stream !== true) {
    const content: unknown[] = p.toolCall
      ? [{ type: 'tool_use', id: toolId, name: p.toolCall.name, input: p.toolCall.args }]
      : [{ type: 'text', text: p.text }];
    if (thinks) content.unshift(thinkingBlock);
    return sendJson(
      x.res,
      200,
      JSON.stringify({
        id,
        type: 'message',
        role: 'assistant',
        model,
        content,
        stop_reason: stopReason,
        stop_sequence: p.stopSequence,
        usage: usage(p.outputTokens),
      }),
    );
  }

  const ev = (type: string, data: Record<string, unknown>): string => sseFrame({ type, ...data }, type);
  const frames: Frame[] = [
    {
      kind: 'pre',
      data: ev('message_start', {
        message: {
          id,
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: usage(1),
        },
      }),
    },
  ];
  // The answer's own block follows the thinking block when there is one.
  const at = thinks ? 1 : 0;
  if (thinks) {
    frames.push({
      kind: 'pre',
      data: ev('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }),
    });
    if (thinkingText)
      frames.push({
        kind: 'content',
        data: ev('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: thinkingText } }),
      });
    frames.push({
      kind: 'pre',
      data: ev('content_block_delta', {
        index: 0,
        delta: { type: 'signature_delta', signature: SIM_THINKING_SIGNATURE },
      }),
    });
    frames.push({ kind: 'pre', data: ev('content_block_stop', { index: 0 }) });
  }
  if (p.toolCall) {
    // The block start names the call: content-bearing (clients turn it into the call's first
    // delta), so a cut after 0 chunks sends none of it.
    frames.push({
      kind: 'content',
      data: ev('content_block_start', {
        index: at,
        content_block: { type: 'tool_use', id: toolId, name: p.toolCall.name, input: {} },
      }),
    });
    frames.push({ kind: 'pre', data: ev('ping', {}) });
    // The real API streams a call without arguments as one empty fragment, never as "{}".
    const argPieces = p.toolCall.arguments === '{}' ? [''] : p.toolCall.argPieces;
    for (const a of argPieces) {
      frames.push({
        kind: 'content',
        data: ev('content_block_delta', { index: at, delta: { type: 'input_json_delta', partial_json: a } }),
      });
    }
  } else {
    frames.push({
      kind: 'pre',
      data: ev('content_block_start', { index: at, content_block: { type: 'text', text: '' } }),
    });
    frames.push({ kind: 'pre', data: ev('ping', {}) });
    for (const piece of p.pieces) {
      frames.push({
        kind: 'content',
        data: ev('content_block_delta', { index: at, delta: { type: 'text_delta', text: piece } }),
      });
    }
  }
  frames.push({ kind: 'post', data: ev('content_block_stop', { index: at }) });
  frames.push({
    kind: 'post',
    data: ev('message_delta', {
      delta: { stop_reason: stopReason, stop_sequence: p.stopSequence },
      usage: x.omitUsage ? undefined : { output_tokens: p.outputTokens },
    }),
  });
  frames.push({ kind: 'post', data: ev('message_stop', {}) });
  await streamFrames(x.res, frames, {
    delayMs: x.state.chunkDelayMs,
    cutAfter: x.cutAfter,
    firstContentDelayMs: x.firstContentDelayMs,
  });
}

/** Base64 image media types the real API accepts; anything else is refused with 400. */
const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/** The real API's complaint about the first base64 image whose media type it does not take. */
function badImageType(msgs: unknown[]): string | undefined {
  for (const [i, m] of msgs.entries()) {
    if (!isObj(m)) continue;
    for (const [j, block] of asArray(m.content).entries()) {
      const source = isObj(block) && block.type === 'image' && isObj(block.source) ? block.source : undefined;
      if (source?.type === 'base64' && !IMAGE_TYPES.has(String(source.media_type))) {
        return `messages.${i}.content.${j}.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`;
      }
    }
  }
  return undefined;
}

/** The real API's complaint about the first custom tool whose input_schema is not an object schema. */
function badToolSchema(tools: unknown): string | undefined {
  for (const [i, t] of asArray(tools).entries()) {
    // Server tools (web_search_..., bash_...) carry a type and no input_schema.
    if (!isObj(t) || (t.type !== undefined && t.type !== 'custom')) continue;
    const schema = t.input_schema;
    if (!isObj(schema)) return `tools.${i}.custom.input_schema: Field required`;
    if (schema.type === undefined) return `tools.${i}.custom.input_schema.type: Field required`;
    if (schema.type !== 'object') return `tools.${i}.custom.input_schema.type: Input should be 'object'`;
  }
  return undefined;
}

/**
 * As the real API when the model thinks: the last assistant turn, when it called a tool, must begin
 * with the thinking block the model wrote (its signature intact). The refusal, or undefined.
 */
function unsignedToolTurn(msgs: unknown[]): string | undefined {
  for (let i = msgs.length - 1; i >= 0; i--) {
    const m = msgs[i];
    if (!isObj(m) || m.role !== 'assistant') continue;
    const blocks = asArray(m.content).filter(isObj);
    if (!blocks.some((c) => c.type === 'tool_use')) return undefined;
    const first = blocks[0]!;
    if (first.type !== 'thinking' && first.type !== 'redacted_thinking') {
      return `messages.${i}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first.type)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block.`;
    }
    if (first.type === 'thinking' && first.signature !== SIM_THINKING_SIGNATURE)
      return `messages.${i}.content.0: Invalid \`signature\` in \`thinking\` block`;
    return undefined;
  }
  return undefined;
}

function hasToolBlocks(msgs: unknown[]): boolean {
  return msgs.some(
    (m) => isObj(m) && asArray(m.content).some((c) => isObj(c) && (c.type === 'tool_use' || c.type === 'tool_result')),
  );
}

function mapStop(p: Plan): string {
  switch (p.finish) {
    case 'tool_calls':
      return 'tool_use';
    case 'length':
      return 'max_tokens';
    case 'stop_sequence':
      return 'stop_sequence';
    default:
      return 'end_turn';
  }
}

/** Text of a content value (string or blocks), counting images separately instead of their bytes. */
function blockText(content: unknown, counts: { images: number; chars: number }): string {
  if (typeof content === 'string') {
    counts.chars += content.length;
    return content;
  }
  let text = '';
  for (const block of asArray(content)) {
    if (!isObj(block)) continue;
    switch (block.type) {
      case 'text':
        if (typeof block.text === 'string') {
          text += (text ? ' ' : '') + block.text;
          counts.chars += block.text.length;
        }
        break;
      case 'image':
      case 'document':
        counts.images++;
        break;
      case 'tool_use':
        counts.chars += textChars(block.input) + textChars(block.name);
        break;
      case 'tool_result': {
        const inner = blockText(block.content, counts);
        text += (text ? ' ' : '') + inner;
        break;
      }
    }
  }
  return text;
}

function toGen(model: string, b: Record<string, unknown>, msgs: unknown[], maxTokens: number): GenRequest {
  const counts = { images: 0, chars: 0 };
  const system = blockText(b.system, counts);
  let lastText = '';
  let lastIsToolResult = false;
  for (const m of msgs) {
    if (!isObj(m)) continue;
    const text = blockText(m.content, counts);
    if (m.role === 'user') {
      lastText = text;
      lastIsToolResult = Array.isArray(m.content) && m.content.some((c) => isObj(c) && c.type === 'tool_result');
    } else {
      lastIsToolResult = false;
    }
  }
  const tools = asArray(b.tools)
    .filter(isObj)
    .map((t) => ({ name: str(t.name) ?? 'tool', parameters: t.input_schema }));
  return {
    model,
    promptChars: counts.chars,
    messageCount: msgs.length + (b.system ? 1 : 0),
    imageCount: counts.images,
    toolsChars: tools.length > 0 ? JSON.stringify(b.tools).length : 0,
    lastText,
    lastIsToolResult,
    maxTokens,
    stop: stopList(b.stop_sequences),
    tools,
    toolMode: toolMode(b.tool_choice),
    // Anthropic has no JSON mode: callers with tools of their own ask for JSON in the system prompt.
    json: jsonFromHint(system),
  };
}

function toolMode(v: unknown): ToolMode {
  if (!isObj(v)) return 'auto';
  if (v.type === 'none') return 'none';
  if (v.type === 'any') return 'required';
  if (v.type === 'tool' && typeof v.name === 'string') return { name: v.name };
  return 'auto';
}
