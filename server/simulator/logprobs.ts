// Token log probabilities for the simulated answers. One simulated token is one reply piece (the
// unit usage counts), so a reply has exactly as many entries as completion tokens. Values derive
// from the token text alone, so the same request always gets the same numbers.

export interface TokenProb {
  token: string;
  /** Natural log of the token's probability: negative, the chosen token's the highest. */
  logprob: number;
  /** Stable id for formats that name tokens by number (Gemini). */
  tokenId: number;
}

export interface TokenStep {
  chosen: TokenProb;
  /** The `top` most likely tokens at this step, best first; the chosen token leads. */
  top: TokenProb[];
}

/** The largest top-N any provider returns (OpenAI top_logprobs, Gemini logprobs). */
export const MAX_TOP = 20;

// Alternatives a real model would plausibly have weighed at a step: short, common tokens.
const ALTERNATIVES = [
  ' the',
  ' a',
  ',',
  '.',
  ' and',
  ' of',
  ' to',
  ' in',
  ' is',
  ' it',
  ' that',
  ' for',
  ' on',
  ' with',
  ' as',
  ' was',
  ' at',
  ' by',
  ' an',
  ' be',
  ' this',
];

/** One step per token, each with `top` ranked candidates (0 for none). */
export function tokenSteps(tokens: readonly string[], top: number): TokenStep[] {
  const n = Math.max(0, Math.min(MAX_TOP, Math.floor(top)));
  return tokens.map((token) => step(token, n));
}

function step(token: string, top: number): TokenStep {
  const h = hash(token);
  // Between -0.5 and -0.001: the chosen token is always a likely one.
  const chosen = { token, logprob: -((h % 500) + 1) / 1000, tokenId: h % 100_000 };
  const ranked: TokenProb[] = top > 0 ? [chosen] : [];
  for (let i = 0; ranked.length < top && i < ALTERNATIVES.length; i++) {
    const alt = ALTERNATIVES[(h + i) % ALTERNATIVES.length]!;
    if (alt === token) continue;
    // Each rank clearly less likely than the one before, so the order is unambiguous.
    const logprob = round(chosen.logprob - 1.5 * ranked.length - ((h >>> (ranked.length % 16)) % 100) / 1000);
    ranked.push({ token: alt, logprob, tokenId: hash(alt) % 100_000 });
  }
  return { chosen, top: ranked };
}

/** FNV-1a over the UTF-16 code units. */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function round(v: number): number {
  return Math.round(v * 10_000) / 10_000;
}

/** OpenAI's `logprobs.content` entries: token, logprob, UTF-8 bytes and the ranked top_logprobs. */
export function openaiLogprobs(tokens: readonly string[], top: number): Array<Record<string, unknown>> {
  const entry = (t: TokenProb) => ({ token: t.token, logprob: t.logprob, bytes: [...Buffer.from(t.token, 'utf8')] });
  return tokenSteps(tokens, top).map((s) => ({ ...entry(s.chosen), top_logprobs: s.top.map(entry) }));
}

/**
 * Gemini's `logprobsResult`: one chosen candidate per decoding step, and with `top` set (the
 * request's generationConfig.logprobs) that many ranked candidates per step as well.
 */
export function geminiLogprobs(tokens: readonly string[], top: number | undefined): Record<string, unknown> {
  const steps = tokenSteps(tokens, top ?? 0);
  const cand = (t: TokenProb) => ({ token: t.token, tokenId: t.tokenId, logProbability: t.logprob });
  let sum = 0;
  for (const s of steps) sum += s.chosen.logprob;
  return {
    ...(top !== undefined ? { topCandidates: steps.map((s) => ({ candidates: s.top.map(cand) })) } : {}),
    chosenCandidates: steps.map((s) => cand(s.chosen)),
    logProbabilitySum: round(sum),
  };
}
