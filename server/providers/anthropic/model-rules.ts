// What newer Claude models refuse or do differently, per Anthropic's model pages and migration
// guides (2026): from Claude Opus 4.7 on, and across the Claude 5 family (Opus, Sonnet, Haiku,
// Fable), requests that set temperature, top_p or top_k are refused; Opus 5.5, Sonnet 5.5 and Fable
// refuse forced tool use (tool_choice "any" or a named tool); the Claude 5 family thinks before it
// answers by default, and that thinking counts against max_tokens (Opus 5.5 and Fable cannot be
// told not to); Opus 4.5 on, Sonnet 4.6 on, the
// Claude 5 family, Fable and Mythos take an effort setting. Earlier models, and ids not in this
// form (`claude-3-5-haiku-latest`), keep the behaviour the translation was written for.

import type { ReasoningEffort } from '../translation-rules.js';

interface ClaudeVersion {
  family: string;
  major: number;
  minor: number;
}

/** `claude-<family>-<major>[-<minor>]`, a dated snapshot's date or `-latest` set aside: a date is not a version. */
const CLAUDE_ID = /^claude-(opus|sonnet|haiku|fable|mythos)-(\d{1,2})(?:-(\d{1,2}))?$/;

function versionOf(model: string): ClaudeVersion | undefined {
  const m = CLAUDE_ID.exec(model.replace(/-(?:\d{8}|latest)$/, ''));
  return m ? { family: m[1]!, major: Number(m[2]), minor: Number(m[3] ?? 0) } : undefined;
}

/** At least major.minor. */
const atLeast = (v: ClaudeVersion, major: number, minor = 0): boolean =>
  v.major > major || (v.major === major && v.minor >= minor);

/** Whether the model takes temperature, top_p and top_k (newer ones refuse any of them). */
export function takesSampling(model: string): boolean {
  const v = versionOf(model);
  if (!v) return true;
  if (v.family === 'fable') return false;
  if (v.family === 'opus') return !atLeast(v, 4, 7);
  return v.family === 'mythos' || !atLeast(v, 5);
}

/** Whether the model takes a forced tool choice (tool_choice "any" or a named tool). */
export function takesForcedTool(model: string): boolean {
  const v = versionOf(model);
  if (!v) return true;
  if (v.family === 'fable') return false;
  return !((v.family === 'opus' || v.family === 'sonnet') && atLeast(v, 5, 5));
}

/** Whether the model takes `output_config.effort` (how many tokens it may spend, thinking included). */
export function takesEffort(model: string): boolean {
  const v = versionOf(model);
  if (!v) return false;
  switch (v.family) {
    case 'opus':
      return atLeast(v, 4, 5);
    case 'sonnet':
      return atLeast(v, 4, 6);
    case 'haiku':
      return atLeast(v, 5);
    default:
      return true;
  }
}

/**
 * OpenAI's effort as Anthropic's: "none" and "minimal", which Anthropic lacks, as its lowest, "low";
 * "xhigh" as "high" for the models before it (Opus 4.5 and 4.6, Sonnet 4.6); the others by name.
 */
export function anthropicEffort(model: string, effort: ReasoningEffort): string {
  if (effort === 'none' || effort === 'minimal') return 'low';
  if (effort !== 'xhigh') return effort;
  const v = versionOf(model);
  const beforeXhigh =
    v !== undefined && (v.family === 'opus' || v.family === 'sonnet') && v.major === 4 && v.minor <= 6;
  return beforeXhigh ? 'high' : effort;
}

/**
 * Whether a model that thinks by default may be told not to (`thinking: {type: "disabled"}`). Opus
 * 5.5 may not, Anthropic says, nor any Fable model: Fable 5 answers the setting with a 400, thinking
 * being its only mode (guides to Fable 5's breaking changes, June 2026).
 */
export function canDisableThinking(model: string): boolean {
  const v = versionOf(model);
  if (!v) return true;
  if (v.family === 'opus') return !atLeast(v, 5, 5);
  return v.family !== 'fable';
}

/**
 * How the model's thinking is turned on when the caller asks for reasoning: it thinks by default
 * ('default', the Claude 5 family and Fable); adaptive thinking on request, the model choosing how
 * much (`thinking: {type: "adaptive"}`: Opus and Sonnet 4.6 on, Mythos); a thinking budget on
 * request (`thinking: {type: "enabled", budget_tokens}`: Opus and Sonnet 4 to 4.5, Haiku 4.5, which
 * take no adaptive thinking); or not at all ('none': earlier models, ids not in this form).
 */
export type ThinkingSwitch = 'default' | 'adaptive' | 'budget' | 'none';

export function thinkingSwitch(model: string): ThinkingSwitch {
  if (thinksByDefault(model)) return 'default';
  const v = versionOf(model);
  if (!v || v.major < 4) return 'none';
  if (v.family === 'mythos') return 'adaptive';
  if (v.family === 'haiku') return atLeast(v, 4, 5) ? 'budget' : 'none';
  return atLeast(v, 4, 6) ? 'adaptive' : 'budget';
}

/** Whether the model takes a thinking budget (`type: "enabled"`): Opus 4.7 on, the Claude 5 family and Fable refuse it. */
export function takesThinkingBudget(model: string): boolean {
  const v = versionOf(model);
  if (!v || thinksByDefault(model) || v.family === 'mythos') return false;
  return v.major === 4 && (v.family !== 'opus' || v.minor <= 6);
}

/** Whether the model thinks before answering unless told not to (its thinking counts against max_tokens). */
export function thinksByDefault(model: string): boolean {
  const v = versionOf(model);
  if (!v) return false;
  return v.family === 'fable' || (v.family !== 'mythos' && atLeast(v, 5));
}
