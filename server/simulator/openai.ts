// OpenAI wire format: /chat/completions, /models, /embeddings.
import { isOpenAIReasoningModel } from '../providers/openai-compatible/vendors/openai.js';
import type { ChatChunk, ChatCompletion, FinishReason } from '../providers/types.js';
import {
  asArray,
  bearer,
  defaultMessage,
  intOrUndef,
  isObj,
  stopList,
  str,
  type Exchange,
  type FormatApi,
} from './exchange.js';
import { MAX_TOP, openaiLogprobs } from './logprobs.js';
import { sendJson, sseFrame, streamFrames, type Frame } from './sse.js';
import {
  clampDims,
  scriptedEmbed,
  estimateTokens,
  newId,
  plan,
  textChars,
  type GenRequest,
  type Plan,
  type ToolMode,
} from './text.js';

const MODEL_CREATED = 1715367049;

export const openaiApi: FormatApi = {
  authorized: (req) => bearer(req) !== undefined,
  errorBody,
  serve(x) {
    switch (x.kind) {
      case 'models':
        return listModels(x);
      case 'model':
        return getModel(x);
      case 'embed':
        return embeddings(x);
      default:
        return chat(x);
    }
  },
};

function errorBody(status: number, message?: string, code?: string | null, param?: string | null): string {
  let type = 'invalid_request_error';
  let c: string | null = code ?? null;
  if (status === 401) c = code ?? 'invalid_api_key';
  else if (status === 429) {
    type = 'requests';
    c = code ?? 'rate_limit_exceeded';
  } else if (status >= 500) type = 'server_error';
  const msg =
    message ??
    (status === 401
      ? 'Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.'
      : defaultMessage(status));
  return JSON.stringify({ error: { message: msg, type, param: param ?? null, code: c } });
}

function modelObject(id: string): Record<string, unknown> {
  return { id, object: 'model', created: MODEL_CREATED, owned_by: 'system' };
}

function listModels(x: Exchange): void {
  sendJson(x.res, 200, JSON.stringify({ object: 'list', data: x.state.models.openai.list.map(modelObject) }));
}

function getModel(x: Exchange): void {
  const id = x.pathModel ?? '';
  if (!x.state.models.openai.set.has(id)) return notFound(x, id);
  sendJson(x.res, 200, JSON.stringify(modelObject(id)));
}

function notFound(x: Exchange, model: string): void {
  sendJson(
    x.res,
    404,
    errorBody(404, `The model \`${model}\` does not exist or you do not have access to it.`, 'model_not_found'),
  );
}

function badRequest(x: Exchange, message: string, param: string | null = null, code: string | null = null): void {
  sendJson(x.res, 400, errorBody(400, message, code, param));
}

async function chat(x: Exchange): Promise<void> {
  const b = x.body;
  const model = str(b.model);
  if (!model) return badRequest(x, 'you must provide a model parameter', 'model');
  const messages = b.messages;
  if (!Array.isArray(messages) || messages.length === 0) {
    return badRequest(x, "Missing required parameter: 'messages'.", 'messages', 'missing_required_parameter');
  }
  if (!x.state.models.openai.set.has(model)) return notFound(x, model);
  if (isOpenAIReasoningModel(model)) {
    const refused = reasoningRefusal(b);
    if (refused) return badRequest(x, refused.message, refused.param, refused.code);
  }

  const p = plan(
    toGen(model, b, messages),
    x.state.outputTokens,
    x.state.modelQualities,
    x.state.replies,
    x.state.hidden,
  );
  const id = newId('chatcmpl-');
  const created = Math.floor(Date.now() / 1000);
  // `n` choices, each the same answer (billed n times).
  const n = choiceCount(b.n);
  const outputTokens = p.outputTokens * n;
  // A rule's scripted usage (ScriptedUsage): the prompt's length, its cached part, the service tier.
  const scripted = x.usage;
  const promptTokens = scripted?.promptTokens ?? p.promptTokens;
  const cachedTokens = Math.min(scripted?.cachedTokens ?? 0, promptTokens);
  const usage: Record<string, unknown> = {
    prompt_tokens: promptTokens,
    completion_tokens: outputTokens,
    total_tokens: promptTokens + outputTokens,
  };
  if (scripted) {
    usage['prompt_tokens_details'] = { cached_tokens: cachedTokens, audio_tokens: 0 };
    usage['completion_tokens_details'] = { reasoning_tokens: 0, audio_tokens: 0 };
  }
  const serviceTier = scripted?.serviceTier;
  const finish = finishReason(p);
  // `logprobs: true` (with `top_logprobs` alternatives per token): one entry per text piece. A
  // tool call has no content tokens to report.
  const top = b.logprobs === true ? Math.min(MAX_TOP, Math.max(0, intOrUndef(b.top_logprobs) ?? 0)) : undefined;
  const tokenLogprobs = top !== undefined && !p.toolCall ? openaiLogprobs(p.pieces, top) : undefined;

  if (b.stream !== true) {
    const logprobs = top === undefined ? null : { content: tokenLogprobs ?? null, refusal: null };
    const choices: ChatCompletion['choices'] = [];
    for (let index = 0; index < n; index++) {
      choices.push({
        index,
        message: p.toolCall
          ? {
              role: 'assistant',
              content: null,
              refusal: null,
              tool_calls: [
                {
                  id: newId('call_'),
                  type: 'function',
                  function: { name: p.toolCall.name, arguments: p.toolCall.arguments },
                },
              ],
            }
          : { role: 'assistant', content: p.text, refusal: null },
        logprobs,
        finish_reason: finish,
      });
    }
    const body: ChatCompletion = {
      id,
      object: 'chat.completion',
      created,
      model,
      choices,
      usage: {
        prompt_tokens_details: { cached_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0 },
        ...usage,
      } as ChatCompletion['usage'],
    };
    if (serviceTier !== undefined) (body as unknown as Record<string, unknown>)['service_tier'] = serviceTier;
    if (x.omitUsage) delete body.usage;
    return sendJson(x.res, 200, JSON.stringify(body));
  }

  const includeUsage = !x.omitUsage && isObj(b.stream_options) && b.stream_options.include_usage === true;
  const chunk = (
    delta: ChatChunk['choices'][number]['delta'],
    fin: FinishReason,
    index = 0,
    lp?: unknown[],
  ): string => {
    const choice: ChatChunk['choices'][number] = { index, delta, finish_reason: fin };
    // With logprobs asked for, every choice carries the field: its own tokens' entries, else null.
    if (top !== undefined) choice.logprobs = lp ? { content: lp, refusal: null } : null;
    const c: ChatChunk = { id, object: 'chat.completion.chunk', created, model, choices: [choice] };
    if (serviceTier !== undefined) (c as unknown as Record<string, unknown>)['service_tier'] = serviceTier;
    // OpenAI sends usage: null on every chunk once include_usage is on; the last one carries it.
    if (includeUsage) c.usage = null;
    return sseFrame(c);
  };
  // Made as they are sent, not all before the first: a long answer's first event leaves at once,
  // as a provider's does, whatever the answer's length.
  function* frames(): Generator<Frame> {
    // With n > 1, every choice's opening (the role, with a tool call's id and name when there is
    // one) comes before the rest of any choice (as vLLM sends them), then the pieces of the choices
    // interleaved.
    if (p.toolCall) {
      const tc = p.toolCall;
      // The call's id and name open it in the same chunk as the role, as OpenAI sends them: a
      // content-bearing chunk, so a cut after 0 chunks sends none of it.
      for (let i = 0; i < n; i++)
        yield {
          kind: 'content',
          data: chunk(
            {
              role: 'assistant',
              content: null,
              tool_calls: [
                { index: 0, id: newId('call_'), type: 'function', function: { name: tc.name, arguments: '' } },
              ],
            },
            null,
            i,
          ),
        };
      for (const a of tc.argPieces)
        for (let i = 0; i < n; i++)
          yield {
            kind: 'content',
            data: chunk({ tool_calls: [{ index: 0, function: { arguments: a } }] }, null, i),
          };
    } else {
      for (let i = 0; i < n; i++) yield { kind: 'pre', data: chunk({ role: 'assistant', content: '' }, null, i) };
      for (let k = 0; k < p.pieces.length; k++) {
        const lp = tokenLogprobs ? [tokenLogprobs[k]!] : undefined;
        for (let i = 0; i < n; i++) yield { kind: 'content', data: chunk({ content: p.pieces[k]! }, null, i, lp) };
      }
    }
    for (let i = 0; i < n; i++) yield { kind: 'post', data: chunk({}, finish, i) };
    if (includeUsage) {
      yield {
        kind: 'post',
        data: sseFrame({
          id,
          object: 'chat.completion.chunk',
          created,
          model,
          ...(serviceTier !== undefined ? { service_tier: serviceTier } : {}),
          choices: [],
          usage,
        }),
      };
    }
    yield { kind: 'post', data: 'data: [DONE]\n\n' };
  }
  await streamFrames(x.res, frames(), {
    delayMs: x.state.chunkDelayMs,
    cutAfter: x.cutAfter,
    firstContentDelayMs: x.firstContentDelayMs,
  });
}

/** What OpenAI answers a reasoning model's request that has a field such a model does not take. */
function reasoningRefusal(b: Record<string, unknown>): { message: string; param: string; code: string } | undefined {
  if (b.max_tokens != null) {
    return {
      message:
        "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      param: 'max_tokens',
      code: 'unsupported_parameter',
    };
  }
  for (const [param, dflt] of [
    ['temperature', 1],
    ['top_p', 1],
    ['presence_penalty', 0],
    ['frequency_penalty', 0],
  ] as const) {
    const v = b[param];
    if (v != null && v !== dflt) {
      return {
        message: `Unsupported value: '${param}' does not support ${String(v)} with this model. Only the default (${dflt}) value is supported.`,
        param,
        code: 'unsupported_value',
      };
    }
  }
  for (const param of ['stop', 'logprobs', 'logit_bias']) {
    if (b[param] != null)
      return {
        message: `Unsupported parameter: '${param}' is not supported with this model.`,
        param,
        code: 'unsupported_parameter',
      };
  }
  return undefined;
}

/** The choices asked for (`n`), 1 when unset; at most 8 here. */
function choiceCount(v: unknown): number {
  const n = intOrUndef(v);
  return n !== undefined && n > 1 ? Math.min(n, 8) : 1;
}

function finishReason(p: Plan): FinishReason {
  if (p.finish === 'tool_calls') return 'tool_calls';
  return p.finish === 'length' ? 'length' : 'stop';
}

function toGen(model: string, b: Record<string, unknown>, messages: unknown[]): GenRequest {
  let promptChars = 0;
  let imageCount = 0;
  let lastText = '';
  for (const m of messages) {
    if (!isObj(m)) continue;
    const c = m.content;
    let text = '';
    if (typeof c === 'string') text = c;
    else if (Array.isArray(c)) {
      for (const part of c) {
        if (!isObj(part)) continue;
        if (part.type === 'text' && typeof part.text === 'string') text += (text ? ' ' : '') + part.text;
        else if (part.type === 'image_url' || part.type === 'input_image') imageCount++;
      }
    }
    promptChars += text.length;
    if (Array.isArray(m.tool_calls)) promptChars += textChars(m.tool_calls);
    if (m.role === 'user' || m.role === 'tool') lastText = text;
  }
  const last = messages[messages.length - 1];
  const tools = asArray(b.tools)
    .filter(isObj)
    .map((t) => {
      const fn = isObj(t.function) ? t.function : {};
      return { name: str(fn.name) ?? 'tool', parameters: fn.parameters };
    });
  const rf = isObj(b.response_format) ? b.response_format : undefined;
  let json: GenRequest['json'];
  if (rf?.type === 'json_object') json = {};
  else if (rf?.type === 'json_schema') json = { schema: isObj(rf.json_schema) ? (rf.json_schema.schema ?? {}) : {} };
  return {
    model,
    promptChars,
    messageCount: messages.length,
    imageCount,
    toolsChars: tools.length > 0 ? JSON.stringify(b.tools).length : 0,
    lastText,
    lastIsToolResult: isObj(last) && last.role === 'tool',
    maxTokens: intOrUndef(b.max_completion_tokens) ?? intOrUndef(b.max_tokens),
    stop: stopList(b.stop),
    tools,
    toolMode: toolMode(b.tool_choice),
    json,
  };
}

function toolMode(v: unknown): ToolMode {
  if (v === 'none' || v === 'required' || v === 'auto') return v;
  if (isObj(v) && isObj(v.function) && typeof v.function.name === 'string') return { name: v.function.name };
  return 'auto';
}

function embeddings(x: Exchange): void {
  const b = x.body;
  const model = str(b.model);
  if (!model) return badRequest(x, 'you must provide a model parameter', 'model');
  const raw = b.input;
  // A flat array of integers is one input, already tokenized (as OpenAI reads it); an array of
  // such arrays is one input each.
  const oneTokenized = Array.isArray(raw) && raw.length > 0 && raw.every((v) => typeof v === 'number');
  const inputs: string[] =
    typeof raw === 'string' || oneTokenized
      ? [typeof raw === 'string' ? raw : JSON.stringify(raw)]
      : Array.isArray(raw)
        ? raw.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)))
        : [];
  if (inputs.length === 0 || inputs.some((s) => s.length === 0)) {
    return badRequest(x, "'input' must be a non-empty string or array of non-empty strings.", 'input');
  }
  const dims = clampDims(b.dimensions);
  const base64 = b.encoding_format === 'base64';
  let tokens = 0;
  const data = inputs.map((text, index) => {
    tokens += estimateTokens(text);
    const v = scriptedEmbed(text, dims, x.state.embeddingSimilarities);
    // The official SDKs ask for base64 by default and decode little-endian float32 themselves.
    const embedding = base64 ? Buffer.from(new Float32Array(v).buffer).toString('base64') : v;
    return { object: 'embedding' as const, index, embedding };
  });
  const body = { object: 'list', data, model, usage: { prompt_tokens: tokens, total_tokens: tokens } };
  sendJson(x.res, 200, JSON.stringify(body));
}
