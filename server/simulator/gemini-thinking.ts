// Gemini's checks on generationConfig.thinkingConfig, as its thinking guide documents them:
// a thinking level only for Gemini 3 and later, and only the levels the model has; a budget for
// 2.5 and later (Gemini 3 takes one for backwards compatibility), within the model's range,
// with 0 (thinking off) only where thinking can be turned off; never a level and a budget
// together; neither for models that do not think (before 2.5).
import { isObj } from './exchange.js';

interface ThinkingModel {
  /** Levels the model takes, if it takes levels (Gemini 3 and later). */
  levels?: readonly string[];
  /** The smallest non-zero budget, and whether 0 turns thinking off. */
  minBudget: number;
  canStop: boolean;
}

const MAX_BUDGET = 32_768;

function thinkingModel(model: string): ThinkingModel | undefined {
  const m = /^gemini-(\d+)(?:\.(\d+))?-(pro|flash-lite|flash)/.exec(model);
  if (!m) return undefined;
  const major = Number(m[1]);
  const minor = Number(m[2] ?? 0);
  const tier = m[3];
  if (major >= 3) {
    if (tier !== 'pro') return { levels: ['minimal', 'low', 'medium', 'high'], minBudget: 1, canStop: false };
    return {
      levels: major === 3 && minor === 0 ? ['low', 'high'] : ['low', 'medium', 'high'],
      minBudget: 128,
      canStop: false,
    };
  }
  if (major === 2 && minor >= 5) {
    if (tier === 'pro') return { minBudget: 128, canStop: false };
    return { minBudget: tier === 'flash-lite' ? 512 : 1, canStop: true };
  }
  return undefined;
}

/** Gemini's 400 message for the request's thinkingConfig, or undefined when it is fine. */
export function thinkingConfigError(model: string, config: unknown): string | undefined {
  if (config === undefined) return undefined;
  if (!isObj(config)) return "Invalid value at 'generation_config.thinking_config': expected an object";
  const level = config.thinkingLevel;
  const budget = config.thinkingBudget;
  if (level === undefined && budget === undefined) return undefined;
  const rules = thinkingModel(model);
  if (!rules) return 'Thinking is not supported for this model.';
  if (level !== undefined && budget !== undefined) return 'Thinking budget and thinking level cannot be set together.';
  if (level !== undefined) {
    if (!rules.levels) return 'Thinking level is not supported for this model.';
    const name = typeof level === 'string' ? level.toLowerCase() : '';
    if (!rules.levels.includes(name))
      return `Thinking level ${String(level).toUpperCase()} is not supported for this model.`;
    return undefined;
  }
  if (typeof budget !== 'number' || !Number.isInteger(budget))
    return "Invalid value at 'generation_config.thinking_config.thinking_budget': expected an integer";
  // -1: the model decides (dynamic thinking).
  if (budget === -1) return undefined;
  if (budget === 0) return rules.canStop ? undefined : 'Budget 0 is invalid. This model only works in thinking mode.';
  if (budget < rules.minBudget || budget > MAX_BUDGET) {
    return `The thinking budget ${budget} is invalid. Please choose a value between ${rules.minBudget} and ${MAX_BUDGET}.`;
  }
  return undefined;
}
