// The in-process request classifier: puts a request with an empty `model` into its routing cell
// (taskType, complexity). It runs on the hot path for every such request, so it reads each
// message once, caps how much of a long text it reads, and allocates little (see signals.ts).

import type { ChatMessage } from '../../providers/types.js';
import { COMPLEXITIES, TASK_TYPES, type Complexity, type TaskType } from '../types.js';
import { complexityOf, complexityScore } from './complexity.js';
import { imageCount, textOf } from './content.js';
import { addScores, biasInto, MODEL_CLASSES, softmaxInPlace } from './model.js';
import { scanText, type TextSignals } from './signals.js';
import { codeShape } from './task.js';

export { llmClassifierPrompt, parseLlmClassification } from './llm.js';

export interface Classification {
  taskType: TaskType;
  complexity: Complexity;
  taskConfidence: number;
  complexityConfidence: number;
}

/**
 * Below this confidence (either dimension) the optional LLM classifier is consulted.
 *
 * The task confidence is the learned model's top softmax probability, its temperature fitted on
 * prompts held out from training. On the corpus's test split (data/classifier/REPORT.md) the band
 * under 0.5 holds about 3% of prompts and is right on fewer than half of them, the band 0.5-0.7
 * a little over half the time, and above 0.9 (three prompts in four) 98 times in 100. So a model
 * call below 0.5 is a real second opinion, and it stays rare; a deployment that can afford one on
 * about one request in nine may raise this to 0.7. Complexity confidence starts at 0.55 (see
 * complexity.ts): a complexity miss is one level off, not worth a model call on its own.
 */
export const LOW_CONFIDENCE = 0.5;

/** Context turns read, nearest first; older ones add little and would cost time in long chats. */
const MAX_CONTEXT_TURNS = 4;
/** Characters of a context turn read (its head); the latest user turn is read through features.ts's windows. */
const CONTEXT_CHARS = 600;

// How much a context turn's scores count next to the latest user turn's (weight 1). The system
// prompt describes the assistant, not the request, so it is only a weak hint.
const EARLIER_USER_WEIGHT = 0.45;
const ASSISTANT_WEIGHT = 0.25;
const SYSTEM_WEIGHT = 0.12;
const TOOL_WEIGHT = 0.1;
const CONTEXT_DECAY = 0.7;
/**
 * Context counts in full when the latest turn says little ("make it faster") and fades as the
 * latest turn grows: at this many characters it counts half, so "now write me a haiku" after a
 * coding chat is creative.
 */
const CONTEXT_HALF_AT_CHARS = 60;

const VISION_CONFIDENCE = 0.95;

/**
 * One or two words ("hmm", "go on") are too little evidence for a confident call, whatever the
 * softmax says: the training data has few such texts and the model's probability on them is not
 * calibrated. Their confidence is scaled down (by (words + 1) / 4), unless earlier turns give
 * context, so an LLM classifier, when configured, gets them.
 */
function evidenceFactor(text: string, contextTurns: number): number {
  if (contextTurns > 0) return 1;
  let words = 0;
  let inWord = false;
  for (let i = 0; i < text.length && words < 3; i++) {
    const space = text.charCodeAt(i) <= 32;
    if (!space && !inWord) words++;
    inWord = !space;
  }
  return words >= 3 ? 1 : (words + 1) / 4;
}

const LATEST_HEAD = 1500;
const LATEST_TAIL = 700;

const scores = new Float64Array(MODEL_CLASSES.length);

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

  const latestText = textOf(messages[latestIdx]!.content);
  const latest = scanText(latestText, LATEST_HEAD, LATEST_TAIL);
  biasInto(scores);
  addScores(latestText, 1, scores);
  const contextFactor = 1 / (1 + latestText.trim().length / CONTEXT_HALF_AT_CHARS);
  let previousUser: TextSignals | undefined;
  let users = 0;
  let assistants = 0;
  let read = 0;
  let codeContext = false;
  for (let i = messages.length - 1; i >= 0 && read < MAX_CONTEXT_TURNS; i--) {
    if (i === latestIdx) continue;
    const m = messages[i]!;
    let weight: number;
    if (m.role === 'user') weight = EARLIER_USER_WEIGHT * CONTEXT_DECAY ** users++;
    else if (m.role === 'assistant') weight = ASSISTANT_WEIGHT * CONTEXT_DECAY ** assistants++;
    else if (m.role === 'system' || m.role === 'developer') weight = SYSTEM_WEIGHT;
    else weight = TOOL_WEIGHT;
    const text = textOf(m.content);
    if (text.length === 0) continue;
    const head = text.length > CONTEXT_CHARS ? text.slice(0, CONTEXT_CHARS) : text;
    addScores(head, weight * contextFactor, scores);
    if (m.role === 'user' || m.role === 'assistant') {
      const signals = scanText(text, 400, 150);
      if (m.role === 'user' && previousUser === undefined && i < latestIdx) previousUser = signals;
      if (codeShape(signals) >= 3) codeContext = true;
    }
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
  if (latestText.trim().length === 0 && read === 0) {
    return { taskType: 'general', complexity: cx.complexity, taskConfidence: 0, complexityConfidence: cx.confidence };
  }
  const best = softmaxInPlace(scores);
  return {
    taskType: MODEL_CLASSES[best]!,
    complexity: cx.complexity,
    taskConfidence: scores[best]! * evidenceFactor(latestText, read),
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
