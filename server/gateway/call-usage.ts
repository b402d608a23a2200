import type { ChatCompletion, Usage } from '../providers/types.js';
import { estimateUsage, reportedUsage } from '../providers/usage.js';
import { textOf } from '../providers/util.js';
import type { ClientClosedError } from './attempts.js';
import { otherOutputOf } from './stream-accumulator.js';
import type { ChatCall, Target } from './types.js';
import { upstreamBody } from './upstream-body.js';

// What an answer counts as, in tokens, when the provider says nothing: the prompt and the answer
// are counted instead.

/**
 * Upstream usage when reported; otherwise counted from the prompt and the answer: its text and tool
 * calls, and its reasoning, refusal or legacy function call, billed as output too.
 */
export async function usageOf(call: ChatCall, completion: ChatCompletion): Promise<Usage> {
  return (
    reportedUsage(completion.usage) ??
    estimateUsage(
      upstreamBody(call, completion.model, false),
      answerText(completion) + completion.choices.map((c) => otherOutputOf(c.message)).join(''),
    )
  );
}

/** Everything the model produced: text and tool calls. */
export function answerText(completion: ChatCompletion): string {
  return completion.choices
    .map(
      (c) =>
        textOf(c.message.content) +
        (c.message.tool_calls ?? []).map((t) => t.function.name + t.function.arguments).join(''),
    )
    .join('');
}

/**
 * What a call the client left costs: nothing (null), unless the provider had taken the request
 * (its success head was in: a stream whose first content had not come yet), which bills its
 * prompt: then the prompt is counted, as input tokens only.
 */
export async function abandonedUsage(call: ChatCall, target: Target, closed: ClientClosedError): Promise<Usage | null> {
  if (!closed.providerAccepted) return null;
  const prompt = (await estimateUsage(upstreamBody(call, target.model, false), '')).prompt_tokens;
  return { prompt_tokens: prompt, completion_tokens: 0, total_tokens: prompt };
}
