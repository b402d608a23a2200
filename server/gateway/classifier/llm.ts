// The optional LLM fallback: a prompt that asks a small model for `<taskType>/<complexity>`, and
// a lenient parser for what comes back. The caller decides when to use it (see LOW_CONFIDENCE)
// and makes the call; nothing here does I/O.

import type { ChatMessage } from '../../providers/types.js';
import { COMPLEXITIES, TASK_TYPES, type Complexity, type TaskType } from '../types.js';
import { imageCount, textOf } from './content.js';

const SYSTEM = `You classify requests sent to an LLM gateway so that each one can be routed to a suitable model.
Classify the LATEST user request. Earlier turns are context only (a follow-up such as "make it faster" after code is still about code). A system prompt describes the assistant, not the request: use it only as a weak hint.

Task types:
- coding: writing, explaining, reviewing or debugging code; error messages and stack traces; SQL, regular expressions, shell commands, config files; questions about programming languages and tools.
- creative: stories, poems, lyrics, jokes, slogans, names, role-play, fiction and other imaginative writing (a poem about Python is creative).
- summarization: condensing text the user provides (summary, TL;DR, key points, recap).
- qa: factual or explanatory questions about the world (what is, who was, when did, how many, explain the difference between).
- general: small talk, advice, planning, emails and letters, translation, proofreading, and anything else.
- vision: the user's messages include images.

Complexity:
- simple: a short single ask, one fact, a small edit or transformation.
- medium: a request with a few requirements, a moderate amount of text or code to work on, or an explanation.
- complex: design or architecture, proofs, optimization with trade-offs, long multi-part requests with many constraints, or large inputs needing structured analysis.

Answer with one line and nothing else, in the form <taskType>/<complexity>, for example: coding/medium`;

/** Characters of the latest user turn shown (head and tail), and of each other message. */
const LATEST_HEAD = 3000;
const LATEST_TAIL = 1000;
const OTHER_HEAD = 600;
const OTHER_TAIL = 200;
const SYSTEM_HEAD = 500;
/** Total characters of context (before the latest turn) shown. */
const CONTEXT_BUDGET = 3000;

function shorten(text: string, head: number, tail: number): string {
  if (text.length <= head + tail + 20) return text;
  const cut = text.length - head - tail;
  return `${text.slice(0, head)}\n[... ${cut} characters cut ...]\n${tail > 0 ? text.slice(text.length - tail) : ''}`;
}

function render(m: ChatMessage, latest: boolean): string {
  const images = m.role === 'user' ? imageCount(m.content) : 0;
  const text = textOf(m.content);
  const body = latest
    ? shorten(text, LATEST_HEAD, LATEST_TAIL)
    : m.role === 'system' || m.role === 'developer'
      ? shorten(text, SYSTEM_HEAD, 0)
      : shorten(text, OTHER_HEAD, OTHER_TAIL);
  const imageNote = images > 0 ? ` (with ${images} image${images === 1 ? '' : 's'})` : '';
  return `[${m.role}${latest ? ', latest' : ''}${imageNote}]\n${body.length > 0 ? body : '(no text)'}`;
}

export function llmClassifierPrompt(messages: readonly ChatMessage[]): { system: string; user: string } {
  let latest = -1;
  for (let i = messages.length - 1; i >= 0; i--)
    if (messages[i]!.role === 'user') {
      latest = i;
      break;
    }
  if (latest < 0) latest = messages.length - 1;
  const parts: string[] = [];
  let budget = CONTEXT_BUDGET;
  let omitted = 0;
  for (let i = latest - 1; i >= 0; i--) {
    const block = render(messages[i]!, false);
    if (block.length > budget) {
      omitted = i + 1;
      break;
    }
    budget -= block.length;
    parts.push(block);
  }
  parts.reverse();
  if (omitted > 0) parts.unshift(`[${omitted} earlier message${omitted === 1 ? '' : 's'} omitted]`);
  if (latest >= 0) parts.push(render(messages[latest]!, true));
  for (let i = latest + 1; i < messages.length; i++) parts.push(render(messages[i]!, false));
  return { system: SYSTEM, user: `Conversation:\n\n${parts.join('\n\n')}\n\nClassification:` };
}

const TASK_ALIASES: Record<string, TaskType> = {
  summarisation: 'summarization',
  summary: 'summarization',
  'q&a': 'qa',
  code: 'coding',
};

function asTask(v: unknown): TaskType | undefined {
  if (typeof v !== 'string') return undefined;
  const s = v.trim().toLowerCase();
  if ((TASK_TYPES as readonly string[]).includes(s)) return s as TaskType;
  return TASK_ALIASES[s];
}

function asComplexity(v: unknown): Complexity | undefined {
  if (typeof v !== 'string') return undefined;
  const s = v.trim().toLowerCase();
  return (COMPLEXITIES as readonly string[]).includes(s) ? (s as Complexity) : undefined;
}

// Literal alternations with no nested quantifiers: linear time on any input.
const SLASH_FORM = /\b(coding|code|creative|summari[sz]ation|qa|q&a|general|vision)\s*\/\s*(simple|medium|complex)\b/i;
const TASK_FIELD = /task[\s_-]?(?:type)?["']?\s*[:=]\s*["']?([a-z&]+)/i;
const COMPLEXITY_FIELD = /complexity["']?\s*[:=]\s*["']?([a-z]+)/i;

/**
 * Reads the model's answer. Accepts the asked-for `coding/medium`, the same inside other text or
 * code fences, JSON such as {"taskType": "coding", "complexity": "medium"}, and
 * `Task: coding, Complexity: medium`. Undefined when no valid pair is found.
 */
export function parseLlmClassification(text: string): { taskType: TaskType; complexity: Complexity } | undefined {
  const head = text.length > 2000 ? text.slice(0, 2000) : text;
  const m = SLASH_FORM.exec(head);
  if (m) {
    const taskType = asTask(m[1]);
    const complexity = asComplexity(m[2]);
    if (taskType && complexity) return { taskType, complexity };
  }
  const t = TASK_FIELD.exec(head);
  const c = COMPLEXITY_FIELD.exec(head);
  const taskType = asTask(t?.[1]);
  const complexity = asComplexity(c?.[1]);
  return taskType && complexity ? { taskType, complexity } : undefined;
}
