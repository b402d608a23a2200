// OpenAI chat request -> Anthropic Messages API request.
//
// Decisions:
// - max_tokens is required by Anthropic; when the caller sets neither max_completion_tokens nor
//   max_tokens we send DEFAULT_MAX_TOKENS (4096), or THINKING_DEFAULT_MAX_TOKENS to a model that
//   thinks by default (model-rules.ts), whose thinking counts against it.
// - temperature is clamped to Anthropic's 0..1 range; when both temperature and top_p are given only
//   temperature is sent (newer Claude models reject requests that set both). Models that refuse the
//   sampling settings altogether (model-rules.ts) get none of them: hints they cannot follow.
// - reasoning_effort: Anthropic's effort on the models that take it; on the models that think only
//   when asked, it also turns their thinking on (optInThinking).
// - Models that refuse forced tool use (model-rules.ts) get JSON mode as an instruction (as when
//   the caller sends tools), and a tool_choice that forces a tool is refused.
// - JSON mode: Anthropic has no response_format. With no caller tools we force a single tool named
//   JSON_TOOL_NAME whose input_schema is the requested schema (`{type:'object'}` for json_object);
//   the model must answer through it, and the response/stream translators turn its input back into
//   plain message content with finish_reason 'stop'. When the caller also sends tools, forcing a tool
//   would break their tool use, so we append a "reply with JSON only" system instruction instead.
// - Anthropic refuses tool_use/tool_result blocks in a request that defines no tools; OpenAI takes
//   them (the usual "summarise" turn after a tool loop is sent without tools). With no caller tools,
//   the functions the history called are defined as bare tools and tool_choice is 'none', so the
//   model can read the history but call nothing.
// - A tool schema without a top-level `type` (e.g. `parameters: {}`) is sent with `type: 'object'`,
//   which Anthropic requires and OpenAI assumes.
// - Refused with a 'request' ProviderError (400 invalid_request_error, before anything is sent),
//   because the caller relies on them and Anthropic has no way to honour them: n > 1, logprobs,
//   content parts Anthropic cannot take (audio, files other than PDFs and images, file ids),
//   images that are not http(s) URLs or base64 data URLs of JPEG, PNG, GIF or WebP, a
//   conversation with nothing but system text, and legacy function calling (`functions`, a
//   `function_call` naming a function, role 'function' messages, assistant `function_call`), which
//   is not translated: the model would answer in text instead of calling the function.
// - Dropped, as hints Anthropic lacks and OpenAI treats as optional: seed, presence_penalty,
//   frequency_penalty, logit_bias, service_tier, store, metadata, top_p when temperature is set.
//   Text of whitespace only (a "\n\n" before a tool call) is left out: Anthropic refuses such blocks.
import { createHash } from 'node:crypto';
import type { ChatMessage, ChatRequest, ContentPart } from '../types.js';
import {
  imageSource,
  isRecord,
  mediaTypeOf,
  parseArgs,
  parseDataUrl,
  refuseLegacyFunctionCalling,
  refuser,
  stopList,
  textOf,
  type Refuse,
} from '../util.js';
import {
  askedEffort,
  narrowedTools,
  refuseOtherAnswerKinds,
  textOnlyContent,
  type ReasoningEffort,
} from '../translation-rules.js';
import {
  anthropicEffort,
  canDisableThinking,
  takesEffort,
  takesForcedTool,
  takesSampling,
  thinkingSwitch,
  thinksByDefault,
} from './model-rules.js';
import { thinkingToSend } from './thinking.js';

export const DEFAULT_MAX_TOKENS = 4096;
/** The default for a model that thinks before answering: its thinking is part of max_tokens. */
export const THINKING_DEFAULT_MAX_TOKENS = 16_384;
export const JSON_TOOL_NAME = 'json_response';
/** Description of a tool defined only because the history calls it (see toAnthropicRequest). */
export const HISTORY_TOOL_DESCRIPTION = 'Called earlier in this conversation; not available now.';

type Block = Record<string, unknown>;
export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: string | Block[];
}
export interface AnthropicRequest {
  model: string;
  messages: AnthropicMessage[];
  max_tokens: number;
  system?: string | Block[];
  temperature?: number;
  top_p?: number;
  stop_sequences?: string[];
  stream?: boolean;
  tools?: Block[];
  tool_choice?: Block;
  metadata?: { user_id: string };
  [k: string]: unknown;
}

export interface AnthropicTranslation {
  body: AnthropicRequest;
  /** True when JSON mode is implemented through the forced JSON_TOOL_NAME tool. */
  jsonTool: boolean;
}

/** Image media types Anthropic accepts in a base64 source. */
const IMAGE_TYPES: ReadonlySet<string> = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/**
 * `provider`: the registry name, for the error a request Anthropic cannot take is refused with.
 */
export function toAnthropicRequest(req: ChatRequest, provider = 'anthropic'): AnthropicTranslation {
  const refuse = refuser(provider);
  refuseUnsupportedOptions(req, refuse);
  const system: Block[] = [];
  const turns: AnthropicMessage[] = [];
  // Distinct names of the functions the history's assistant turns called.
  const called: string[] = [];
  for (const m of req.messages) {
    if (m.role === 'system' || m.role === 'developer') {
      system.push(...textBlocks(textOnlyContent(m, refuse, 'Anthropic')));
      continue;
    }
    const role = m.role === 'assistant' ? 'assistant' : 'user';
    const blocks =
      m.role === 'assistant'
        ? assistantBlocks(m, called, refuse, req.model)
        : m.role === 'tool'
          ? [toolResult(m, refuse)]
          : userBlocks(m.content, refuse);
    if (blocks.length === 0) continue;
    const prev = turns[turns.length - 1];
    // Anthropic wants alternating turns: consecutive same-role messages (e.g. several tool results)
    // become one turn.
    if (prev && prev.role === role) (prev.content as Block[]).push(...blocks);
    else turns.push({ role, content: blocks });
  }
  // Anthropic refuses an empty message list; system text alone is not a conversation.
  if (turns.length === 0) refuse('messages: at least one user or assistant message with content is required');
  // A lone text block is sent as a plain string: smaller and what Anthropic's own examples use.
  for (const t of turns) {
    const only = t.content.length === 1 ? (t.content as Block[])[0] : undefined;
    if (only && only['type'] === 'text' && only['cache_control'] === undefined) t.content = only['text'] as string;
  }

  /** The model thinks before answering unless told not to (model-rules.ts). */
  const thinks = thinksByDefault(req.model);
  const body: AnthropicRequest = {
    model: req.model,
    messages: turns,
    max_tokens:
      req.max_completion_tokens ?? req.max_tokens ?? (thinks ? THINKING_DEFAULT_MAX_TOKENS : DEFAULT_MAX_TOKENS),
  };
  if (takesSampling(req.model)) {
    if (typeof req.temperature === 'number') body.temperature = Math.min(1, Math.max(0, req.temperature));
    else if (typeof req.top_p === 'number') body.top_p = req.top_p;
    // Anthropic's own sampling field, which OpenAI lacks: sent by callers who know the provider.
    if (typeof req['top_k'] === 'number') body['top_k'] = req['top_k'];
  }
  // OpenAI's reasoning_effort as Anthropic's effort, on the models that take it, and as thinking on
  // the models that think only when asked to (optInThinking, below).
  const effort = takesEffort(req.model) || thinkingSwitch(req.model) !== 'none' ? askedEffort(req, refuse) : undefined;
  if (effort !== undefined && takesEffort(req.model))
    body['output_config'] = { effort: anthropicEffort(req.model, effort) };
  if (thinks && req['thinking'] === undefined) unthoughtToolTurn(req, body, refuse);
  const forcedToolTaken = takesForcedTool(req.model);
  const stops = stopList(req.stop);
  // Anthropic refuses a stop sequence of whitespace only; dropping it would let the answer run on
  // past the line or blank the caller meant to stop at.
  const blank = stops?.find((s) => s.trim() === '');
  if (blank !== undefined)
    refuse(`stop: Anthropic does not accept a stop sequence of whitespace only (${JSON.stringify(blank)})`);
  if (stops) body.stop_sequences = stops;
  if (typeof req.user === 'string' && req.user) body.metadata = { user_id: req.user };

  const { tools, toolChoice: choiceAsked } = narrowedTools(req, refuse);
  if (tools.length > 0) {
    body.tools = tools.map((t) => {
      const tool: Block = { name: t.function.name };
      if (t.function.description) tool['description'] = t.function.description;
      tool['input_schema'] = isRecord(t.function.parameters)
        ? objectSchema(t.function.parameters)
        : { type: 'object', properties: {} };
      return tool;
    });
    const choice = toolChoice(choiceAsked, req['parallel_tool_calls'] === false);
    if (!forcedToolTaken && (choice?.['type'] === 'any' || choice?.['type'] === 'tool')) {
      refuse(
        `tool_choice: ${req.model} does not take forced tool use (Anthropic refuses it); send "auto" and ask for the tool in the prompt`,
      );
    }
    if (choice) body.tool_choice = choice;
  } else if (called.length > 0) {
    // Anthropic refuses tool_use/tool_result blocks unless tools are defined: define what the
    // history called, and let the model call none of it.
    body.tools = called.map((name) => ({
      name,
      description: HISTORY_TOOL_DESCRIPTION,
      input_schema: { type: 'object' },
    }));
    body.tool_choice = { type: 'none' };
  }

  let jsonTool = false;
  const fmt = req.response_format;
  if (fmt && (fmt.type === 'json_object' || fmt.type === 'json_schema')) {
    const schema =
      fmt.type === 'json_schema' && isRecord(fmt.json_schema?.schema)
        ? objectSchema(fmt.json_schema.schema)
        : { type: 'object' };
    if (tools.length === 0 && forcedToolTaken) {
      jsonTool = true;
      const answer: Block = {
        name: JSON_TOOL_NAME,
        description: 'Return the final answer as JSON matching this schema.',
        input_schema: schema,
      };
      // Tools defined for the history (above) stay, so its tool blocks are accepted; names are unique.
      body.tools = body.tools ? body.tools.filter((t) => t['name'] !== JSON_TOOL_NAME).concat(answer) : [answer];
      body.tool_choice = { type: 'tool', name: JSON_TOOL_NAME };
    } else {
      const hint = fmt.type === 'json_schema' ? ` matching this JSON schema: ${JSON.stringify(schema)}` : '';
      system.push({
        type: 'text',
        text: `When you give your final answer, reply with a single valid JSON object${hint}, and nothing else: no prose, no code fences.`,
      });
    }
  }

  // Anthropic: thinking may not be on when tool_choice forces a tool. A model that thinks by default
  // (and may be told not to: the others refuse forced tool use, above) answers a forced call, JSON
  // mode's included, without thinking.
  const forced = body.tool_choice?.['type'] === 'any' || body.tool_choice?.['type'] === 'tool';
  if (forced && thinks && req['thinking'] === undefined) body['thinking'] = { type: 'disabled' };
  else if (!thinks && effort !== undefined) optInThinking(req, body, effort, forced);

  if (system.length > 0) {
    body.system = system.every((b) => b['cache_control'] === undefined)
      ? system.map((b) => b['text'] as string).join('\n\n')
      : system;
  }
  return { body, jsonTool };
}

/** Options the caller relies on that Anthropic cannot honour. */
function refuseUnsupportedOptions(req: ChatRequest, refuse: Refuse): void {
  if (typeof req['n'] === 'number' && req['n'] > 1)
    refuse('n: Anthropic returns one choice per request; send n = 1 (or leave it out)');
  if (req['logprobs'] === true) refuse('logprobs: Anthropic does not return token log probabilities');
  refuseLegacyFunctionCalling(req, refuse, 'Anthropic');
  refuseOtherAnswerKinds(req, refuse, 'Anthropic');
}

/**
 * A tool's JSON schema as Anthropic takes it: it requires a top-level `type` ('object'), which
 * OpenAI assumes when it is missing (`parameters: {}`). The caller's object is not changed.
 */
function objectSchema(schema: Record<string, unknown>): Record<string, unknown> {
  if (schema['type'] !== undefined) return schema;
  const out: Record<string, unknown> = { type: 'object' };
  for (const k of Object.keys(schema)) if (k !== 'type') out[k] = schema[k];
  return out;
}

function toolChoice(choice: unknown, noParallel: boolean): Block | undefined {
  let out: Block | undefined;
  if (choice === 'auto') out = { type: 'auto' };
  else if (choice === 'none') out = { type: 'none' };
  else if (choice === 'required') out = { type: 'any' };
  else if (isRecord(choice) && isRecord(choice['function']) && typeof choice['function']['name'] === 'string') {
    out = { type: 'tool', name: choice['function']['name'] };
  }
  if (noParallel && out?.['type'] !== 'none') {
    out = Object.assign({}, out ?? { type: 'auto' }, { disable_parallel_tool_use: true });
  }
  return out;
}

/** Anthropic refuses a text block without a visible character ("text content blocks must contain non-whitespace text"). */
const VISIBLE = /\S/;

function textBlocks(content: ChatMessage['content']): Block[] {
  if (content == null) return [];
  if (typeof content === 'string') return VISIBLE.test(content) ? [{ type: 'text', text: content }] : [];
  const out: Block[] = [];
  for (const p of content) {
    const b = textBlock(p);
    if (b) out.push(b);
  }
  return out;
}

function textBlock(p: ContentPart): Block | undefined {
  const text = (p as { text?: unknown }).text;
  if (p.type !== 'text' || typeof text !== 'string' || !VISIBLE.test(text)) return undefined;
  const b: Block = { type: 'text', text };
  // Prompt-caching hints written in Anthropic's own style pass straight through.
  const cache = (p as { cache_control?: unknown }).cache_control;
  if (cache !== undefined) b['cache_control'] = cache;
  return b;
}

function userBlocks(content: ChatMessage['content'], refuse: Refuse): Block[] {
  if (content == null || typeof content === 'string') return textBlocks(content);
  const out: Block[] = [];
  for (const p of content) {
    if (p.type === 'text') {
      const b = textBlock(p);
      if (b) out.push(b);
    } else if (p.type === 'image_url') {
      const url = (p as { image_url?: { url?: unknown } }).image_url?.url;
      if (typeof url !== 'string') refuse('image_url: url is required');
      out.push(imageBlock(url as string, refuse));
    } else if (p.type === 'file') {
      out.push(fileBlock(p, refuse));
    } else {
      // Silently sending a prompt without the audio or file the caller attached would answer a
      // different question.
      refuse(
        `content part type '${String(p.type).slice(0, 40)}' is not supported by Anthropic (text, image_url and file are)`,
      );
    }
  }
  return out;
}

function imageBlock(url: string, refuse: Refuse): Block {
  const source = imageSource(url, refuse);
  // Anthropic fetches http(s) images itself.
  if ('url' in source) return { type: 'image', source: { type: 'url', url: source.url } };
  const { mimeType, data } = source.data;
  if (!IMAGE_TYPES.has(mimeType))
    return refuse(
      `image_url: media type '${mimeType.slice(0, 60)}' is not supported by Anthropic (image/jpeg, image/png, image/gif, image/webp)`,
    );
  return { type: 'image', source: { type: 'base64', media_type: mimeType, data } };
}

/** An OpenAI `file` part: a base64 PDF becomes a document, a base64 image an image. */
function fileBlock(p: ContentPart, refuse: Refuse): Block {
  const data = (p as { file?: { file_data?: unknown } }).file?.file_data;
  const parsed = typeof data === 'string' ? parseDataUrl(data) : undefined;
  if (!parsed)
    return refuse(
      'file: only base64 file_data (data:<media type>;base64,<data>) can be sent to Anthropic; file_id cannot',
    );
  const mediaType = mediaTypeOf(parsed.mimeType);
  if (mediaType === 'application/pdf')
    return { type: 'document', source: { type: 'base64', media_type: mediaType, data: parsed.data } };
  if (IMAGE_TYPES.has(mediaType))
    return { type: 'image', source: { type: 'base64', media_type: mediaType, data: parsed.data } };
  return refuse(
    `file: media type '${mediaType.slice(0, 60)}' is not supported by Anthropic (application/pdf and JPEG, PNG, GIF, WebP images)`,
  );
}

/**
 * A model that thinks by default needs the thinking blocks of the tool call it is continuing from
 * (thinking.ts); when that call came from another provider or model, or its blocks were not kept,
 * there are none to send, and Anthropic refuses the request. Such a request goes with thinking
 * turned off, which the model then takes; a model that cannot turn it off (Opus 5.5, Fable) is
 * refused before sending, so a routed call moves to another target.
 */
function unthoughtToolTurn(req: ChatRequest, body: AnthropicRequest, refuse: Refuse): void {
  if (!continuesUnthoughtCall(req)) return;
  if (canDisableThinking(req.model)) body['thinking'] = { type: 'disabled' };
  else
    refuse(
      `messages: ${req.model} continues a tool call only with the thinking blocks it wrote before it, and the last tool call has none (another model made it, or extra_content was not sent back)`,
    );
}

/** Whether the conversation ends with an assistant message, which Anthropic takes as a prefill (refused with thinking). */
function endsWithPrefill(req: ChatRequest): boolean {
  return req.messages[req.messages.length - 1]?.role === 'assistant';
}

/** Whether the last assistant turn called a tool without thinking blocks of the request's model before it. */
function continuesUnthoughtCall(req: ChatRequest): boolean {
  let last: ChatMessage | undefined;
  for (const m of req.messages) if (m.role === 'assistant') last = m;
  const first = last?.tool_calls?.[0];
  return first !== undefined && thinkingToSend(first.extra_content, req.model).length === 0;
}

/** Thinking budgets for OpenAI's efforts on the models that think within one (model-rules.ts). */
const THINKING_BUDGETS: Record<Exclude<ReasoningEffort, 'none'>, number> = {
  minimal: 1_024,
  low: 1_024,
  medium: 4_096,
  high: 12_288,
  xhigh: 24_576,
};
/** Anthropic's smallest thinking budget. */
const MIN_THINKING_BUDGET = 1_024;

/**
 * Turns on the thinking of a model that thinks only when asked to (model-rules.ts thinkingSwitch),
 * for a reasoning effort other than "none": adaptive thinking where the model has it, else a budget
 * by effort (1,024 for low and minimal, 4,096 medium, 12,288 high, 24,576 xhigh), with max_tokens
 * raised by it when the caller set none, or halved into it when the caller did (no thinking when
 * that leaves less than Anthropic's 1,024). Not when a tool is forced, when the conversation ends
 * with a prefill (an assistant message), or when the turn continues a tool call the model made
 * without thinking: Anthropic refuses thinking in each case, and the effort is a hint. Thinking
 * takes no sampling settings (those are left out, as hints too).
 */
function optInThinking(req: ChatRequest, body: AnthropicRequest, effort: ReasoningEffort, forced: boolean): void {
  const kind = thinkingSwitch(req.model);
  if (
    effort === 'none' ||
    (kind !== 'adaptive' && kind !== 'budget') ||
    forced ||
    endsWithPrefill(req) ||
    continuesUnthoughtCall(req)
  )
    return;
  const asked = req.max_completion_tokens ?? req.max_tokens;
  if (kind === 'adaptive') {
    body['thinking'] = { type: 'adaptive' };
    if (asked == null) body.max_tokens = THINKING_DEFAULT_MAX_TOKENS;
  } else {
    let budget = THINKING_BUDGETS[effort];
    if (asked != null) budget = Math.min(budget, Math.floor(asked / 2));
    else body.max_tokens = budget + DEFAULT_MAX_TOKENS;
    if (budget < MIN_THINKING_BUDGET) return;
    body['thinking'] = { type: 'enabled', budget_tokens: budget };
  }
  delete body.temperature;
  delete body.top_p;
  delete body['top_k'];
}

/**
 * An assistant turn's blocks: its text, then its tool calls. The thinking blocks `model` wrote
 * before a call go back with it (thinking.ts): the first call's ahead of everything else, as
 * Anthropic wants a turn with thinking to begin with it, the others just before their call.
 * `called`: collects the distinct names of the functions called.
 */
function assistantBlocks(m: ChatMessage, called: string[], refuse: Refuse, model: string): Block[] {
  const out = textBlocks(textOnlyContent(m, refuse, 'Anthropic'));
  let lead: Block[] = [];
  (m.tool_calls ?? []).forEach((tc, i) => {
    const name = tc.function.name;
    if (!called.includes(name)) called.push(name);
    const thinking = thinkingToSend(tc.extra_content, model);
    if (i === 0) lead = thinking;
    else out.push(...thinking);
    out.push({ type: 'tool_use', id: toolId(tc.id), name, input: parseArgs(tc.function.arguments) });
  });
  return lead.length > 0 ? lead.concat(out) : out;
}

function toolResult(m: ChatMessage, refuse: Refuse): Block {
  const b: Block = { type: 'tool_result', tool_use_id: toolId(m.tool_call_id ?? '') };
  if (typeof m.content === 'string') b['content'] = m.content;
  else if (Array.isArray(m.content)) b['content'] = userBlocks(m.content, refuse);
  else b['content'] = textOf(m.content);
  return b;
}

/**
 * Anthropic tool ids must match ^[a-zA-Z0-9_-]+$; ids minted by other providers may not. An id
 * that needs cleaning also gets a digest of itself, so two ids that differ only in characters
 * cleaned away (`call.1`, `call:1`) stay two ids (the same every time: a call and its result agree).
 */
function toolId(id: string): string {
  if (VALID_TOOL_ID.test(id)) return id;
  if (id === '') return 'toolu_missing';
  return `${id.replace(/[^a-zA-Z0-9_-]/g, '_')}_${createHash('sha256').update(id).digest('base64url').slice(0, 10)}`;
}

const VALID_TOOL_ID = /^[a-zA-Z0-9_-]+$/;
