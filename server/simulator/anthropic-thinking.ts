// Anthropic's checks on a request's `thinking`, as its extended and adaptive thinking guides give
// them: adaptive thinking only on the models that have it (Opus and Sonnet 4.6 on, Mythos, the
// Claude 5 family and Fable); a budget (`type: "enabled"`) only on the models that take one, of
// at least 1,024 tokens and below max_tokens; "disabled" refused by the models that cannot stop
// thinking; and while thinking, no temperature but 1, no top_k, no top_p below 0.95.
import { isObj } from './exchange.js';
import {
  canDisableThinking,
  takesThinkingBudget,
  thinkingSwitch,
  thinksByDefault,
} from '../providers/anthropic/model-rules.js';

export interface ThinkingAsked {
  /** The model thinks for this request (by default, or as asked). */
  thinks: boolean;
  /** It was asked to (adaptive or a budget): its thinking text is shown, as the API's default display does for these. */
  askedFor: boolean;
}

/** The request's thinking, or Anthropic's 400 message for it. */
export function thinkingOf(model: string, body: Record<string, unknown>, maxTokens: number): ThinkingAsked | string {
  const t = isObj(body.thinking) ? body.thinking : undefined;
  const type = t?.type;
  if (type === 'disabled') {
    if (thinksByDefault(model) && !canDisableThinking(model))
      return `thinking: thinking cannot be disabled for ${model}`;
    return { thinks: false, askedFor: false };
  }
  if (type === 'adaptive') {
    const kind = thinkingSwitch(model);
    if (kind !== 'adaptive' && kind !== 'default')
      return `thinking.type: adaptive thinking is not supported on ${model}; use thinking.type "enabled" with budget_tokens`;
  } else if (type === 'enabled') {
    if (!takesThinkingBudget(model))
      return `thinking.type.enabled is not supported for ${model}. Use thinking.type.adaptive and output_config.effort to control thinking behavior.`;
    const budget = t?.budget_tokens;
    if (typeof budget !== 'number' || !Number.isInteger(budget) || budget < 1024)
      return 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024';
    if (budget >= maxTokens)
      return '`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size';
  } else if (type !== undefined) {
    return `thinking.type: Input tag '${String(type)}' found using 'type' does not match any of the expected tags: 'enabled', 'disabled', 'adaptive'`;
  }
  const askedFor = type === 'adaptive' || type === 'enabled';
  if (askedFor) {
    if (body.temperature !== undefined && body.temperature !== 1)
      return '`temperature` may only be set to 1 when thinking is enabled. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#feature-compatibility';
    if (body.top_k !== undefined)
      return '`top_k` must be unset when thinking is enabled. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#feature-compatibility';
    if (typeof body.top_p === 'number' && body.top_p < 0.95)
      return '`top_p` must be greater than or equal to 0.95 or unset when thinking is enabled. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#feature-compatibility';
  }
  return { thinks: askedFor || thinksByDefault(model), askedFor };
}
