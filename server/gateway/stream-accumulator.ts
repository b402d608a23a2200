import type { ChatChunk, ChatCompletion, FinishReason, ToolCall, Usage } from '../providers/types.js';
import { emptyBesides, isEmptyValue, startsAnotherCall } from '../providers/util.js';

// Follows a chunk stream so that a streamed call can be costed exactly (upstream usage, or a count
// of what was streamed) and, when it completed cleanly, cached as a whole completion, log
// probabilities included (the cache key does not hold `stream`: a later call may want it whole).
// A stream whose deltas carried what a completion here does not hold (the legacy function_call,
// audio, reasoning_content, a refusal, any other field) is not cached: caching is an optimisation,
// and an answer replayed without part of what the model sent would be a wrong answer.
//
// Tool-call deltas are told apart by id as well as index (see callFor): OpenAI streams each call
// under its own index (id and name first, argument pieces after), but Ollama may send several
// whole calls all under index 0, each with its own id, or send no index at all. The OpenAI-format
// adapter renumbers those before they get here (tool-call-numbering.ts); this holds for any
// adapter's stream all the same. A replay numbers the calls 0, 1, ... (completionToChunks).

export class StreamAccumulator {
  id = '';
  model = '';
  created = 0;
  usage: Usage | undefined;
  private text = '';
  /** Choice 0's tool calls, in the order they started. */
  private readonly tools: ToolCall[] = [];
  /** The call each upstream index currently continues; allocated with the first indexed delta. */
  private callAtIndex: ToolCall[] | undefined;
  /** The call the last tool-call delta went to: where a delta without an index continues. */
  private lastCall: ToolCall | undefined;
  private finish: FinishReason = null;
  private multiChoice = false;
  /** Token log probabilities of choice 0, in order, when the stream carried them. */
  private logprobs: unknown[] | undefined;
  /** A delta of choice 0 carried a field toCompletion() cannot represent. */
  private unrepresentable = false;
  /** Output billed like text beyond choice 0's content and tool calls: a legacy function call, reasoning, a refusal, further choices. */
  private otherOutput = '';

  add(c: ChatChunk): void {
    if (!this.id) {
      this.id = c.id;
      this.model = c.model;
      this.created = c.created;
    }
    if (c.usage) this.usage = c.usage;
    for (const choice of c.choices) {
      if (choice.index !== 0) {
        // Not cached (see toCompletion), but counted when the provider reports no usage.
        this.multiChoice = true;
        if (choice.delta) this.otherOutput += producedBy(choice.delta);
        continue;
      }
      // A choice may come without a delta (Azure's content-filter results).
      const d = choice.delta as ChatChunk['choices'][number]['delta'] | undefined;
      if (d) {
        if (typeof d.content === 'string') this.text += d.content;
        if (d.tool_calls) {
          for (const t of d.tool_calls) {
            const slot = this.callFor(t);
            if (t.id && !slot.id) slot.id = t.id;
            if (t.function?.name) slot.function.name += t.function.name;
            if (t.function?.arguments) slot.function.arguments += t.function.arguments;
            if (t.extra_content) slot.extra_content = t.extra_content;
          }
        }
        if (!this.unrepresentable && !emptyBesides(d, REPRESENTED)) this.unrepresentable = true;
        if (this.unrepresentable) this.otherOutput += otherOutputOf(d);
      }
      const tokens = choice.logprobs?.content;
      if (Array.isArray(tokens)) (this.logprobs ??= []).push(...tokens);
      if (choice.finish_reason) this.finish = choice.finish_reason;
    }
  }

  /**
   * The call a tool-call delta adds to. A delta continues the call at its index (or, without an
   * index, the last call) unless it carries an id other than that call's: then it starts a call of
   * its own. No allocation besides a new call's object (and the index table, once per stream).
   */
  private callFor(t: ToolCallDelta): ToolCall {
    const index = t.index;
    const indexed = Number.isInteger(index) && index >= 0;
    const current = indexed ? this.callAtIndex?.[index] : this.lastCall;
    let call = current;
    if (!call || startsAnotherCall(call.id, t)) {
      call = { id: '', type: 'function', function: { name: '', arguments: '' } };
      this.tools.push(call);
      if (indexed) (this.callAtIndex ??= [])[index] = call;
    }
    this.lastCall = call;
    return call;
  }

  /** Everything the model produced, for counting tokens when upstream reported no usage. */
  producedText(): string {
    return this.text + this.tools.map((t) => t.function.name + t.function.arguments).join('') + this.otherOutput;
  }

  /** The stream as one completion (for the cache); undefined when it cannot be represented exactly. */
  /** `estimated`: `usage` is a count, the provider having reported none (kept as `usage_estimated` for the replay). */
  toCompletion(usage: Usage, estimated = false): ChatCompletion | undefined {
    if (this.multiChoice || !this.finish || this.unrepresentable) return undefined;
    const tools = this.tools;
    const message: ChatCompletion['choices'][number]['message'] = {
      role: 'assistant',
      content: this.text || (tools.length ? null : ''),
    };
    if (tools.length) message.tool_calls = tools;
    const choice: ChatCompletion['choices'][number] = { index: 0, message, finish_reason: this.finish };
    if (this.logprobs) choice.logprobs = { content: this.logprobs, refusal: null };
    const completion: ChatCompletion = {
      id: this.id,
      object: 'chat.completion',
      created: this.created,
      model: this.model,
      choices: [choice],
      usage,
    };
    if (estimated) completion.usage_estimated = true;
    return completion;
  }
}

type ToolCallDelta = NonNullable<ChatChunk['choices'][number]['delta']['tool_calls']>[number];

/** The delta fields toCompletion() represents; a delta with a value in any other it cannot. */
const REPRESENTED: ReadonlySet<string> = new Set(['role', 'content', 'tool_calls']);

/** Everything a delta of a further choice produced. */
function producedBy(d: ChatChunk['choices'][number]['delta']): string {
  let out = typeof d.content === 'string' ? d.content : '';
  if (d.tool_calls) for (const t of d.tool_calls) out += (t.function?.name ?? '') + (t.function?.arguments ?? '');
  return out + otherOutputOf(d);
}

/**
 * The text of a delta's (or a whole message's: the fields are the same) legacy function call (name
 * and arguments), reasoning and refusal: output the provider bills beyond content and tool calls.
 */
export function otherOutputOf(d: object): string {
  const fields = d as {
    function_call?: { name?: unknown; arguments?: unknown } | null;
    reasoning_content?: unknown;
    refusal?: unknown;
  };
  let out = '';
  const call = fields.function_call;
  if (call)
    out +=
      (typeof call.name === 'string' ? call.name : '') + (typeof call.arguments === 'string' ? call.arguments : '');
  if (typeof fields.reasoning_content === 'string') out += fields.reasoning_content;
  if (typeof fields.refusal === 'string') out += fields.refusal;
  return out;
}

/**
 * A cached completion replayed as a stream, as a live one comes: a role-only opening (content ''
 * for a text answer, null for one without text, as OpenAI opens them), then the content (with its
 * logprobs) and every other field of the message that has a value (a whole completion may carry
 * refusal, function_call, audio, reasoning_content, annotations: each goes whole in that delta, as
 * a stream's pieces would add up to), tool calls, then the finish. The opening stands alone: the
 * OpenAI SDKs' stream helpers take a choice's first chunk's logprobs twice when it also opens the
 * choice.
 */
export function completionToChunks(c: ChatCompletion): ChatChunk[] {
  const chunk = (choices: ChatChunk['choices']): ChatChunk => ({
    id: c.id,
    object: 'chat.completion.chunk',
    created: c.created,
    model: c.model,
    choices,
  });
  const out: ChatChunk[] = [];
  for (const choice of c.choices) {
    const m = choice.message as ChatCompletion['choices'][number]['message'] & Record<string, unknown>;
    out.push(
      chunk([
        {
          index: choice.index,
          delta: { role: 'assistant', content: m.content == null ? null : '' },
          finish_reason: null,
        },
      ]),
    );
    const delta: Record<string, unknown> = {};
    if (m.content != null && m.content !== '') delta['content'] = m.content;
    for (const key in m) if (!REPRESENTED.has(key) && !isEmptyValue(m[key])) delta[key] = m[key];
    if (Object.keys(delta).length > 0 || choice.logprobs) {
      const content: ChatChunk['choices'][number] = {
        index: choice.index,
        delta: delta as ChatChunk['choices'][number]['delta'],
        finish_reason: null,
      };
      if (choice.logprobs) content.logprobs = choice.logprobs;
      out.push(chunk([content]));
    }
    if (m.tool_calls?.length) {
      const calls = m.tool_calls.map((t, i) => {
        const call: NonNullable<ChatChunk['choices'][number]['delta']['tool_calls']>[number] = {
          index: i,
          id: t.id,
          type: 'function',
          function: { name: t.function.name, arguments: t.function.arguments },
        };
        if (t.extra_content) call.extra_content = t.extra_content;
        return call;
      });
      out.push(chunk([{ index: choice.index, delta: { tool_calls: calls }, finish_reason: null }]));
    }
    out.push(chunk([{ index: choice.index, delta: {}, finish_reason: choice.finish_reason }]));
  }
  return out;
}
