// What newer Claude models refuse or do differently, per Anthropic's model pages and migration
// guides (2026): from Claude Opus 4.7 on, and across the Claude 5 family (Opus, Sonnet, Haiku,
// Fable), requests that set temperature, top_p or top_k are refused; Opus 5.5, Sonnet 5.5 and Fable
// refuse forced tool use (tool_choice "any" or a named tool); the Claude 5 family thinks before it
// answers by default, and that thinking counts against max_tokens. Earlier models keep the
// behaviour the translation was written for. Ids are matched as Anthropic spells them, dated
// snapshots included.

const NO_SAMPLING = /^claude-(?:opus-4-(?:[7-9]|\d{2,})|(?:opus|sonnet|haiku)-(?:[5-9]|\d{2,})|fable)/;
const NO_FORCED_TOOL = /^claude-(?:(?:opus|sonnet)-(?:5-(?:[5-9]|\d{2,})|[6-9]|\d{2,})|fable)/;
const THINKS_BY_DEFAULT = /^claude-(?:(?:opus|sonnet|haiku)-(?:[5-9]|\d{2,})|fable)/;
/** Anthropic's effort setting (`output_config.effort`): Opus 4.5 on, Sonnet 4.6 on, the Claude 5 family, Fable and Mythos. */
const TAKES_EFFORT = /^claude-(?:opus-4-(?:[5-9]|\d{2,})|sonnet-4-(?:[6-9]|\d{2,})|(?:opus|sonnet|haiku)-(?:[5-9]|\d{2,})|fable|mythos)/;

/** Whether the model takes temperature, top_p and top_k (newer ones refuse any of them). */
export function takesSampling(model: string): boolean {
  return !NO_SAMPLING.test(model);
}

/** Whether the model takes a forced tool choice (tool_choice "any" or a named tool). */
export function takesForcedTool(model: string): boolean {
  return !NO_FORCED_TOOL.test(model);
}

/** Whether the model takes `output_config.effort` (how many tokens it may spend, thinking included). */
export function takesEffort(model: string): boolean {
  return TAKES_EFFORT.test(model);
}

/** Whether the model thinks before answering unless told not to (its thinking counts against max_tokens). */
export function thinksByDefault(model: string): boolean {
  return THINKS_BY_DEFAULT.test(model);
}
