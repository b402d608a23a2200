import type { ChatRequest } from '../types.js';
import { askedEffort, type ReasoningEffort } from '../translation-rules.js';
import { refuser } from '../util.js';
import type { AcceptedFields, AcceptedFieldsFor } from './accepted-fields.js';

// Reasoning models behind OpenAI-format APIs refuse parts of a Chat Completions request that other
// models take, each provider its own set. Their rules are accepted-field sets, applied per model.

/** Sampling settings a reasoning model takes only at their defaults: left out, as hints it cannot follow. */
const SAMPLING = ['temperature', 'top_p', 'presence_penalty', 'frequency_penalty', 'logit_bias'];
const PENALTIES = ['presence_penalty', 'frequency_penalty'];
const LOGPROBS = ['logprobs', 'top_logprobs'];

const reasoningModel = (model: string) => `${model} is a reasoning model and`;
const refusing = (fields: string[], renamed?: Record<string, string>): AcceptedFields => ({
  top: { except: new Set(fields) },
  renamed,
  who: reasoningModel,
});

/** OpenAI: the o-series and GPT-5 onwards (GPT-6 included), but their -chat variants. */
const OPENAI_REASONING = /^(?:o\d|gpt-(?:[5-9]|\d{2,}))(?![\w.-]*-chat)/;
// max_completion_tokens also bounds the hidden reasoning.
const OPENAI_RULES = refusing([...SAMPLING, 'stop', ...LOGPROBS], { max_tokens: 'max_completion_tokens' });

export function isOpenAIReasoningModel(model: string): boolean {
  return OPENAI_REASONING.test(model);
}

export const openaiReasoningRules: AcceptedFieldsFor = (model) =>
  OPENAI_REASONING.test(model) ? OPENAI_RULES : undefined;

/**
 * OpenAI's own request changes: `reasoning_effort` is left out for its models that do not reason
 * (gpt-4o, gpt-4.1, the -chat variants), which refuse it ("Unsupported parameter"), as a hint they
 * lack: the router or a fallback may give them a request written for a reasoning model; a reasoning
 * model gets the nearest effort it takes (openaiEffort), a value OpenAI does not have is refused.
 * Then the tools rule below.
 */
export function openaiRequest(body: ChatRequest, provider: string): ChatRequest {
  if (body['reasoning_effort'] === undefined) return openaiToolsOnChatCompletions(body, provider);
  if (!OPENAI_REASONING.test(body.model)) return withEffort(body, undefined);
  const effort = askedEffort(body, refuser(provider));
  return openaiToolsOnChatCompletions(
    effort === undefined ? body : withEffort(body, openaiEffort(body.model, effort)),
    provider,
  );
}

/**
 * `body` with `reasoning_effort` set to `sent`, or without it when `sent` is undefined; `body`
 * itself when that is what it has. The providers' effort rules below share it.
 */
function withEffort(body: ChatRequest, sent: string | undefined): ChatRequest {
  if (sent === body['reasoning_effort']) return body;
  if (sent !== undefined) return Object.assign({}, body, { reasoning_effort: sent });
  const { reasoning_effort: _left, ...rest } = body;
  return rest as ChatRequest;
}

/**
 * The effort an OpenAI reasoning model takes nearest to the one asked for: each family takes only
 * some of OpenAI's values (its reasoning guide and model pages, and the values its 400s list):
 * the o-series low to high; GPT-5 (5.0) minimal to high; GPT-5.1 none to high, no minimal; 5.2 on
 * (GPT-6 included) none to xhigh, no minimal; the Pro models high only (5.0) or medium to xhigh;
 * Codex models no none (nor minimal), codex-mini medium and high only, and xhigh only on codex-max
 * and after 5.1.
 */
export function openaiEffort(model: string, effort: ReasoningEffort): ReasoningEffort {
  if (/^o\d/.test(model))
    return effort === 'none' || effort === 'minimal' ? 'low' : effort === 'xhigh' ? 'high' : effort;
  const version = /^gpt-(\d+)(?:\.(\d+))?/.exec(model);
  if (!version) return effort;
  const major = Number(version[1]);
  const minor = Number(version[2] ?? 0);
  const first = major === 5 && minor === 0;
  if (/-pro(?:-|$)/.test(model)) return first ? 'high' : effort === 'high' || effort === 'xhigh' ? effort : 'medium';
  // codex-mini takes medium and high only.
  if (/-codex-mini/.test(model)) return effort === 'xhigh' || effort === 'high' ? 'high' : 'medium';
  const codex = /-codex/.test(model);
  if (first) {
    if (effort === 'xhigh') return 'high';
    if (codex && (effort === 'none' || effort === 'minimal')) return 'low';
    return effort === 'none' ? 'minimal' : effort;
  }
  let sent: ReasoningEffort = effort === 'minimal' || (codex && effort === 'none') ? 'low' : effort;
  if (sent === 'xhigh' && major === 5 && minor === 1 && !/codex-max/.test(model)) sent = 'high';
  return sent;
}

/** OpenAI models that take function tools on Chat Completions only at reasoning effort "none". */
const OPENAI_TOOLS_WITHOUT_REASONING = /^gpt-(?:5\.6|6-sol)/;

/**
 * The GPT-5.6 family and gpt-6-sol refuse function tools on Chat Completions unless
 * `reasoning_effort` is "none" (their default is not): a request with tools that sets no effort
 * gets "none"; one that asks for another effort is refused (a routed call moves to another target).
 */
export function openaiToolsOnChatCompletions(body: ChatRequest, provider: string): ChatRequest {
  if (!OPENAI_TOOLS_WITHOUT_REASONING.test(body.model)) return body;
  const tools = body['tools'];
  if (!Array.isArray(tools) || tools.length === 0) return body;
  const effort = body['reasoning_effort'];
  if (effort === undefined || effort === null) return Object.assign({}, body, { reasoning_effort: 'none' });
  if (effort !== 'none')
    refuser(provider)(
      `reasoning_effort: ${body.model} takes function tools on Chat Completions only with reasoning_effort "none"`,
    );
  return body;
}

/**
 * xAI: the Grok 4 family (its non-reasoning variants included) refuses the penalties, and
 * `reasoning_effort` but on Grok 4.3 on (4.20, read as a decimal, comes before 4.3 and refuses it;
 * its multi-agent model takes it); its reasoning models, grok-3-mini and grok-code refuse the
 * penalties and `stop`; grok-3 and grok-code refuse `reasoning_effort` (only grok-3-mini takes it,
 * xAI's reasoning guide says).
 */
const XAI_GROK4 = /^grok-4/;
const XAI_GROK4_MINOR = /^grok-4\.(\d+)/;
const XAI_MULTI_AGENT = /^grok-4[\w.-]*-multi-agent/;
const XAI_GROK3 = /^grok-3(?!-mini)/;
const XAI_CODE = /^grok-code/;
const XAI_REASONING = /^(?:grok-4(?![\w.-]*non-reasoning)|grok-3-mini|grok-code)/;
const XAI_RULES = {
  reasoning4: refusing([...PENALTIES, 'reasoning_effort', 'stop']),
  effort4: refusing([...PENALTIES, 'stop']),
  plain4: refusing([...PENALTIES, 'reasoning_effort']),
  reasoning: refusing([...PENALTIES, 'stop']),
  code: refusing([...PENALTIES, 'reasoning_effort', 'stop']),
  grok3: { top: { except: new Set(['reasoning_effort']) } },
};

/** The version after "grok-4.", read as a decimal (4.20 comes before 4.3), or undefined. */
function grok4Minor(model: string): number | undefined {
  const minor = XAI_GROK4_MINOR.exec(model);
  return minor ? Number(`0.${minor[1]}`) : undefined;
}

/** Grok 4.3 on, and the multi-agent models. */
function xaiGrok4TakesEffort(model: string): boolean {
  return XAI_MULTI_AGENT.test(model) || (grok4Minor(model) ?? 0) >= 0.3;
}

/** Grok 4.3 takes "none" (no reasoning); Grok 4.5 on cannot stop reasoning (low, medium, high). */
function xaiCanStopReasoning(model: string): boolean {
  return (grok4Minor(model) ?? 0) < 0.5;
}

export const xaiReasoningRules: AcceptedFieldsFor = (model) => {
  const reasoning = XAI_REASONING.test(model);
  if (XAI_GROK4.test(model)) {
    if (xaiGrok4TakesEffort(model)) return XAI_RULES.effort4;
    return reasoning ? XAI_RULES.reasoning4 : XAI_RULES.plain4;
  }
  if (XAI_GROK3.test(model)) return XAI_RULES.grok3;
  if (XAI_CODE.test(model)) return XAI_RULES.code;
  return reasoning ? XAI_RULES.reasoning : undefined;
};

/**
 * xAI: the models that take `reasoning_effort` take only some of OpenAI's values (xAI's reasoning
 * guide): grok-3-mini "low" or "high", Grok 4.3 "none", "low", "medium" or "high", Grok 4.5 on
 * the same but "none" (it cannot stop reasoning), the multi-agent models their own set ("xhigh"
 * among them: sent as asked). OpenAI's others go as the nearest of those; a value OpenAI does not
 * have is refused. (The models that take no effort lose the field to xaiReasoningRules first.)
 */
export function xaiReasoningEffort(body: ChatRequest, provider: string): ChatRequest {
  if (body['reasoning_effort'] === undefined) return body;
  const effort = askedEffort(body, refuser(provider));
  let sent: string | undefined = effort;
  if (effort !== undefined && /^grok-3-mini/.test(body.model))
    sent = effort === 'none' || effort === 'minimal' || effort === 'low' ? 'low' : 'high';
  else if (XAI_MULTI_AGENT.test(body.model)) sent = effort;
  else if (effort === 'minimal' || (effort === 'none' && !xaiCanStopReasoning(body.model))) sent = 'low';
  else if (effort === 'xhigh') sent = 'high';
  return withEffort(body, sent);
}

/**
 * DeepSeek: its thinking models (deepseek-reasoner; V4 and its deepseek-flash, which think unless
 * told not to) take the sampling settings (to no effect) but refuse logprobs.
 */
const DEEPSEEK_THINKING = /^deepseek-(?:reasoner|flash|v4)/;
const DEEPSEEK_RULES = refusing(LOGPROBS);
export const deepseekReasoningRules: AcceptedFieldsFor = (model) =>
  DEEPSEEK_THINKING.test(model) ? DEEPSEEK_RULES : undefined;

/**
 * DeepSeek's thinking models think unless told not to (`thinking: {type: "disabled"}`), and its
 * `reasoning_effort` takes low, high and max, mapping OpenAI's other values but "none" (DeepSeek's
 * thinking-mode guide): "none" goes as thinking turned off. In thinking mode DeepSeek also needs,
 * after a tool call, the `reasoning_content` of the assistant turn that made it, and refuses a
 * history without it (400). A conversation whose tool turns another provider answered (a fallback,
 * the router, an A/B test) has none to send: such a request goes with thinking turned off too. A
 * caller's own `thinking` is left alone.
 */
export function deepseekThinking(body: ChatRequest): ChatRequest {
  if (body['thinking'] !== undefined || !DEEPSEEK_THINKING.test(body.model)) return body;
  // OpenAI's "none", which DeepSeek's effort lacks (low, high, max): its thinking turned off.
  if (body['reasoning_effort'] === 'none')
    return Object.assign(withEffort(body, undefined), { thinking: { type: 'disabled' } });
  for (const m of body.messages) {
    if (
      m.role === 'assistant' &&
      Array.isArray(m.tool_calls) &&
      m.tool_calls.length > 0 &&
      typeof m['reasoning_content'] !== 'string'
    ) {
      return Object.assign({}, body, { thinking: { type: 'disabled' } });
    }
  }
  return body;
}

/** Mistral's models that take `reasoning_effort` (see mistralReasoningEffort). */
const MISTRAL_NONE_OR_HIGH =
  /^mistral-(?:small-(?:latest|4|26(?:0[3-9]|1[0-2])|2[7-9]\d\d)|medium-(?:3-5|latest|26(?:0[4-9]|1[0-2])|2[7-9]\d\d))/;
const MISTRAL_LEVELS = /^mistral-large-4/;

/**
 * Mistral: `reasoning_effort` is taken by Mistral Small 4 (mistral-small-latest, mistral-small-2603
 * on) and Medium 3.5 (mistral-medium-3-5, mistral-medium-latest, mistral-medium-2604 on), as
 * "none" (the thinking left out of the answer) or "high", and by Large 4 (mistral-large-4), which
 * thinks by default, as "low", "medium" or "high" (Mistral's reasoning guide). OpenAI's other efforts go as the nearest of those;
 * every other Mistral model refuses the field, so it is left out for them, as a hint they lack.
 */
export function mistralReasoningEffort(body: ChatRequest, provider: string): ChatRequest {
  if (body['reasoning_effort'] === undefined) return body;
  const twoLevels = MISTRAL_NONE_OR_HIGH.test(body.model);
  const effort = twoLevels || MISTRAL_LEVELS.test(body.model) ? askedEffort(body, refuser(provider)) : undefined;
  if (effort === undefined) return withEffort(body, undefined);
  const low = effort === 'none' || effort === 'minimal';
  return withEffort(body, twoLevels ? (low ? 'none' : 'high') : low ? 'low' : effort === 'xhigh' ? 'high' : effort);
}
