import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// The import-rule check of `npm run lint`: dependency-cruiser over every source folder with the
// rules of .dependency-cruiser.cjs (written down in docs/packages-and-boundaries.md). Fails on a violation, and
// also when it found no files at all: a check that looked at nothing would pass forever.

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FOLDERS = ['server', 'contracts', 'sdk', 'cli', 'test', 'scripts'];

interface Violation {
  from: string;
  to: string;
  rule: { name: string; severity: string };
  cycle?: Array<{ name: string }>;
}
interface Result {
  summary: { violations: Violation[]; error: number; totalCruised: number; totalDependenciesCruised: number };
}

const run = spawnSync(
  process.execPath,
  [
    'node_modules/dependency-cruiser/bin/dependency-cruise.mjs',
    ...FOLDERS,
    '--config',
    '.dependency-cruiser.cjs',
    '--output-type',
    'json',
  ],
  { cwd: ROOT, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
);
if (run.status !== 0 && !run.stdout) {
  process.stderr.write(run.stderr);
  process.exit(1);
}
const { summary } = JSON.parse(run.stdout) as Result;
for (const v of summary.violations) {
  const path = v.cycle ? [v.from, ...v.cycle.map((c) => c.name)].join(' -> ') : `${v.from} -> ${v.to}`;
  process.stdout.write(`${v.rule.severity} ${v.rule.name}: ${path}\n`);
}
const counts = `${summary.totalCruised} modules, ${summary.totalDependenciesCruised} dependencies`;
if (summary.totalCruised === 0) {
  process.stdout.write(`import rules: no modules found (${counts}): the check looked at nothing\n`);
  process.exit(1);
}
if (summary.error > 0) {
  process.stdout.write(`import rules: ${summary.error} violations (${counts}); see docs/packages-and-boundaries.md\n`);
  process.exit(1);
}
process.stdout.write(`import rules: no violations (${counts})\n`);
