import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { BUILTIN_RULES, RULE_FLAGS } from '../../server/gateway/guardrails/builtin.js';

// Efficacy of the built-in jailbreak rules on the evaluation set (README, "Guardrails"): recall on
// jailbreak prompts and false-positive rate on benign ones, per rule and overall, per source.
// The rows are not in the repository (their sources keep their own licences): data/guardrails/
// build.py writes train.jsonl and test.jsonl there, one {"text","label","source"} a line
// (GUARDRAILS_EVAL_DIR points elsewhere).
// SPLIT=train|test (default test: the held-back split the rules were never tuned on).

const dir = process.env.GUARDRAILS_EVAL_DIR ?? 'data/guardrails';
const split = process.env.SPLIT ?? 'test';
const file = join(dir, `${split}.jsonl`);
if (!existsSync(file)) {
  console.error(`no evaluation set at ${file}: set GUARDRAILS_EVAL_DIR (see README, Guardrails)`);
  process.exit(2);
}
interface Row {
  text: string;
  label: 'jailbreak' | 'benign';
  source: string;
}
const rows: Row[] = readFileSync(file, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l));
const rules = BUILTIN_RULES.map((r) => ({ name: r.name, re: new RegExp(r.pattern, RULE_FLAGS) }));
const pct = (n: number, d: number) => (d === 0 ? '-' : `${((100 * n) / d).toFixed(1)}%`);

const jail = rows.filter((r) => r.label === 'jailbreak');
const benign = rows.filter((r) => r.label === 'benign');
const HARD = /\b(?:act as|acting as|pretend|role-?play|you are an?|imagine you|play the role|in character|persona)\b/i;
const hard = benign.filter((r) => HARD.test(r.text));
const hits = (r: Row) => rules.filter((x) => x.re.test(r.text)).map((x) => x.name);
const jailHits = jail.map(hits);
const benignHits = benign.map(hits);

console.log(
  `split ${split}: ${jail.length} jailbreak, ${benign.length} benign (${hard.length} role-play / "act as" hard negatives)`,
);
console.log('\nrule                          recall   false positives');
for (const r of rules) {
  const tp = jailHits.filter((h) => h.includes(r.name)).length;
  const fp = benignHits.filter((h) => h.includes(r.name)).length;
  console.log(
    `${r.name.padEnd(30)}${pct(tp, jail.length).padStart(7)}   ${pct(fp, benign.length).padStart(6)} (${fp})`,
  );
}
const tp = jailHits.filter((h) => h.length > 0).length;
const fp = benignHits.filter((h) => h.length > 0).length;
const hardFp = hard.filter((r) => hits(r).length > 0).length;
console.log(
  `${'all four'.padEnd(30)}${pct(tp, jail.length).padStart(7)}   ${pct(fp, benign.length).padStart(6)} (${fp})`,
);
console.log(
  `hard negatives (role-play, "act as"): false positives ${pct(hardFp, hard.length)} (${hardFp} of ${hard.length})`,
);

console.log('\nby source                                    n    caught / flagged');
const sources = [...new Set(rows.map((r) => `${r.label}\t${r.source}`))].sort();
for (const s of sources) {
  const [label, source] = s.split('\t') as [string, string];
  const of = rows.filter((r) => r.label === label && r.source === source);
  const n = of.filter((r) => hits(r).length > 0).length;
  console.log(`${`${label}: ${source}`.padEnd(44)}${String(of.length).padStart(5)}    ${pct(n, of.length)}`);
}
if (process.env.SHOW) {
  const which = process.env.SHOW;
  for (const [i, r] of (which === 'fp' ? benign : jail).entries()) {
    const h = (which === 'fp' ? benignHits : jailHits)[i]!;
    if (which === 'fp' ? h.length > 0 : h.length === 0)
      console.log(`--- ${r.source} ${h.join(',')}\n${r.text.slice(0, 300).replace(/\n/g, ' | ')}`);
  }
}

// The request path runs each rule's alternatives only where their literals occur (rule-set.ts): it
// must answer on every row exactly as the whole patterns above do.
{
  const { RuleSet } = await import('../../server/gateway/guardrails/rule-set.js');
  const set = RuleSet.compile(
    BUILTIN_RULES.map((r) => ({
      id: r.key,
      name: r.name,
      action: 'flag' as const,
      pattern: r.pattern,
      engine: 'js' as const,
    })),
    { warn: () => undefined } as never,
  )!;
  let differ = 0;
  for (const row of rows) {
    const matchOf = set.over(row.text);
    const same = rules.every((rule, i) => {
      const m = rule.re.exec(row.text);
      const got = matchOf(i);
      return m === null ? got === null : got !== null && m.index === got.index && m[0] === got.text;
    });
    if (!same) differ++;
  }
  console.log(
    `\nthe request path's scan agrees with the whole patterns on ${rows.length - differ} of ${rows.length} rows`,
  );
  if (differ > 0) process.exitCode = 1;
}

// Cost on the request path: a 2,000-token prompt (about 8,000 characters of ordinary text from the
// benign prompts) against the four built-ins and 20 custom rules, all enabled, none firing.
{
  const { GuardrailGate } = await import('../../server/gateway/guardrails/gate.js');
  const { encode } = await import('gpt-tokenizer');
  let prompt = '';
  for (const r of benign) {
    if (hits(r).length > 0) continue;
    prompt += `${r.text}\n`;
    if (encode(prompt).length >= 2_000) break;
  }
  const custom = Array.from({ length: 20 }, (_, i) => `project[-_ ]?codename[-_ ]?${i}|acme-secret-${i}\\d{4}`);
  const rules = [...BUILTIN_RULES.map((r) => r.pattern), ...custom].map((pattern, i) => ({
    id: `grd_${i}`,
    tenantId: 'ten_bench',
    name: `rule ${i}`,
    action: 'block' as const,
    pattern,
    engine: 'js' as const,
  }));
  // The gate as the request path runs it, its rules loaded as at start-up (no database here).
  const gate = new GuardrailGate({
    loadEnabled: async () => rules,
    listener: { listen: async () => undefined } as never,
    logger: { warn: () => undefined } as never,
  });
  await gate.start();
  const scan = () => {
    if (gate.screen('ten_bench', prompt)) throw new Error('a rule fired on the timing prompt');
  };
  const builtinsOnly = new GuardrailGate({
    loadEnabled: async () => rules.slice(0, 4),
    listener: { listen: async () => undefined } as never,
    logger: { warn: () => undefined } as never,
  });
  await builtinsOnly.start();
  const customOnly = new GuardrailGate({
    loadEnabled: async () => rules.slice(4),
    listener: { listen: async () => undefined } as never,
    logger: { warn: () => undefined } as never,
  });
  await customOnly.start();
  for (let i = 0; i < 200; i++) scan();
  const timed = (f: () => unknown) => {
    const samples: number[] = [];
    for (let i = 0; i < 2_000; i++) {
      const t = performance.now();
      f();
      samples.push(performance.now() - t);
    }
    samples.sort((a, b) => a - b);
    const q = (p: number) => samples[Math.floor(p * (samples.length - 1))]!.toFixed(3);
    return `p50 ${q(0.5)} ms, p99 ${q(0.99)} ms`;
  };
  console.log(
    `\nscan cost of a ${encode(prompt).length}-token prompt (${prompt.length} characters) that no rule matches:`,
  );
  console.log(`  4 built-ins + 20 custom rules: ${timed(scan)}`);
  console.log(`  4 built-ins:                   ${timed(() => builtinsOnly.screen('ten_bench', prompt))}`);
  console.log(`  20 custom rules:               ${timed(() => customOnly.screen('ten_bench', prompt))}`);
  console.log(
    `  a workspace with no rule:      ${timed(() => gate.active('ten_none') && gate.screen('ten_none', prompt))}`,
  );
}
