// OpenAI chat request -> Gemini generateContent request.
//
// Decisions:
// - Tool parameter schemas and response schemas are sent as `parametersJsonSchema` /
//   `responseJsonSchema`, which take standard JSON Schema, so OpenAI schemas pass through without
//   a lossy conversion to Gemini's OpenAPI-subset `Schema`.
// - Gemini rejects JSON mime type together with function calling; when the caller sends tools and
//   asks for JSON, a "reply with JSON only" system instruction is used instead.
// - A tool message carries only tool_call_id; Gemini's functionResponse needs the function name,
//   which is looked up from the assistant turn that made the call.
// - Thought signatures: an assistant tool call's `extra_content.google.thought_signature` (set by
//   response.ts, or by Google's own OpenAI-compatible endpoint) goes back as the `thoughtSignature`
//   of its functionCall part. Gemini 3 rejects a step whose first function call has none, so when
//   the history has no signature for it (calls made by another provider, or by a model that gave
//   none) the placeholder Google documents for such history is sent instead.
// - reasoning_effort becomes a thinking level or budget, as the model takes one (thinking.ts).
// - n becomes candidateCount and logprobs/top_logprobs become responseLogprobs/logprobs; the
//   answer translations map every candidate and its logprobsResult back.
// - Media: base64 data URLs go inline; http(s) URLs go as fileData, which Gemini fetches itself
//   (public and signed URLs, Files API and YouTube URIs). Models before 2.5 cannot fetch arbitrary
//   URLs, so for them only Files API and YouTube URIs are sent and other URLs are refused.
// - Refused with a 'request' ProviderError (400 invalid_request_error, before anything is sent):
//   media in a form Gemini cannot take (a data URL that is not base64, a scheme other than http(s),
//   a file_id, an unknown content part type, media in a tool result, which a functionResponse
//   cannot carry), a conversation with nothing but system text, and legacy function calling
//   (`functions`, a `function_call` naming a function, role 'function' messages, assistant
//   `function_call`), which is not translated: the model would answer in text instead of calling.
// - Dropped, as hints Gemini lacks and OpenAI treats as optional: user, parallel_tool_calls,
//   logit_bias, service_tier, store, metadata; and presence_penalty / frequency_penalty for models
//   other than gemini-1.5 and gemini-2.0 (2.5 and later answer 400 "Penalty is not enabled").
import type { ChatMessage, ChatRequest, ContentPart } from '../types.js';
import {
  imageSource,
  isRecord,
  mediaTypeOf,
  mimeFromUrl,
  parseArgs,
  parseDataUrl,
  refuseLegacyFunctionCalling,
  refuser,
  stopList,
  type Refuse,
} from '../util.js';
import { narrowedTools, refuseOtherAnswerKinds, textOnlyContent } from '../translation-rules.js';
import { geminiThinkingConfig } from './thinking.js';

type Part = Record<string, unknown>;
export interface GeminiContent {
  role: 'user' | 'model';
  parts: Part[];
}
export interface GeminiRequest {
  contents: GeminiContent[];
  systemInstruction?: { parts: Part[] };
  tools?: Array<{ functionDeclarations: Part[] }>;
  toolConfig?: { functionCallingConfig: { mode: 'AUTO' | 'ANY' | 'NONE'; allowedFunctionNames?: string[] } };
  generationConfig?: Record<string, unknown>;
  [k: string]: unknown;
}

/** Google's documented thoughtSignature for function calls the model did not produce itself. */
export const SKIP_THOUGHT_SIGNATURE = 'skip_thought_signature_validator';

/** Gemini 3 and later validate thought signatures on function calls; earlier models do not. */
export function requiresThoughtSignatures(model: string): boolean {
  const m = /^(?:models\/)?gemini-(\d+)/.exec(model);
  return m !== null && Number(m[1]) >= 3;
}

/**
 * Whether the model takes presencePenalty / frequencyPenalty: only the gemini-1.5 and gemini-2.0
 * families do; 2.5 and later (and aliases of them) answer 400 "Penalty is not enabled".
 */
export function takesPenalties(model: string): boolean {
  return /^(?:models\/)?gemini-(?:1\.5|2\.0)(?:-|$)/.test(model);
}

/** `provider`: the registry name, for the error a request Gemini cannot take is refused with. */
export function toGeminiRequest(req: ChatRequest, provider = 'gemini'): GeminiRequest {
  const refuse = refuser(provider);
  refuseLegacyFunctionCalling(req, refuse, 'Gemini');
  refuseOtherAnswerKinds(req, refuse, 'Gemini');
  const media: MediaRules = { refuse, fetchesAnyUrl: fetchesAnyUrl(req.model) };
  const system: Part[] = [];
  const contents: GeminiContent[] = [];
  const calls: CallIndex = new Map();
  const signaturesRequired = requiresThoughtSignatures(req.model);
  for (const m of req.messages) {
    if (m.role === 'system' || m.role === 'developer') {
      system.push(...textParts(textOnlyContent(m, refuse, 'Gemini')));
      continue;
    }
    let role: GeminiContent['role'];
    let parts: Part[];
    if (m.role === 'assistant') {
      role = 'model';
      parts = modelParts(m, calls, signaturesRequired, refuse);
    } else if (m.role === 'tool') {
      role = 'user';
      parts = [functionResponse(m, calls, refuse)];
    } else {
      role = 'user';
      parts = userParts(m.content, media);
    }
    if (parts.length === 0) continue;
    const prev = contents[contents.length - 1];
    // Gemini expects user/model turns to alternate; parallel function responses must share one turn.
    if (prev && prev.role === role) prev.parts.push(...parts);
    else contents.push({ role, parts });
  }
  for (const c of contents) if (c.role === 'user') inCallOrder(c.parts, calls);
  // Gemini refuses a request without contents; system text alone is not a conversation.
  if (contents.length === 0) refuse('messages: at least one user or assistant message with content is required');

  const body: GeminiRequest = { contents };
  const { tools, toolChoice: choiceAsked } = narrowedTools(req, refuse);
  if (tools.length > 0) {
    body.tools = [
      {
        functionDeclarations: tools.map((t) => {
          const decl: Part = { name: t.function.name };
          if (t.function.description) decl['description'] = t.function.description;
          if (isRecord(t.function.parameters)) decl['parametersJsonSchema'] = t.function.parameters;
          return decl;
        }),
      },
    ];
    const cfg = toolConfig(choiceAsked);
    if (cfg) body.toolConfig = cfg;
  }

  const gen: Record<string, unknown> = {};
  if (typeof req.temperature === 'number') gen['temperature'] = req.temperature;
  if (typeof req.top_p === 'number') gen['topP'] = req.top_p;
  // Gemini's own sampling field (`top_k`, as Anthropic names it), which OpenAI lacks.
  if (typeof req['top_k'] === 'number') gen['topK'] = req['top_k'];
  const max = req.max_completion_tokens ?? req.max_tokens;
  if (typeof max === 'number') gen['maxOutputTokens'] = max;
  const stops = stopList(req.stop);
  if (stops) gen['stopSequences'] = stops.slice(0, 5);
  if (typeof req['seed'] === 'number') gen['seed'] = req['seed'];
  // A sampling hint: left out for the models that refuse it.
  if (takesPenalties(req.model)) {
    if (typeof req['presence_penalty'] === 'number') gen['presencePenalty'] = req['presence_penalty'];
    if (typeof req['frequency_penalty'] === 'number') gen['frequencyPenalty'] = req['frequency_penalty'];
  }
  const thinking = geminiThinkingConfig(req, refuse);
  if (thinking) gen['thinkingConfig'] = thinking;
  if (typeof req['n'] === 'number' && req['n'] > 1) gen['candidateCount'] = req['n'];
  if (req['logprobs'] === true) {
    gen['responseLogprobs'] = true;
    const top = req['top_logprobs'];
    if (typeof top === 'number' && top > 0) gen['logprobs'] = top;
  }

  const fmt = req.response_format;
  if (fmt && (fmt.type === 'json_object' || fmt.type === 'json_schema')) {
    const schema = fmt.type === 'json_schema' && isRecord(fmt.json_schema?.schema) ? fmt.json_schema.schema : undefined;
    if (tools.length === 0) {
      gen['responseMimeType'] = 'application/json';
      if (schema) gen['responseJsonSchema'] = schema;
    } else {
      const hint = schema ? ` matching this JSON schema: ${JSON.stringify(schema)}` : '';
      system.push({
        text: `When you give your final answer, reply with a single valid JSON object${hint}, and nothing else: no prose, no code fences.`,
      });
    }
  }
  if (Object.keys(gen).length > 0) body.generationConfig = gen;
  if (system.length > 0) body.systemInstruction = { parts: system };
  return body;
}

function toolConfig(choice: unknown): GeminiRequest['toolConfig'] {
  if (choice === 'auto') return { functionCallingConfig: { mode: 'AUTO' } };
  if (choice === 'none') return { functionCallingConfig: { mode: 'NONE' } };
  if (choice === 'required') return { functionCallingConfig: { mode: 'ANY' } };
  if (isRecord(choice) && isRecord(choice['function']) && typeof choice['function']['name'] === 'string') {
    return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice['function']['name']] } };
  }
  return undefined;
}

function textParts(content: ChatMessage['content']): Part[] {
  if (content == null) return [];
  if (typeof content === 'string') return content ? [{ text: content }] : [];
  const out: Part[] = [];
  for (const p of content) {
    const text = (p as { text?: unknown }).text;
    if (p.type === 'text' && typeof text === 'string' && text !== '') out.push({ text });
  }
  return out;
}

interface MediaRules {
  refuse: Refuse;
  /** Whether the model fetches any http(s) URL, or only Files API and YouTube URIs. */
  fetchesAnyUrl: boolean;
}

/**
 * Gemini fetches public and signed http(s) URLs for 2.5 and later models; earlier ones (1.x, 2.0)
 * take only Files API and YouTube URIs. Unknown names (aliases like gemini-flash-latest) are
 * taken to be current.
 */
export function fetchesAnyUrl(model: string): boolean {
  const m = /^(?:models\/)?gemini-(\d+)(?:\.(\d+))?/.exec(model);
  if (!m) return true;
  const major = Number(m[1]);
  const minor = Number(m[2] ?? 0);
  return major > 2 || (major === 2 && minor >= 5);
}

/** URIs every Gemini model reads: files uploaded to the Files API, and YouTube videos. */
const ALWAYS_FETCHED = /^https:\/\/(?:generativelanguage\.googleapis\.com\/|(?:www\.|m\.)?youtube\.com\/|youtu\.be\/)/i;

function userParts(content: ChatMessage['content'], media: MediaRules): Part[] {
  if (content == null || typeof content === 'string') return textParts(content);
  const out: Part[] = [];
  for (const p of content) {
    if (p.type === 'text') out.push(...textParts([p]));
    else if (p.type === 'image_url') {
      const url = (p as { image_url?: { url?: unknown } }).image_url?.url;
      if (typeof url !== 'string') media.refuse('image_url: url is required');
      out.push(mediaPart(url as string, media));
    } else if (p.type === 'input_audio') out.push(audioPart(p, media.refuse));
    else if (p.type === 'file') out.push(filePart(p, media.refuse));
    else {
      // Silently sending a prompt without what the caller attached would answer a different question.
      media.refuse(
        `content part type '${String(p.type).slice(0, 40)}' is not supported by Gemini (text, image_url, input_audio and file are)`,
      );
    }
  }
  return out;
}

function mediaPart(url: string, media: MediaRules): Part {
  const source = imageSource(url, media.refuse);
  if ('data' in source) return { inlineData: source.data };
  if (!media.fetchesAnyUrl && !ALWAYS_FETCHED.test(url)) {
    return media.refuse(
      'image_url: this Gemini model cannot fetch images from URLs (Gemini 2.5 and later can); send the image as a base64 data URL',
    );
  }
  // A Files API or YouTube URI names a file whose type Gemini knows (a video, a PDF): it infers it.
  // Labelled as an image, such a file is refused or misread.
  if (ALWAYS_FETCHED.test(url)) return { fileData: { fileUri: url } };
  return { fileData: { mimeType: mimeFromUrl(url), fileUri: url } };
}

/** OpenAI's input_audio part ({data, format: wav|mp3}) as inline audio. */
function audioPart(p: ContentPart, refuse: Refuse): Part {
  const audio = (p as { input_audio?: { data?: unknown; format?: unknown } }).input_audio;
  const format = typeof audio?.format === 'string' ? audio.format.toLowerCase() : '';
  if (typeof audio?.data !== 'string' || audio.data === '' || !/^[a-z0-9]{1,10}$/.test(format)) {
    return refuse('input_audio: data (base64) and format are required');
  }
  return { inlineData: { mimeType: `audio/${format}`, data: audio.data } };
}

/** An OpenAI `file` part: base64 file_data goes inline; a file_id means nothing to Gemini. */
function filePart(p: ContentPart, refuse: Refuse): Part {
  const data = (p as { file?: { file_data?: unknown } }).file?.file_data;
  const parsed = typeof data === 'string' ? parseDataUrl(data) : undefined;
  if (!parsed)
    return refuse(
      'file: only base64 file_data (data:<media type>;base64,<data>) can be sent to Gemini; file_id cannot',
    );
  return { inlineData: { mimeType: mediaTypeOf(parsed.mimeType), data: parsed.data } };
}

/**
 * The tool calls of the conversation by id: their function's name and their place in it. Gemini
 * pairs a functionResponse with its functionCall by `id` when both carry one, else by position
 * within the turn; OpenAI pairs them by `tool_call_id`, and a client may send parallel results in
 * any order. Both are given here: each call and its result carry the call's id, and a turn's
 * results go in the order of the calls (two calls to one function answered out of order would
 * otherwise swap their results, silently).
 */
type CallIndex = Map<string, { name: string; position: number }>;

function modelParts(m: ChatMessage, index: CallIndex, signaturesRequired: boolean, refuse: Refuse): Part[] {
  const out = textParts(textOnlyContent(m, refuse, 'Gemini'));
  const calls = m.tool_calls ?? [];
  for (let i = 0; i < calls.length; i++) {
    const tc = calls[i]!;
    const call: Part = { name: tc.function.name, args: parseArgs(tc.function.arguments) };
    if (tc.id) {
      index.set(tc.id, { name: tc.function.name, position: index.size });
      call['id'] = tc.id;
    }
    const part: Part = { functionCall: call };
    // Parallel calls: Gemini signs only the first, so only the first needs the placeholder.
    const signature = thoughtSignatureOf(tc) ?? (signaturesRequired && i === 0 ? SKIP_THOUGHT_SIGNATURE : undefined);
    if (signature !== undefined) part['thoughtSignature'] = signature;
    out.push(part);
  }
  return out;
}

/** The signature a tool call carries as `extra_content.google.thought_signature`, if any. */
function thoughtSignatureOf(tc: unknown): string | undefined {
  const extra = isRecord(tc) ? tc['extra_content'] : undefined;
  const google = isRecord(extra) ? extra['google'] : undefined;
  const signature = isRecord(google) ? google['thought_signature'] : undefined;
  return typeof signature === 'string' && signature !== '' ? signature : undefined;
}

/** Puts a user turn's functionResponse parts in the order of their calls, the other parts where they are. */
function inCallOrder(parts: Part[], index: CallIndex): void {
  const slots: number[] = [];
  for (let i = 0; i < parts.length; i++) if (parts[i]!['functionResponse']) slots.push(i);
  if (slots.length < 2) return;
  const positionOf = (p: Part) =>
    index.get((p['functionResponse'] as { id?: string }).id ?? '')?.position ?? Number.MAX_SAFE_INTEGER;
  // A stable sort: results whose call is unknown keep their order, after the known ones.
  const ordered = slots.map((i) => parts[i]!).sort((a, b) => positionOf(a) - positionOf(b));
  slots.forEach((slot, k) => (parts[slot] = ordered[k]!));
}

function functionResponse(m: ChatMessage, index: CallIndex, refuse: Refuse): Part {
  // A functionResponse holds JSON only: an image or file in a tool result would be lost.
  const media = Array.isArray(m.content) ? m.content.find((p) => p.type !== 'text') : undefined;
  if (media)
    refuse(
      `tool message content: Gemini takes text tool results only, not '${String(media.type).slice(0, 40)}' parts; send media in a user message`,
    );
  const call = m.tool_call_id ? index.get(m.tool_call_id) : undefined;
  const name = call?.name || (typeof m.name === 'string' ? m.name : 'tool');
  const raw =
    typeof m.content === 'string'
      ? m.content
      : Array.isArray(m.content)
        ? textParts(m.content)
            .map((p) => p['text'])
            .join('')
        : '';
  // functionResponse.response must be an object: a JSON-object result is sent as is, anything else wrapped.
  let response: Record<string, unknown>;
  try {
    const v: unknown = JSON.parse(raw);
    response = isRecord(v) ? v : { result: v };
  } catch {
    response = { result: raw };
  }
  return { functionResponse: call ? { id: m.tool_call_id, name, response } : { name, response } };
}
