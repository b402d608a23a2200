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
import type { ChatMessage, ChatRequest } from '../types.js';
import { isRecord, mimeFromUrl, parseArgs, parseDataUrl, stopList } from '../util.js';

type Part = Record<string, unknown>;
export interface GeminiContent { role: 'user' | 'model'; parts: Part[] }
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

export function toGeminiRequest(req: ChatRequest): GeminiRequest {
  const system: Part[] = [];
  const contents: GeminiContent[] = [];
  const callNames = new Map<string, string>();
  const signaturesRequired = requiresThoughtSignatures(req.model);
  for (const m of req.messages) {
    if (m.role === 'system' || m.role === 'developer') {
      system.push(...textParts(m.content));
      continue;
    }
    let role: GeminiContent['role'];
    let parts: Part[];
    if (m.role === 'assistant') {
      role = 'model';
      parts = modelParts(m, callNames, signaturesRequired);
    } else if (m.role === 'tool') {
      role = 'user';
      parts = [functionResponse(m, callNames)];
    } else {
      role = 'user';
      parts = userParts(m.content);
    }
    if (parts.length === 0) continue;
    const prev = contents[contents.length - 1];
    // Gemini expects user/model turns to alternate; parallel function responses must share one turn.
    if (prev && prev.role === role) prev.parts.push(...parts);
    else contents.push({ role, parts });
  }

  const body: GeminiRequest = { contents };
  const tools = req.tools ?? [];
  if (tools.length > 0) {
    body.tools = [{
      functionDeclarations: tools.map((t) => {
        const decl: Part = { name: t.function.name };
        if (t.function.description) decl['description'] = t.function.description;
        if (isRecord(t.function.parameters)) decl['parametersJsonSchema'] = t.function.parameters;
        return decl;
      }),
    }];
    const cfg = toolConfig(req.tool_choice);
    if (cfg) body.toolConfig = cfg;
  }

  const gen: Record<string, unknown> = {};
  if (typeof req.temperature === 'number') gen['temperature'] = req.temperature;
  if (typeof req.top_p === 'number') gen['topP'] = req.top_p;
  const max = req.max_completion_tokens ?? req.max_tokens;
  if (typeof max === 'number') gen['maxOutputTokens'] = max;
  const stops = stopList(req.stop);
  if (stops) gen['stopSequences'] = stops.slice(0, 5);
  if (typeof req['seed'] === 'number') gen['seed'] = req['seed'];
  if (typeof req['presence_penalty'] === 'number') gen['presencePenalty'] = req['presence_penalty'];
  if (typeof req['frequency_penalty'] === 'number') gen['frequencyPenalty'] = req['frequency_penalty'];

  const fmt = req.response_format;
  if (fmt && (fmt.type === 'json_object' || fmt.type === 'json_schema')) {
    const schema = fmt.type === 'json_schema' && isRecord(fmt.json_schema?.schema) ? fmt.json_schema.schema : undefined;
    if (tools.length === 0) {
      gen['responseMimeType'] = 'application/json';
      if (schema) gen['responseJsonSchema'] = schema;
    } else {
      const hint = schema ? ` matching this JSON schema: ${JSON.stringify(schema)}` : '';
      system.push({ text: `When you give your final answer, reply with a single valid JSON object${hint}, and nothing else: no prose, no code fences.` });
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

function userParts(content: ChatMessage['content']): Part[] {
  if (content == null || typeof content === 'string') return textParts(content);
  const out: Part[] = [];
  for (const p of content) {
    if (p.type === 'text') out.push(...textParts([p]));
    else if (p.type === 'image_url') {
      const url = (p as { image_url?: { url?: unknown } }).image_url?.url;
      if (typeof url === 'string') out.push(mediaPart(url));
    } else if (p.type === 'file') {
      const data = (p as { file?: { file_data?: unknown } }).file?.file_data;
      const parsed = typeof data === 'string' ? parseDataUrl(data) : undefined;
      if (parsed) out.push({ inlineData: { mimeType: parsed.mimeType, data: parsed.data } });
    }
  }
  return out;
}

function mediaPart(url: string): Part {
  const data = parseDataUrl(url);
  if (data) return { inlineData: { mimeType: data.mimeType, data: data.data } };
  return { fileData: { mimeType: mimeFromUrl(url), fileUri: url } };
}

function modelParts(m: ChatMessage, callNames: Map<string, string>, signaturesRequired: boolean): Part[] {
  const out = textParts(m.content);
  const calls = m.tool_calls ?? [];
  for (let i = 0; i < calls.length; i++) {
    const tc = calls[i]!;
    callNames.set(tc.id, tc.function.name);
    const part: Part = { functionCall: { name: tc.function.name, args: parseArgs(tc.function.arguments) } };
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

function functionResponse(m: ChatMessage, callNames: Map<string, string>): Part {
  const name = (m.tool_call_id && callNames.get(m.tool_call_id)) || (typeof m.name === 'string' ? m.name : 'tool');
  const raw = typeof m.content === 'string' ? m.content : Array.isArray(m.content) ? textParts(m.content).map((p) => p['text']).join('') : '';
  // functionResponse.response must be an object: a JSON-object result is sent as is, anything else wrapped.
  let response: Record<string, unknown>;
  try {
    const v: unknown = JSON.parse(raw);
    response = isRecord(v) ? v : { result: v };
  } catch {
    response = { result: raw };
  }
  return { functionResponse: { name, response } };
}
