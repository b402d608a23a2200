// Rules the translated providers (Anthropic, Gemini) share for what OpenAI requests ask: what a
// provider without OpenAI's form gets instead, and what it cannot honour and refuses; and the
// reasoning effort every provider family maps onto its own values.
import type { ChatMessage, ChatRequest, ContentPart } from './types.js';
import { isEmptyValue, isRecord, type Refuse } from './util.js';

/**
 * The content of a system, developer or assistant message, for a provider that takes text only in
 * those (Anthropic, Gemini). A part of another kind would be dropped, and the model asked to
 * describe an image it never got, or the assistant's turn lost: it is refused instead. OpenAI's
 * `refusal` part, or `refusal` field beside empty content, the assistant's refusal text, is its text.
 */
export function textOnlyContent(m: ChatMessage, refuse: Refuse, provider: string): ChatMessage['content'] {
  // OpenAI's shape for a refused answer: no content, the refusal beside it. Dropping it would merge
  // the turns around it and leave the model unaware that it refused.
  const refusal = (m as { refusal?: unknown }).refusal;
  if (
    m.role === 'assistant' &&
    (m.content == null || m.content === '') &&
    typeof refusal === 'string' &&
    refusal !== ''
  )
    return refusal;
  if (!Array.isArray(m.content)) return m.content;
  let out: ContentPart[] | undefined;
  for (let i = 0; i < m.content.length; i++) {
    const p = m.content[i]!;
    if (p.type === 'text') continue;
    const refusal = (p as { refusal?: unknown }).refusal;
    if (m.role === 'assistant' && p.type === 'refusal' && typeof refusal === 'string') {
      (out ??= [...m.content])[i] = { type: 'text', text: refusal };
      continue;
    }
    refuse(
      `${m.role} message content: ${provider} takes text only in ${m.role} messages, not '${String(p.type).slice(0, 40)}' parts; send media in a user message`,
    );
  }
  return out ?? m.content;
}

/**
 * OpenAI's `tool_choice: {type: "allowed_tools", allowed_tools: {mode, tools}}` narrows the tools
 * the model may call (mode `auto` or `required`) while `tools` stays whole (for prompt caching).
 * A provider without it (Anthropic, Gemini) gets the narrowed list and the plain choice, which
 * ask the model the same; without this, it would be free to call the tools the caller excluded.
 */
export function narrowedTools(
  req: ChatRequest,
  refuse: Refuse,
): { tools: NonNullable<ChatRequest['tools']>; toolChoice: unknown } {
  const tools = req.tools ?? [];
  const choice = req.tool_choice;
  if (!isRecord(choice) || choice['type'] !== 'allowed_tools') return { tools, toolChoice: choice };
  const allowed = isRecord(choice['allowed_tools']) ? choice['allowed_tools'] : {};
  const mode = allowed['mode'];
  if (mode !== 'auto' && mode !== 'required')
    return refuse(`tool_choice.allowed_tools.mode must be 'auto' or 'required'`);
  const listed = Array.isArray(allowed['tools']) ? allowed['tools'] : [];
  const names = new Set(
    listed.flatMap((t) =>
      isRecord(t) && isRecord(t['function']) && typeof t['function']['name'] === 'string'
        ? [t['function']['name']]
        : [],
    ),
  );
  const kept = tools.filter((t) => names.has(t.function.name));
  if (kept.length === 0) return refuse('tool_choice.allowed_tools must name at least one function of `tools`');
  return { tools: kept, toolChoice: mode };
}

/**
 * OpenAI fields that ask for a different kind of answer than a translated provider gives: audio
 * (`modalities` with "audio", `audio`) and web search (`web_search_options`). The answer would
 * come back as text, written without a search: refused instead.
 */
export function refuseOtherAnswerKinds(req: ChatRequest, refuse: Refuse, who: string): void {
  const modalities = req['modalities'];
  if ((Array.isArray(modalities) && modalities.includes('audio')) || !isEmptyValue(req['audio'])) {
    refuse(`modalities/audio: ${who} answers in text only through this endpoint; leave out "audio"`);
  }
  if (req['web_search_options'] !== undefined && req['web_search_options'] !== null) {
    refuse(
      `web_search_options: ${who} has no web search through this endpoint; pick a model whose provider has it (OpenAI's search models)`,
    );
  }
}

/** The efforts OpenAI's Chat Completions takes, lowest first. */
export const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

/**
 * The request's `reasoning_effort`, for a provider that maps it onto its own setting: undefined
 * when unset or null; a value OpenAI does not have is refused, since dropping a typo would leave the
 * caller paying for the model's default thinking without knowing.
 */
export function askedEffort(req: ChatRequest, refuse: Refuse): ReasoningEffort | undefined {
  const effort = req['reasoning_effort'];
  if (effort === undefined || effort === null) return undefined;
  if (typeof effort !== 'string' || !(REASONING_EFFORTS as readonly string[]).includes(effort)) {
    refuse(`reasoning_effort: expected one of ${REASONING_EFFORTS.join(', ')}`);
  }
  return effort as ReasoningEffort;
}
