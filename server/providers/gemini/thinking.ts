// OpenAI's `reasoning_effort` as Gemini's `generationConfig.thinkingConfig`.
//
// Gemini 3 and later take a thinking level; Gemini 2.5 a thinking budget in tokens (Google's
// thinking guide; sending both, or a level to 2.5, is a 400). Which levels a model takes, and
// whether its thinking can be turned off, depend on the model:
// - Gemini 3 Pro: low and high; 3.1 Pro and later Pros add medium; a Pro cannot stop thinking.
// - Gemini 3 Flash and Flash-Lite: minimal, low, medium and high. "minimal" is the closest they
//   come to not thinking, so "none" asks for it.
// - Gemini 2.5: Flash and Flash-Lite stop thinking at a budget of 0; Pro thinks at least 128
//   tokens. The budgets are the ones OpenAI-format layers over Gemini commonly use for the same
//   efforts (low 1,024, medium 8,192, high 24,576), and 512 for "minimal" (Flash-Lite's smallest).
// An effort a model has no level for takes the nearest it has: "minimal" the Pro's "low", and
// "medium" Gemini 3 Pro's "high" (its default). Models before 2.5, image, speech and live-audio
// variants, and names this cannot place (aliases such as gemini-flash-latest) get no thinking
// setting: the effort is a hint they lack.
import type { ChatRequest } from '../types.js';
import { askedEffort, type ReasoningEffort } from '../translation-rules.js';
import type { Refuse } from '../util.js';

export type GeminiThinkingConfig = { thinkingLevel: string } | { thinkingBudget: number };

const BUDGETS: Record<ReasoningEffort, number> = {
  none: 0,
  minimal: 512,
  low: 1_024,
  medium: 8_192,
  high: 24_576,
  xhigh: 24_576,
};
/** Gemini 2.5 Pro's smallest budget: it cannot turn thinking off. */
const PRO_MIN_BUDGET = 128;

interface GeminiModel {
  major: number;
  minor: number;
  tier: 'pro' | 'flash' | 'flash-lite';
}

/** Variants that generate images, speech or live audio, which do not think (Gemini: "Thinking is not enabled for this model"). */
const NOT_THINKING = /-(?:image|tts|audio|live)(?:-|$)/;

function parseModel(model: string): GeminiModel | undefined {
  const m = /^(?:models\/)?gemini-(\d+)(?:\.(\d+))?-(pro|flash-lite|flash)(?:-|$)/.exec(model);
  if (!m || NOT_THINKING.test(model)) return undefined;
  return { major: Number(m[1]), minor: Number(m[2] ?? 0), tier: m[3] as GeminiModel['tier'] };
}

function levelFor(model: GeminiModel, effort: ReasoningEffort): string {
  if (model.tier !== 'pro') {
    return effort === 'none' ? 'minimal' : effort === 'xhigh' ? 'high' : effort;
  }
  if (effort === 'none' || effort === 'minimal' || effort === 'low') return 'low';
  if (effort === 'medium') return model.major === 3 && model.minor === 0 ? 'high' : 'medium';
  return 'high';
}

/**
 * The thinking setting for the request's reasoning_effort, or undefined when none was asked for or
 * the model takes none (then the effort, a hint it lacks, is not even checked).
 */
export function geminiThinkingConfig(req: ChatRequest, refuse: Refuse): GeminiThinkingConfig | undefined {
  if (req['reasoning_effort'] == null) return undefined;
  const model = parseModel(req.model);
  const thinks = model !== undefined && (model.major >= 3 || (model.major === 2 && model.minor >= 5));
  if (!thinks) return undefined;
  const effort = askedEffort(req, refuse)!;
  if (model.major >= 3) return { thinkingLevel: levelFor(model, effort) };
  const budget = BUDGETS[effort];
  return { thinkingBudget: model.tier === 'pro' ? Math.max(PRO_MIN_BUDGET, budget) : budget };
}
