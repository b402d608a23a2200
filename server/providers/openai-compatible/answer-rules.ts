// What OpenAI-compatible servers put in an answer that OpenAI's format says otherwise, normalised
// where the gateway reads answers (whole and streamed):
// - finish reasons outside OpenAI's set: Mistral's `model_length` (cut at the context window) is
//   `length`; a few servers' `eos` is `stop` and `tool_call` is `tool_calls`. `error` (Mistral,
//   OpenRouter: the provider failed mid-answer) is not a finish at all: the answer is broken, and
//   must neither pass as a success nor be cached (isErrorFinish);
// - xAI reports reasoning tokens beside `completion_tokens`, not in it (its `total_tokens` adds
//   them up): they are output the provider bills, so they go into `completion_tokens`, as OpenAI,
//   DeepSeek and OpenRouter count them, and are costed.
import type { FinishReason, Usage } from '../types.js';

const RENAMED_FINISH: Readonly<Record<string, FinishReason>> = {
  model_length: 'length',
  eos: 'stop',
  tool_call: 'tool_calls',
};

/** OpenAI's name for a finish reason, when a server sent another name for one; undefined otherwise. */
export function renamedFinish(reason: string): FinishReason | undefined {
  return RENAMED_FINISH[reason];
}

/** A "finish" that reports the provider failing mid-answer. */
export function isErrorFinish(reason: unknown): boolean {
  return reason === 'error';
}

/**
 * Puts reasoning tokens reported beside `completion_tokens` into it (xAI); true when it changed
 * `usage`. Recognised by the arithmetic, not the provider: `total_tokens` counts them on top of
 * prompt and completion, which it never does where completion already includes them.
 */
export function withReasoningInCompletion(usage: Usage): boolean {
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  if (typeof reasoning !== 'number' || reasoning <= 0) return false;
  if (usage.total_tokens !== usage.prompt_tokens + usage.completion_tokens + reasoning) return false;
  usage.completion_tokens += reasoning;
  return true;
}
