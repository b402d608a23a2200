// Small helpers shared by the provider translations.
import { randomUUID } from 'node:crypto';
import {
  ProviderError,
  type ChatChunk,
  type ChatMessage,
  type ChatRequest,
  type ContentPart,
  type Usage,
} from './types.js';

export function newId(prefix: string): string {
  return `${prefix}${randomUUID().replace(/-/g, '')}`;
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/** Concatenated text of a message's content (string, or the text parts of a part list). */
export function textOf(content: string | ContentPart[] | null | undefined): string {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  let out = '';
  for (const p of content) {
    if (p.type === 'text' && typeof (p as { text?: unknown }).text === 'string') out += (p as { text: string }).text;
  }
  return out;
}

export interface DataUrl {
  mimeType: string;
  data: string;
}

/** Splits `data:<mime>;base64,<data>`; undefined for anything else. */
export function parseDataUrl(url: string): DataUrl | undefined {
  if (!url.startsWith('data:')) return undefined;
  const comma = url.indexOf(',');
  if (comma < 0) return undefined;
  const meta = url.slice(5, comma);
  if (!meta.endsWith(';base64')) return undefined;
  return { mimeType: meta.slice(0, -7) || 'application/octet-stream', data: url.slice(comma + 1) };
}

/** Throws the refusal of a request that cannot be built for a provider. */
export type Refuse = (message: string) => never;

/**
 * Refuses, for `provider`, a request the caller relies on in a way the provider cannot honour: a
 * 'request' ProviderError, answered as 400 invalid_request_error before anything is sent.
 */
export function refuser(provider: string): Refuse {
  return (message) => {
    throw new ProviderError({ provider, status: 0, retryable: false, kind: 'request', message });
  };
}

/**
 * An `image_url` as the caller sent it: inline base64 data (media type normalised) or an http(s)
 * URL. A data URL that is not base64, or any other scheme, no provider can read: refused.
 */
export function imageSource(url: string, refuse: Refuse): { data: DataUrl } | { url: string } {
  if (url.startsWith('data:')) {
    const data = parseDataUrl(url);
    if (!data) return refuse('image_url: a data URL must be base64-encoded (data:<media type>;base64,<data>)');
    return { data: { mimeType: mediaTypeOf(data.mimeType), data: data.data } };
  }
  if (!/^https?:\/\//i.test(url)) return refuse('image_url: url must be an http(s) URL or a base64 data URL');
  return { url };
}

/** Lower-case media type without parameters; `image/jpg`, a common misspelling, as `image/jpeg`. */
export function mediaTypeOf(mimeType: string): string {
  const t = (mimeType.split(';', 1)[0] ?? '').trim().toLowerCase();
  return t === 'image/jpg' ? 'image/jpeg' : t;
}

const EXT_MIME: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  heic: 'image/heic',
  heif: 'image/heif',
  pdf: 'application/pdf',
};

/** Best guess of a remote file's type from its URL path (providers that need one). */
export function mimeFromUrl(url: string): string {
  const path = url.split(/[?#]/, 1)[0] ?? '';
  const ext = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
  return EXT_MIME[ext] ?? 'image/jpeg';
}

/** Parses tool-call arguments; providers that take objects get `{}` for empty or invalid JSON. */
export function parseArgs(args: string | undefined): Record<string, unknown> {
  if (!args) return {};
  try {
    const v: unknown = JSON.parse(args);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : { value: v };
  } catch {
    return {};
  }
}

export function stopList(stop: string | string[] | undefined | null): string[] | undefined {
  if (stop == null) return undefined;
  const list = (Array.isArray(stop) ? stop : [stop]).filter((s) => typeof s === 'string' && s.length > 0);
  return list.length ? list : undefined;
}

export function usageChunk(
  id: string,
  created: number,
  model: string,
  usage: Usage,
  extra?: Record<string, unknown>,
): ChatChunk {
  return { id, object: 'chat.completion.chunk', created, model, choices: [], usage, ...extra };
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The field of OpenAI's deprecated function calling that asks for function calls, if any: a
 * non-empty `functions`, or a `function_call` naming a function. `functions: []` and
 * `function_call: "auto"` / `"none"` ask for nothing a provider without it would fail to do.
 */
export function legacyFunctionField(req: ChatRequest): 'functions' | 'function_call' | undefined {
  const functions = req['functions'];
  if (Array.isArray(functions) ? functions.length > 0 : functions != null) return 'functions';
  return isRecord(req['function_call']) ? 'function_call' : undefined;
}

/** A message of that function calling, which only providers that take it can read: a role 'function' result or an assistant `function_call`. */
function isLegacyFunctionMessage(m: ChatMessage): boolean {
  return m.role === 'function' || (m.role === 'assistant' && m['function_call'] != null);
}

/**
 * Refuses OpenAI's deprecated function calling for a translation that does not carry it (the model
 * would answer in text instead of calling): the fields that ask for calls, and the messages of such
 * a conversation. `who` names the provider in the message.
 */
export function refuseLegacyFunctionCalling(req: ChatRequest, refuse: Refuse, who: string): void {
  const legacy = legacyFunctionField(req);
  if (legacy)
    refuse(
      `${legacy}: legacy function calling is not translated for ${who}; send ${legacy === 'functions' ? 'tools' : 'tool_choice'} instead`,
    );
  const i = req.messages.findIndex(isLegacyFunctionMessage);
  if (i >= 0)
    refuse(
      `messages.${i}: legacy function calling (role 'function', assistant function_call) is not translated for ${who}; send tool_calls and role 'tool' results instead`,
    );
}

/** A value that says nothing: null, undefined, '' or []. */
export function isEmptyValue(v: unknown): boolean {
  return v == null || v === '' || (Array.isArray(v) && v.length === 0);
}

/** Whether every field of `fields` but those in `except` is empty (a stream delta that carries nothing more). */
export function emptyBesides(fields: object, except: ReadonlySet<string>): boolean {
  const record = fields as Record<string, unknown>;
  for (const key in record) if (!except.has(key) && !isEmptyValue(record[key])) return false;
  return true;
}

/**
 * Whether a tool-call delta starts a call other than the one whose id is `currentId`: it names a
 * function under another id. A delta without an id continues the call, and so does a fragment with
 * a fresh id but no name (some servers send a new id with every fragment of one call). Shared by the
 * OpenAI-format adapter's numbering and the core's StreamAccumulator.
 */
export function startsAnotherCall(currentId: string, t: { id?: string; function?: { name?: string } }): boolean {
  return !!t.id && currentId !== '' && t.id !== currentId && !!t.function?.name;
}
