// xAI (Grok): its catalog entry and the request fields and reasoning efforts its models take.
import type { ProviderDefinition } from '../../definition.js';
import type { ChatRequest } from '../../types.js';
import { askedEffort } from '../../translation-rules.js';
import { refuser } from '../../util.js';
import type { AcceptedFieldsFor } from '../accepted-fields.js';
import { PENALTIES, refusing, withEffort } from '../reasoning-rules.js';

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

export const xai: ProviderDefinition = {
  name: 'xai',
  family: 'openai-compatible',
  apiKeyEnv: 'XAI_API_KEY',
  baseUrlEnv: 'XAI_BASE_URL',
  defaultBaseUrl: 'https://api.x.ai/v1',
  builtinModels: ['grok-4.5', 'grok-4.3', 'grok-3-mini'],
  openaiCompat: { reasoningRules: xaiReasoningRules, adjustRequest: xaiReasoningEffort },
};
