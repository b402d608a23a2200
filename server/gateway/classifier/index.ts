// The in-process request classifier: puts a request with an empty `model` into its routing cell
// (taskType, complexity). It runs on the hot path for every such request, so it reads each
// message once, caps how much of a long text it reads, and allocates little (see signals.ts).

import type { ChatMessage } from '../../providers/types.js';
import { COMPLEXITIES, TASK_TYPES, type Complexity, type TaskType } from '../types.js';
import { complexityOf, complexityScore } from './complexity.js';
import { imageCount, textOf } from './content.js';
import { scanText, type TextSignals } from './signals.js';
import { codeShape, scoreTask, type Turn } from './task.js';

export { llmClassifierPrompt, parseLlmClassification } from './llm.js';

export interface Classification {
  taskType: TaskType;
  complexity: Complexity;
  taskConfidence: number;
  complexityConfidence: number;
}

/**
 * Below this confidence (either dimension) the optional LLM classifier may be consulted.
 *
 * 0.5 is where the classifier rates its own pick less likely than all the alternatives together
 * (the task confidence is the top softmax probability), so a model call there is a real second
 * opinion rather than a confirmation, and it stays rare: about 2% of the labelled corpus falls
 * below it. Complexity confidence starts at 0.55 (see complexity.ts): a complexity miss is one
 * level off, not worth a model call on its own. The few task misses on the held-out set sat at
 * 0.54-0.66, so a deployment that can afford a model call on about one request in ten may raise
 * this towards 0.7.
 */
export const LOW_CONFIDENCE = 0.5;

/** Characters read from the latest user turn (head and tail windows), and from other turns. */
const LATEST_HEAD = 1500;
const LATEST_TAIL = 700;
const CONTEXT_HEAD = 400;
const CONTEXT_TAIL = 150;
const SYSTEM_HEAD = 400;
/** Context turns read, nearest first; older ones add little and would cost time in long chats. */
const MAX_CONTEXT_TURNS = 4;

// How much context counts next to the latest user turn (weight 1). The system prompt describes
// the assistant, not the request, so it is only a weak hint.
const EARLIER_USER_WEIGHT = 0.45;
const ASSISTANT_WEIGHT = 0.25;
const SYSTEM_WEIGHT = 0.15;
const TOOL_WEIGHT = 0.1;
const CONTEXT_DECAY = 0.7;
/** The most one context turn adds to a task's score (see Turn.cap). */
const EARLIER_USER_CAP = 4;
const ASSISTANT_CAP = 2.5;
const SYSTEM_CAP = 1;
const TOOL_CAP = 1;

const VISION_CONFIDENCE = 0.95;

export function classify(messages: readonly ChatMessage[]): Classification {
  let latestIdx = -1;
  let images = 0;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === 'user') {
      latestIdx = i;
      images += imageCount(m.content);
    }
  }
  if (latestIdx < 0) latestIdx = messages.length - 1; // no user turn: read the last message
  if (latestIdx < 0) return { taskType: 'general', complexity: 'simple', taskConfidence: 0, complexityConfidence: 0 };

  const latest = scanText(textOf(messages[latestIdx]!.content), LATEST_HEAD, LATEST_TAIL);
  const turns: Turn[] = [{ signals: latest, weight: 1, cap: Infinity }];
  let previousUser: TextSignals | undefined;
  let users = 0;
  let assistants = 0;
  let read = 0;
  let codeContext = false;
  for (let i = messages.length - 1; i >= 0 && read < MAX_CONTEXT_TURNS; i--) {
    if (i === latestIdx) continue;
    const m = messages[i]!;
    let weight: number;
    let cap: number;
    let head = CONTEXT_HEAD;
    let tail = CONTEXT_TAIL;
    if (m.role === 'user') {
      weight = EARLIER_USER_WEIGHT * CONTEXT_DECAY ** users++;
      cap = EARLIER_USER_CAP;
    } else if (m.role === 'assistant') {
      weight = ASSISTANT_WEIGHT * CONTEXT_DECAY ** assistants++;
      cap = ASSISTANT_CAP;
    } else if (m.role === 'system' || m.role === 'developer') {
      weight = SYSTEM_WEIGHT;
      cap = SYSTEM_CAP;
      head = SYSTEM_HEAD;
      tail = 0;
    } else {
      weight = TOOL_WEIGHT;
      cap = TOOL_CAP;
    }
    const text = textOf(m.content);
    if (text.length === 0) continue;
    const signals = scanText(text, head, tail);
    if (m.role === 'user' && previousUser === undefined && i < latestIdx) previousUser = signals;
    if (codeShape(signals) >= 3) codeContext = true;
    turns.push({ signals, weight, cap });
    read++;
  }

  const cx = complexityOf(
    complexityScore(latest, {
      previousScore: previousUser
        ? complexityScore(previousUser, { previousScore: 0, images: 0, codeContext: false })
        : 0,
      images,
      codeContext,
    }),
  );
  if (images > 0) {
    return {
      taskType: 'vision',
      complexity: cx.complexity,
      taskConfidence: VISION_CONFIDENCE,
      complexityConfidence: cx.confidence,
    };
  }
  const task = scoreTask(latest, turns);
  return {
    taskType: task.taskType,
    complexity: cx.complexity,
    taskConfidence: task.confidence,
    complexityConfidence: cx.confidence,
  };
}

/** The eval-target output form: `<taskType>/<complexity> (conf=<a>/<b>)`, e.g. `coding/complex (conf=0.91/0.78)`. */
export function formatClassification(c: Classification): string {
  return `${c.taskType}/${c.complexity} (conf=${c.taskConfidence.toFixed(2)}/${c.complexityConfidence.toFixed(2)})`;
}

const FORMAT = /^([a-z]+)\/([a-z]+)(?:\s+\(conf=\d+(?:\.\d+)?\/\d+(?:\.\d+)?\))?$/;

/**
 * Parses that form back (for eval scoring); undefined when it does not match. The confidence part
 * is optional, so an expected label such as `coding/complex` parses too.
 */
export function parseClassification(s: string): { taskType: TaskType; complexity: Complexity } | undefined {
  const m = FORMAT.exec(s.trim());
  if (!m) return undefined;
  const taskType = m[1] as TaskType;
  const complexity = m[2] as Complexity;
  if (!TASK_TYPES.includes(taskType) || !COMPLEXITIES.includes(complexity)) return undefined;
  return { taskType, complexity };
}
