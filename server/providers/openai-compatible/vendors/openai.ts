// OpenAI: its catalog entry and how its reasoning models take a Chat Completions request.
import type { ProviderDefinition } from '../../definition.js';
import type { ChatRequest } from '../../types.js';
import { askedEffort, type ReasoningEffort } from '../../translation-rules.js';
import { refuser } from '../../util.js';
import type { AcceptedFieldsFor } from '../accepted-fields.js';
import { LOGPROBS, refusing, SAMPLING, withEffort } from '../reasoning-rules.js';

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

export const openai: ProviderDefinition = {
  name: 'openai',
  family: 'openai-compatible',
  apiKeyEnv: 'OPENAI_API_KEY',
  baseUrlEnv: 'OPENAI_BASE_URL',
  defaultBaseUrl: 'https://api.openai.com/v1',
  builtinModels: [
    'gpt-6.1-sol',
    'gpt-6.1-terra',
    'gpt-6-luna',
    'gpt-5.4',
    'gpt-5.4-mini',
    'gpt-5.4-nano',
    'gpt-4o',
    'gpt-4o-mini',
    'gpt-4.1',
    'gpt-4.1-mini',
    'text-embedding-3-small',
    'text-embedding-3-large',
  ],
  openaiCompat: { reasoningRules: openaiReasoningRules, developerRole: true, adjustRequest: openaiRequest },
};
