// Gemini (Generative Language API v1beta) wire format: models/{m}:generateContent,
// :streamGenerateContent (SSE with ?alt=sse, else a streamed JSON array), :embedContent,
// :batchEmbedContents, GET models.
//
// Keys are checked as the real API does, inside `serve` (the shared path's 401 does not fit, and
// runs before fault injection, which therefore comes first here): a request without a key gets
// 403 PERMISSION_DENIED, and a key starting with INVALID_KEY_PREFIX is refused with 400
// INVALID_ARGUMENT, reason API_KEY_INVALID, the answer to a wrong or revoked key.
//
// Several candidates (generationConfig.candidateCount, 1 to 8) repeat the same answer under
// indexes 0..n-1, and usageMetadata.candidatesTokenCount counts the tokens of all of them.
// generationConfig.responseLogprobs adds a logprobsResult to each: one chosen token per text
// piece, and with generationConfig.logprobs set that many top candidates per piece as well.
//
// Thought signatures: the first functionCall part of an answer carries a `thoughtSignature`, as a
// thinking model's does, and a gemini-3 (or later) model refuses a request whose current turn
// has a step whose first function call comes back without one.
//
// Thinking: generationConfig.thinkingConfig is checked as Gemini checks it (gemini-thinking.ts).
//
// Penalties: as the real API, only gemini-1.5 and gemini-2.0 models take a non-zero
// presencePenalty / frequencyPenalty; others answer 400 "Penalty is not enabled for models/<m>".
import { isEmbeddingModel } from '../providers/model-kind.js';
import {
  asArray,
  bearer,
  defaultMessage,
  intOrUndef,
  isObj,
  queryParam,
  stopList,
  str,
  type Exchange,
  type FormatApi,
} from './exchange.js';
import { thinkingConfigError } from './gemini-thinking.js';
import { jsonFromHint } from './json-hint.js';
import { geminiLogprobs, MAX_TOP } from './logprobs.js';
import { sendJson, streamFrames, type Frame } from './sse.js';
import { clampDims, newId, scriptedEmbed, plan, textChars, type GenRequest, type ToolMode } from './text.js';

/** A key starting with this is treated as wrong, as every key is by the real API but the ones it issued. */
export const INVALID_KEY_PREFIX = 'invalid';

/** The signature the simulator signs function calls with (the real ones are opaque base64). */
export const SIM_THOUGHT_SIGNATURE = Buffer.from('simulated thought signature').toString('base64');

export const geminiApi: FormatApi = {
  authorized: () => true,
  errorBody,
  serve(x) {
    const key = apiKey(x);
    if (key === undefined) return sendJson(x.res, 403, JSON.stringify(MISSING_KEY_ERROR));
    if (key.startsWith(INVALID_KEY_PREFIX)) return sendJson(x.res, 400, JSON.stringify(INVALID_KEY_ERROR));
    switch (x.kind) {
      case 'models':
        return listModels(x);
      case 'model':
        return getModel(x);
      case 'embed':
        return embedOne(x);
      case 'batchEmbed':
        return embedBatch(x);
      default:
        return generate(x);
    }
  },
};

function apiKey(x: Exchange): string | undefined {
  const h = x.req.headers['x-goog-api-key'];
  if (typeof h === 'string' && h.trim() !== '') return h.trim();
  return queryParam(x.query, 'key') || bearer(x.req);
}

// The real API's answers to a missing and to a wrong key.
const MISSING_KEY_ERROR = {
  error: {
    code: 403,
    message:
      "Method doesn't allow unregistered callers (callers without established identity). Please use API key or other form of API consumer identity to call this API.",
    status: 'PERMISSION_DENIED',
  },
};
const INVALID_KEY_MESSAGE = 'API key not valid. Please pass a valid API key.';
const INVALID_KEY_ERROR = {
  error: {
    code: 400,
    message: INVALID_KEY_MESSAGE,
    status: 'INVALID_ARGUMENT',
    details: [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'API_KEY_INVALID',
        domain: 'googleapis.com',
        metadata: { service: 'generativelanguage.googleapis.com' },
      },
      { '@type': 'type.googleapis.com/google.rpc.LocalizedMessage', locale: 'en-US', message: INVALID_KEY_MESSAGE },
    ],
  },
};

function statusName(code: number): string {
  switch (code) {
    case 400:
    case 413:
      return 'INVALID_ARGUMENT';
    case 401:
      return 'UNAUTHENTICATED';
    case 403:
      return 'PERMISSION_DENIED';
    case 404:
      return 'NOT_FOUND';
    case 409:
      return 'ABORTED';
    case 429:
      return 'RESOURCE_EXHAUSTED';
    case 499:
      return 'CANCELLED';
    case 503:
      return 'UNAVAILABLE';
    case 504:
      return 'DEADLINE_EXCEEDED';
    default:
      return code >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION';
  }
}

function errorBody(code: number, message?: string): string {
  const msg =
    message ??
    (code === 401
      ? 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.'
      : defaultMessage(code));
  return JSON.stringify({ error: { code, message: msg, status: statusName(code) } });
}

function displayName(id: string): string {
  return id
    .split('-')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ');
}

function modelObject(id: string): Record<string, unknown> {
  return {
    name: `models/${id}`,
    version: '001',
    displayName: displayName(id),
    description: `Simulated ${id}`,
    inputTokenLimit: 1048576,
    outputTokenLimit: 65536,
    // As Gemini lists them: embedding models embed and count, they do not generate.
    supportedGenerationMethods: isEmbeddingModel(id)
      ? ['embedContent', 'batchEmbedContents', 'countTextTokens']
      : ['generateContent', 'streamGenerateContent', 'countTokens'],
  };
}

function listModels(x: Exchange): void {
  sendJson(x.res, 200, JSON.stringify({ models: x.state.models.gemini.list.map(modelObject) }));
}

function notFound(x: Exchange, id: string): void {
  sendJson(
    x.res,
    404,
    errorBody(
      404,
      `models/${id} is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.`,
    ),
  );
}

function getModel(x: Exchange): void {
  const id = x.pathModel ?? '';
  if (!x.state.models.gemini.set.has(id)) return notFound(x, id);
  sendJson(x.res, 200, JSON.stringify(modelObject(id)));
}

const bad = (x: Exchange, message: string): void => sendJson(x.res, 400, errorBody(400, message));

async function generate(x: Exchange): Promise<void> {
  const model = x.pathModel ?? '';
  const contents = x.body.contents;
  if (!Array.isArray(contents) || contents.length === 0)
    return bad(x, '* GenerateContentRequest.contents: contents is not specified');
  if (!x.state.models.gemini.set.has(model)) return notFound(x, model);
  const unsigned = requiresSignatures(model) ? unsignedCallPosition(contents) : undefined;
  if (unsigned !== undefined) {
    return bad(
      x,
      `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`${unsigned.name}\` , position ${unsigned.position}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
    );
  }

  const gc = isObj(x.body.generationConfig) ? x.body.generationConfig : {};
  if (!takesPenalties(model) && (isPenalty(gc.presencePenalty) || isPenalty(gc.frequencyPenalty))) {
    return bad(x, `Penalty is not enabled for models/${model}`);
  }
  const thinkingError = thinkingConfigError(model, gc.thinkingConfig);
  if (thinkingError) return bad(x, thinkingError);
  const candidateCount = gc.candidateCount === undefined ? 1 : intOrUndef(gc.candidateCount);
  if (candidateCount === undefined || candidateCount < 1 || candidateCount > 8)
    return bad(x, '* GenerationConfig.candidate_count: must be between 1 and 8');
  const wantLogprobs = gc.responseLogprobs === true;
  const top = gc.logprobs === undefined ? undefined : Math.min(MAX_TOP, Math.max(0, intOrUndef(gc.logprobs) ?? 0));

  const p = plan(
    toGen(model, x.body, contents),
    x.state.outputTokens,
    x.state.modelQualities,
    x.state.replies,
    x.state.hidden,
  );
  const responseId = newId('');
  const finishReason = p.finish === 'length' ? 'MAX_TOKENS' : 'STOP';
  // `out` is one candidate's tokens; every candidate is generated, and billed.
  // FaultRule.usage: the prompt's length and its cached part as scripted (promptTokenCount counts
  // cached content too, as Gemini's does).
  const promptTokens = x.usage?.promptTokens ?? p.promptTokens;
  const cached = Math.min(x.usage?.cachedTokens ?? 0, promptTokens);
  const usage = (out: number): Record<string, number> => ({
    promptTokenCount: promptTokens,
    ...(cached > 0 ? { cachedContentTokenCount: cached } : {}),
    candidatesTokenCount: out * candidateCount,
    totalTokenCount: promptTokens + out * candidateCount,
  });
  // `tokens`: the text pieces the parts hold (none for a function call).
  const response = (
    parts: unknown[],
    tokens: readonly string[],
    out: number,
    finish?: string,
  ): Record<string, unknown> => ({
    candidates: Array.from({ length: candidateCount }, (_, index) => ({
      content: { role: 'model', parts },
      ...(finish ? { finishReason: finish } : {}),
      ...(wantLogprobs ? { logprobsResult: geminiLogprobs(tokens, top) } : {}),
      index,
    })),
    usageMetadata: x.omitUsage ? undefined : usage(out),
    modelVersion: model,
    responseId,
  });

  const callPart = p.toolCall
    ? { functionCall: { name: p.toolCall.name, args: p.toolCall.args }, thoughtSignature: SIM_THOUGHT_SIGNATURE }
    : undefined;
  if (x.kind !== 'stream') {
    const parts = callPart ? [callPart] : [{ text: p.text }];
    return sendJson(x.res, 200, JSON.stringify(response(parts, p.pieces, p.outputTokens, finishReason)));
  }

  // Every frame carries cumulative usage; the last one carries finishReason together with the
  // last piece, as the real API does. Function calls arrive whole, in a single frame.
  const objects: Array<{ obj: unknown; kind: Frame['kind'] }> = [];
  if (callPart) {
    objects.push({ obj: response([callPart], [], p.outputTokens, finishReason), kind: 'post' });
  } else if (p.pieces.length === 0) {
    objects.push({ obj: response([{ text: '' }], [], 0, finishReason), kind: 'post' });
  } else {
    const n = p.pieces.length;
    p.pieces.forEach((piece, i) => {
      const last = i === n - 1;
      objects.push({
        obj: response([{ text: piece }], [piece], i + 1, last ? finishReason : undefined),
        kind: last ? 'post' : 'content',
      });
    });
  }

  const sse = queryParam(x.query, 'alt') === 'sse';
  const frames: Frame[] = objects.map((o, i) => {
    const json = JSON.stringify(o.obj);
    // Without alt=sse the API streams one JSON array, element by element.
    const data = sse ? `data: ${json}\r\n\r\n` : (i === 0 ? '[' : ',\r\n') + json;
    return { data, kind: o.kind, paced: o.kind === 'post' && !p.toolCall };
  });
  if (!sse) frames.push({ data: ']', kind: 'post' });
  await streamFrames(x.res, frames, {
    delayMs: x.state.chunkDelayMs,
    cutAfter: x.cutAfter,
    firstContentDelayMs: x.firstContentDelayMs,
    contentType: sse ? 'text/event-stream' : 'application/json; charset=UTF-8',
  });
}

function takesPenalties(model: string): boolean {
  return /^gemini-(?:1\.5|2\.0)(?:-|$)/.test(model);
}

const isPenalty = (v: unknown): boolean => typeof v === 'number' && v !== 0;

function requiresSignatures(model: string): boolean {
  const m = /^gemini-(\d+)/.exec(model);
  return m !== null && Number(m[1]) >= 3;
}

/**
 * The first function call of a step in the current turn that lacks its thought signature, with its
 * content's 1-based position. The current turn starts at the last user content
 * with text; every model content after it is a step whose first functionCall part must be signed.
 */
function unsignedCallPosition(contents: unknown[]): { name: string; position: number } | undefined {
  let turnStart = 0;
  for (let i = contents.length - 1; i >= 0; i--) {
    const c = contents[i];
    if (isObj(c) && c.role !== 'model' && asArray(c.parts).some((p) => isObj(p) && typeof p.text === 'string')) {
      turnStart = i;
      break;
    }
  }
  for (let i = turnStart; i < contents.length; i++) {
    const c = contents[i];
    if (!isObj(c) || c.role !== 'model') continue;
    const first = asArray(c.parts).find((p) => isObj(p) && isObj(p.functionCall));
    if (isObj(first) && (typeof first.thoughtSignature !== 'string' || first.thoughtSignature === '')) {
      return { name: isObj(first.functionCall) ? (str(first.functionCall.name) ?? '') : '', position: i + 1 };
    }
  }
  return undefined;
}

function partsText(parts: unknown, counts: { chars: number; images: number }): { text: string; toolResult: boolean } {
  let text = '';
  let toolResult = false;
  for (const part of asArray(parts)) {
    if (!isObj(part)) continue;
    if (typeof part.text === 'string') {
      text += (text ? ' ' : '') + part.text;
      counts.chars += part.text.length;
    } else if (part.inlineData !== undefined || part.fileData !== undefined) counts.images++;
    else if (isObj(part.functionCall)) counts.chars += textChars(part.functionCall);
    else if (isObj(part.functionResponse)) {
      const r = JSON.stringify(part.functionResponse.response ?? {});
      counts.chars += r.length;
      text += (text ? ' ' : '') + r.slice(0, 200);
      toolResult = true;
    }
  }
  return { text, toolResult };
}

function toGen(model: string, b: Record<string, unknown>, contents: unknown[]): GenRequest {
  const counts = { chars: 0, images: 0 };
  const system = isObj(b.systemInstruction) ? partsText(b.systemInstruction.parts, counts).text : '';
  let lastText = '';
  let lastIsToolResult = false;
  for (const c of contents) {
    if (!isObj(c)) continue;
    const { text, toolResult } = partsText(c.parts, counts);
    const fromUser = c.role === undefined || c.role === 'user' || c.role === 'function';
    if (fromUser) lastText = text;
    lastIsToolResult = fromUser && toolResult;
  }
  const tools = asArray(b.tools)
    .filter(isObj)
    .flatMap((t) => asArray(t.functionDeclarations ?? t.function_declarations))
    .filter(isObj)
    .map((d) => ({ name: str(d.name) ?? 'tool', parameters: d.parameters ?? d.parametersJsonSchema }));
  const fcc =
    isObj(b.toolConfig) && isObj(b.toolConfig.functionCallingConfig) ? b.toolConfig.functionCallingConfig : {};
  const gc = isObj(b.generationConfig) ? b.generationConfig : {};
  let json: GenRequest['json'];
  if (gc.responseMimeType === 'application/json') json = { schema: gc.responseJsonSchema ?? gc.responseSchema };
  // JSON mode cannot go with function calling here, so callers ask for it in the system instruction.
  else json = jsonFromHint(system);
  return {
    model,
    promptChars: counts.chars,
    messageCount: contents.length,
    imageCount: counts.images,
    toolsChars: tools.length > 0 ? JSON.stringify(b.tools).length : 0,
    lastText,
    lastIsToolResult,
    maxTokens: intOrUndef(gc.maxOutputTokens),
    stop: stopList(gc.stopSequences),
    tools,
    toolMode: toolMode(fcc),
    json,
  };
}

function toolMode(fcc: Record<string, unknown>): ToolMode {
  const mode = fcc.mode;
  if (mode === 'NONE') return 'none';
  if (mode === 'ANY') {
    const allowed = asArray(fcc.allowedFunctionNames).filter((n): n is string => typeof n === 'string');
    return allowed[0] !== undefined ? { name: allowed[0] } : 'required';
  }
  return 'auto';
}

function contentText(c: unknown): string {
  if (!isObj(c)) return '';
  return asArray(c.parts)
    .map((p) => (isObj(p) && typeof p.text === 'string' ? p.text : ''))
    .join(' ');
}

function embedOne(x: Exchange): void {
  const text = contentText(x.body.content);
  if (!text) return bad(x, '* EmbedContentRequest.content: contents is not specified');
  sendJson(
    x.res,
    200,
    JSON.stringify({
      embedding: { values: scriptedEmbed(text, clampDims(x.body.outputDimensionality), x.state.embeddingSimilarities) },
    }),
  );
}

function embedBatch(x: Exchange): void {
  const reqs = x.body.requests;
  if (!Array.isArray(reqs) || reqs.length === 0)
    return bad(x, '* BatchEmbedContentsRequest.requests: requests is not specified');
  // As the real API: at most 100 requests in one batch.
  if (reqs.length > 100)
    return bad(x, '* BatchEmbedContentsRequest.requests: at most 100 requests can be in one batch');
  const embeddings: Array<{ values: number[] }> = [];
  for (const r of reqs) {
    const text = isObj(r) ? contentText(r.content) : '';
    if (!text) return bad(x, '* BatchEmbedContentsRequest.requests.content: contents is not specified');
    embeddings.push({
      values: scriptedEmbed(
        text,
        clampDims(isObj(r) ? r.outputDimensionality : undefined),
        x.state.embeddingSimilarities,
      ),
    });
  }
  sendJson(x.res, 200, JSON.stringify({ embeddings }));
}
