// OpenAI's `reasoning_effort` as Gemini's `generationConfig.thinkingConfig`.
//
// Gemini 3 and later take a thinking level; Gemini 2.5 a thinking budget in tokens (Google's
// thinking guide; sending both, or a level to 2.5, is a 400). Which levels a model takes, and
// whether its thinking can be turned off, depend on the model:
// - Gemini 3 Pro: low and high; 3.1 Pro and later Pros add medium; a Pro cannot stop thinking.
// - Gemini 3 Flash and Flash-Lite: minimal, low, medium and high. "minimal" is the closest they
//   come to not thinking, so "none" asks for it.
// - Gemini 2.5: Flash and Flash-Lite stop thinking at a budget of 0; Pro thinks at least 128
//   tokens. The budgets are those Google's OpenAI-compatible endpoint uses for the same efforts
//   (low 1,024, medium 8,192, high 24,576), and 512 for "minimal" (Flash-Lite's smallest).
// An effort a model has no level for takes the nearest it has: "minimal" the Pro's "low", and
// "medium" Gemini 3 Pro's "high" (its default). Models before 2.5, and names this cannot place
// (aliases such as gemini-flash-latest), get no thinking setting: the effort is a hint they lack.
import type { Refuse } from '../util.js';

export type GeminiThinkingConfig = { thinkingLevel: string } | { thinkingBudget: number };

/** The efforts OpenAI's Chat Completions takes, lowest first ("xhigh" the newest). */
const EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const;
type Effort = (typeof EFFORTS)[number];

const BUDGETS: Record<Effort, number> = { none: 0, minimal: 512, low: 1_024, medium: 8_192, high: 24_576, xhigh: 24_576 };
/** Gemini 2.5 Pro's smallest budget: it cannot turn thinking off. */
const PRO_MIN_BUDGET = 128;

interface GeminiModel { major: number; minor: number; tier: 'pro' | 'flash' | 'flash-lite' }

function parseModel(model: string): GeminiModel | undefined {
  const m = /^(?:models\/)?gemini-(\d+)(?:\.(\d+))?-(pro|flash-lite|flash)(?:-|$)/.exec(model);
  if (!m) return undefined;
  return { major: Number(m[1]), minor: Number(m[2] ?? 0), tier: m[3] as GeminiModel['tier'] };
}

function levelFor(model: GeminiModel, effort: Effort): string {
  if (model.tier !== 'pro') {
    return effort === 'none' ? 'minimal' : effort === 'xhigh' ? 'high' : effort;
  }
  if (effort === 'none' || effort === 'minimal' || effort === 'low') return 'low';
  if (effort === 'medium') return model.major === 3 && model.minor === 0 ? 'high' : 'medium';
  return 'high';
}

/**
 * The thinking setting for `effort` on `model`, or undefined when the model takes none (or no
 * effort was asked for). An effort OpenAI does not know is refused: dropping a typo would leave
 * the caller paying for the model's default thinking without knowing.
 */
export function geminiThinkingConfig(model: string, effort: unknown, refuse: Refuse): GeminiThinkingConfig | undefined {
  if (effort === undefined || effort === null) return undefined;
  if (typeof effort !== 'string' || !(EFFORTS as readonly string[]).includes(effort)) {
    refuse(`reasoning_effort: expected one of ${EFFORTS.join(', ')}`);
  }
  const parsed = parseModel(model);
  if (!parsed) return undefined;
  const asked = effort as Effort;
  if (parsed.major >= 3) return { thinkingLevel: levelFor(parsed, asked) };
  if (parsed.major === 2 && parsed.minor >= 5) {
    const budget = BUDGETS[asked];
    return { thinkingBudget: parsed.tier === 'pro' ? Math.max(PRO_MIN_BUDGET, budget) : budget };
  }
  return undefined;
}
