import { performance } from 'node:perf_hooks';
import { RoutingEngine } from '../../server/gateway/routing/engine.js';
import { seededRandom, type Random } from '../../server/lib/random.js';
import { DEFAULT_POLICY, policyWith } from '../../server/gateway/routing/scoring.js';
import { RoutingState, type RoutingSource } from '../../server/gateway/routing/state.js';
import { blendedPrice } from '../../server/gateway/routing/targets.js';
import {
  COMPLEXITIES,
  TASK_TYPES,
  type ChatCall,
  type Complexity,
  type Target,
  type TaskType,
} from '../../server/gateway/types.js';
import { modelTier } from '../../server/providers/capabilities.js';
import { createLogger } from '../../server/lib/logger.js';

// A simulated market for the adaptive router (`npm run bench:routing`). Every model has a hidden
// quality per routing cell; traffic arrives over cells, the router picks, and a share of requests
// get user feedback (the hidden quality plus noise, rounded to 1-5). We compare the quality and
// cost of the router's picks with an oracle that knows the hidden qualities and with always using
// the strongest model. Prints figures; asserts nothing.
//
// Two cells are planted so that a router that only explores cheaply would miss them: one where the
// dearest model is much better than every other (a router must pay for it there), and one where
// the cheapest model is also the best. The bench reports the share of the router's picks in each
// that go to that model, per tenth of the traffic.

const SEED = Number(process.env.SEED ?? 7);
const REQUESTS = Number(process.env.REQUESTS ?? 30_000);
const FEEDBACK_RATE = Number(process.env.FEEDBACK_RATE ?? 0.3);
const EXPLORATION = Number(process.env.EXPLORATION ?? 0.1);
/** Scales the policy's quality tolerance (as GATEWAY_ROUTING_TOLERANCE does): lower buys quality with money. */
const TOLERANCE_SCALE = Number(process.env.TOLERANCE_SCALE ?? 1);
const POLICY = {
  ...policyWith(Number(process.env.MIN_SAMPLES ?? DEFAULT_POLICY.minSamples), TOLERANCE_SCALE),
  ...(process.env.THOMPSON_PRIOR ? { explorationPriorStrength: Number(process.env.THOMPSON_PRIOR) } : {}),
};
const NOISE = 0.8;
const IN_TOKENS = 600;
const OUT_TOKENS = 300;
/** The learning curve's windows: tenths of the traffic. */
const WINDOWS = 10;

const MODELS: Target[] = [
  ['openai', 'gpt-4o'],
  ['openai', 'gpt-4o-mini'],
  ['openai', 'gpt-4.1'],
  ['openai', 'gpt-4.1-mini'],
  ['openai', 'gpt-4.1-nano'],
  ['openai', 'o3-mini'],
  ['anthropic', 'claude-sonnet-4-5'],
  ['anthropic', 'claude-3-5-haiku-latest'],
  ['gemini', 'gemini-2.5-pro'],
  ['gemini', 'gemini-2.5-flash'],
  ['gemini', 'gemini-2.0-flash'],
].map(([provider, model]) => ({ provider: provider!, model: model! }));

const key = (t: Target) => `${t.provider}/${t.model}`;

/** Planted cells: the dearest model much better than the rest; the cheapest model the best. */
const PLANTED: Array<{ name: string; cell: string; model: Target; quality: number; othersAtMost: number }> = [
  {
    name: 'dearest much better',
    cell: 'creative/complex',
    model: { provider: 'anthropic', model: 'claude-sonnet-4-5' },
    quality: 4.6,
    othersAtMost: 3.9,
  },
  {
    name: 'cheapest is best',
    cell: 'qa/complex',
    model: { provider: 'gemini', model: 'gemini-2.0-flash' },
    quality: 4.6,
    othersAtMost: 4.1,
  },
];
const cellKey = (t: TaskType, c: Complexity) => `${t}/${c}`;

/** Hidden quality: what the tier suggests, plus a per-(model, cell) deviation the router must discover. */
function hiddenMarket(random: Random): Map<string, Map<string, number>> {
  const base: Record<string, Record<Complexity, number>> = {
    small: { simple: 4.0, medium: 3.3, complex: 2.5 },
    medium: { simple: 4.2, medium: 3.9, complex: 3.4 },
    large: { simple: 4.4, medium: 4.3, complex: 4.2 },
  };
  const market = new Map<string, Map<string, number>>();
  for (const m of MODELS) {
    const tier = modelTier(m.model, m.provider) ?? 'medium';
    const cells = new Map<string, number>();
    for (const t of TASK_TYPES) {
      for (const c of COMPLEXITIES) {
        // Some cheap models are much better than their tier on some cells, some strong ones worse.
        const deviation = (random() - 0.5) * 1.2 + (random() < 0.12 ? 0.8 : 0) - (random() < 0.08 ? 0.8 : 0);
        cells.set(cellKey(t, c), Math.min(5, Math.max(1, base[tier]![c] + deviation)));
      }
    }
    market.set(key(m), cells);
  }
  for (const p of PLANTED) {
    for (const m of MODELS) {
      const cells = market.get(key(m))!;
      cells.set(p.cell, key(m) === key(p.model) ? p.quality : Math.min(cells.get(p.cell)!, p.othersAtMost));
    }
  }
  return market;
}

function costOf(t: Target): number {
  // blendedPrice is (3 x input + output) / 4 per million; recompute from the exact token mix.
  return (blendedPrice(t) * 4 * (IN_TOKENS + OUT_TOKENS)) / 4 / 1_000_000;
}

function gaussian(random: Random): number {
  const u = Math.max(random(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

function drawCell(random: Random): [TaskType, Complexity] {
  const tasks: TaskType[] = [
    'coding',
    'coding',
    'qa',
    'qa',
    'general',
    'general',
    'summarization',
    'creative',
    'vision',
  ];
  const complexities: Complexity[] = ['simple', 'simple', 'medium', 'medium', 'complex'];
  return [tasks[Math.floor(random() * tasks.length)]!, complexities[Math.floor(random() * complexities.length)]!];
}

function call(tenantId: string, taskType: TaskType, complexity: Complexity): ChatCall {
  return {
    requestId: 'bench',
    tenantId,
    tokenId: null,
    body: {
      model: '',
      messages: [{ role: 'user', content: 'x' }],
      routing_hint: taskType === 'vision' ? undefined : taskType,
      complexity_hint: complexity,
    } as ChatCall['body'],
    messages: [{ role: 'user', content: 'x' }],
    headerHints: { taskType, complexity },
    signal: new AbortController().signal,
    startedAt: 0,
    createdAt: new Date(),
  };
}

async function main() {
  const marketRandom = seededRandom(SEED);
  const market = hiddenMarket(marketRandom);
  const quality = (t: Target, cell: string) => market.get(key(t))!.get(cell)!;

  // The routing state is driven in memory only (no database): feedback goes straight to addFeedback.
  const state = new RoutingState(undefined as unknown as RoutingSource, createLogger('silent'));
  const engine = new RoutingEngine({
    state,
    classify: () => ({ taskType: 'general', complexity: 'medium', taskConfidence: 1, complexityConfidence: 1 }),
    lowConfidence: 0,
    explorationRate: EXPLORATION,
    abTestPreempts: true,
    policy: POLICY,
    random: seededRandom(SEED + 1),
  });

  // Baselines.
  const strongest = MODELS.reduce((best, m) => {
    const avg = (t: Target) =>
      [...market.get(key(t))!.values()].reduce((a, b) => a + b, 0) / (TASK_TYPES.length * COMPLEXITIES.length);
    return avg(m) > avg(best) ? m : best;
  });
  const oracleBest = (cell: string) => MODELS.reduce((b, m) => (quality(m, cell) > quality(b, cell) ? m : b));
  /** The oracle's quality-for-money pick: cheapest model within the router's tolerance of the true best. */
  const oracleValue = (cell: string, complexity: Complexity) => {
    const best = quality(oracleBest(cell), cell);
    return MODELS.filter((m) => quality(m, cell) >= best - POLICY.tolerance[complexity]).sort(
      (a, b) => costOf(a) - costOf(b),
    )[0]!;
  };

  const traffic = seededRandom(SEED + 2);
  const feedbackRandom = seededRandom(SEED + 3);
  type Tally = { q: number; cost: number; n: number };
  const tally = () => ({ q: 0, cost: 0, n: 0 });
  const totals = { router: tally(), oracleBest: tally(), oracleValue: tally(), strongest: tally() };
  const windows: Array<{ router: Tally; oracleValue: Tally; planted: Array<{ n: number; hit: number }> }> = Array.from(
    { length: WINDOWS },
    () => ({ router: tally(), oracleValue: tally(), planted: PLANTED.map(() => ({ n: 0, hit: 0 })) }),
  );
  const routedBy = new Map<string, number>();
  const lastPicks = new Map<string, Map<string, number>>();
  const add = (t: Tally, m: Target, cell: string) => {
    t.q += quality(m, cell);
    t.cost += costOf(m);
    t.n++;
  };

  const started = performance.now();
  for (let i = 0; i < REQUESTS; i++) {
    const [taskType, complexity] = drawCell(traffic);
    const cell = cellKey(taskType, complexity);
    const routed = await engine.route(
      call('bench', taskType, complexity),
      { vision: false, tools: false, json: false, structured: false },
      MODELS,
    );
    if (routed.decision === null) throw routed.error;
    const decision = routed.decision;
    routedBy.set(decision.routedBy, (routedBy.get(decision.routedBy) ?? 0) + 1);
    if (i >= REQUESTS * 0.9) {
      const picks = lastPicks.get(cell) ?? new Map<string, number>();
      picks.set(key(decision), (picks.get(key(decision)) ?? 0) + 1);
      lastPicks.set(cell, picks);
    }
    add(totals.router, decision, cell);
    add(totals.oracleBest, oracleBest(cell), cell);
    add(totals.oracleValue, oracleValue(cell, complexity), cell);
    add(totals.strongest, strongest, cell);
    const w = windows[Math.min(WINDOWS - 1, Math.floor((i / REQUESTS) * WINDOWS))]!;
    add(w.router, decision, cell);
    add(w.oracleValue, oracleValue(cell, complexity), cell);
    PLANTED.forEach((p, j) => {
      if (p.cell !== cell) return;
      w.planted[j]!.n++;
      if (key(decision) === key(p.model)) w.planted[j]!.hit++;
    });
    if (feedbackRandom() < FEEDBACK_RATE) {
      const score = Math.min(5, Math.max(1, Math.round(quality(decision, cell) + gaussian(feedbackRandom) * NOISE)));
      state.addFeedback('bench', { taskType, complexity, provider: decision.provider, model: decision.model, score });
    }
  }
  const elapsed = performance.now() - started;

  const row = (name: string, t: Tally) => ({
    strategy: name,
    'avg quality (1-5)': (t.q / t.n).toFixed(3),
    'total cost (USD)': t.cost.toFixed(2),
    'cost vs strongest': `${((100 * t.cost) / totals.strongest.cost).toFixed(1)}%`,
    'quality vs oracle-best': `${((100 * t.q) / totals.oracleBest.q).toFixed(1)}%`,
  });
  console.log(
    `\nRouting market: ${REQUESTS} requests, ${MODELS.length} models, ${TASK_TYPES.length * COMPLEXITIES.length} cells, feedback on ${FEEDBACK_RATE * 100}%, noise sd ${NOISE}, exploration ${EXPLORATION}, tolerance x${TOLERANCE_SCALE}, seed ${SEED}`,
  );
  console.log(`Always-strongest model: ${key(strongest)}`);
  console.table([
    row('adaptive router', totals.router),
    row('oracle: best quality per cell', totals.oracleBest),
    row('oracle: cheapest near-best per cell', totals.oracleValue),
    row('always strongest', totals.strongest),
  ]);
  const valueQ = totals.oracleValue.q / totals.oracleValue.n;
  console.log(
    `Router: ${((100 * totals.router.q) / totals.oracleValue.q).toFixed(1)}% of the oracle's quality (cheapest near-best, ${valueQ.toFixed(2)}) at ${((100 * totals.router.cost) / totals.strongest.cost).toFixed(1)}% of the always-strongest cost`,
  );
  console.log('Learning curve (router vs oracle cheapest-near-best, per tenth of the traffic):');
  console.table(
    windows.map((w, i) => ({
      tenth: `${i + 1}/${WINDOWS}`,
      'router quality': (w.router.q / w.router.n).toFixed(3),
      'oracle quality': (w.oracleValue.q / w.oracleValue.n).toFixed(3),
      'router / oracle': `${((100 * w.router.q) / w.oracleValue.q).toFixed(1)}%`,
      'router cost': w.router.cost.toFixed(2),
      'oracle cost': w.oracleValue.cost.toFixed(2),
      ...Object.fromEntries(
        PLANTED.map((p, j) => [
          `${p.name} (${p.cell}): picks of ${p.model.model}`,
          w.planted[j]!.n ? `${((100 * w.planted[j]!.hit) / w.planted[j]!.n).toFixed(0)}%` : '-',
        ]),
      ),
    })),
  );
  if (process.env.FRONTIER) {
    // The oracle's quality and cost at other tolerances, over the same traffic mix.
    const cellsMix: Array<[string, Complexity, number]> = [];
    const mixRandom = seededRandom(SEED + 2);
    const counts = new Map<string, number>();
    for (let i = 0; i < 20_000; i++) {
      const [t, c] = drawCell(mixRandom);
      counts.set(cellKey(t, c), (counts.get(cellKey(t, c)) ?? 0) + 1);
    }
    for (const [cell, n] of counts) cellsMix.push([cell, cell.split('/')[1] as Complexity, n]);
    const strongestCost = cellsMix.reduce((a, [, , n]) => a + n * costOf(strongest), 0);
    console.table(
      [0.5, 1, 1.5, 2, 2.5, 3, 4].map((scale) => {
        let q = 0;
        let cost = 0;
        let n = 0;
        for (const [cell, complexity, k] of cellsMix) {
          const best = quality(oracleBest(cell), cell);
          const m = MODELS.filter((x) => quality(x, cell) >= best - DEFAULT_POLICY.tolerance[complexity] * scale).sort(
            (a, b) => costOf(a) - costOf(b),
          )[0]!;
          q += k * quality(m, cell);
          cost += k * costOf(m);
          n += k;
        }
        return {
          'tolerance x': scale,
          quality: (q / n).toFixed(3),
          'cost vs strongest': `${((100 * cost) / strongestCost).toFixed(1)}%`,
        };
      }),
    );
  }
  if (process.env.CELLS) {
    // Per cell, the last tenth: the router's most frequent pick against the oracle's.
    console.table(
      [...lastPicks].map(([cell, picks]) => {
        const top = [...picks].sort((a, b) => b[1] - a[1])[0]!;
        const m = MODELS.find((x) => key(x) === top[0])!;
        const [t, c] = cell.split('/') as [TaskType, Complexity];
        const o = oracleValue(cell, c);
        return {
          cell,
          router: `${top[0]} ${((100 * top[1]) / [...picks.values()].reduce((a, b) => a + b, 0)).toFixed(0)}% q=${quality(m, cell).toFixed(2)} $${costOf(m).toFixed(5)}`,
          oracle: `${key(o)} q=${quality(o, cell).toFixed(2)} $${costOf(o).toFixed(5)}`,
          t,
        };
      }),
    );
  }
  console.log('Decisions by stage:', Object.fromEntries(routedBy));
  console.log(
    `Routing time: ${((elapsed * 1000) / REQUESTS).toFixed(1)} us per decision (including the simulation bookkeeping)`,
  );
}

void main();
