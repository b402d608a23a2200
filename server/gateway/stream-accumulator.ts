import type { ChatChunk, ChatCompletion, FinishReason, ToolCall, Usage } from '../providers/types.js';

// Follows a chunk stream so that a streamed call can be costed exactly (upstream usage, or a count
// of what was streamed) and, when it completed cleanly, cached as a whole completion, log
// probabilities included (the cache key does not hold `stream`: a later call may want it whole).

export class StreamAccumulator {
  id = '';
  model = '';
  created = 0;
  usage: Usage | undefined;
  private text = '';
  private readonly tools: ToolCall[] = [];
  private finish: FinishReason = null;
  private multiChoice = false;
  /** Token log probabilities of choice 0, in order, when the stream carried them. */
  private logprobs: unknown[] | undefined;

  add(c: ChatChunk): void {
    if (!this.id) {
      this.id = c.id;
      this.model = c.model;
      this.created = c.created;
    }
    if (c.usage) this.usage = c.usage;
    for (const choice of c.choices) {
      if (choice.index !== 0) {
        this.multiChoice = true;
        continue;
      }
      const d = choice.delta;
      if (typeof d.content === 'string') this.text += d.content;
      for (const t of d.tool_calls ?? []) {
        const slot = (this.tools[t.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } });
        if (t.id) slot.id = t.id;
        if (t.function?.name) slot.function.name += t.function.name;
        if (t.function?.arguments) slot.function.arguments += t.function.arguments;
        if (t.extra_content) slot.extra_content = t.extra_content;
      }
      const tokens = choice.logprobs?.content;
      if (Array.isArray(tokens)) (this.logprobs ??= []).push(...tokens);
      if (choice.finish_reason) this.finish = choice.finish_reason;
    }
  }

  /** Everything the model produced, for counting tokens when upstream reported no usage. */
  producedText(): string {
    return this.text + this.tools.map((t) => t.function.name + t.function.arguments).join('');
  }

  /** The stream as one completion (for the cache); undefined when it cannot be represented exactly. */
  toCompletion(usage: Usage): ChatCompletion | undefined {
    if (this.multiChoice || !this.finish) return undefined;
    const tools = this.tools.filter(Boolean);
    const choice: ChatCompletion['choices'][number] = {
      index: 0,
      message: { role: 'assistant', content: this.text || (tools.length ? null : ''), ...(tools.length ? { tool_calls: tools } : {}) },
      finish_reason: this.finish,
    };
    if (this.logprobs) choice.logprobs = { content: this.logprobs, refusal: null };
    return { id: this.id, object: 'chat.completion', created: this.created, model: this.model, choices: [choice], usage };
  }
}

/** A cached completion replayed as a stream: role and content (with its logprobs), tool calls, then the finish. */
export function completionToChunks(c: ChatCompletion): ChatChunk[] {
  const chunk = (choices: ChatChunk['choices']): ChatChunk => ({ id: c.id, object: 'chat.completion.chunk', created: c.created, model: c.model, choices });
  const out: ChatChunk[] = [];
  for (const choice of c.choices) {
    const m = choice.message;
    const content: ChatChunk['choices'][number] = { index: choice.index, delta: { role: 'assistant', content: m.content ?? '' }, finish_reason: null };
    if (choice.logprobs) content.logprobs = choice.logprobs;
    out.push(chunk([content]));
    if (m.tool_calls?.length) {
      out.push(chunk([{ index: choice.index, delta: { tool_calls: m.tool_calls.map((t, i) => ({ index: i, id: t.id, type: 'function' as const, function: { name: t.function.name, arguments: t.function.arguments }, ...(t.extra_content ? { extra_content: t.extra_content } : {}) })) }, finish_reason: null }]));
    }
    out.push(chunk([{ index: choice.index, delta: {}, finish_reason: choice.finish_reason }]));
  }
  return out;
}
