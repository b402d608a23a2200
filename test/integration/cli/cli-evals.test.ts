import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { watchEvalRun } from '../../../sdk/index.js';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';
import { lines, runCli, type CliResult } from '../../support/cli.js';

// gatewayctl evals, prompts and rollouts (the real binary against a gateway in front of the
// simulator), and the SDK's typed methods and watchEvalRun.

let c: ChatEnv;
let dir: string;

// Every test spawns the CLI several times (tsx start-up each): slow on a loaded machine.
vi.setConfig({ testTimeout: 90_000 });

beforeAll(async () => {
  c = await startChatEnv({
    sim: {
      replies: [
        { whenContains: 'capital of France', reply: 'Paris is the capital.' },
        { whenContains: 'two plus two', reply: '5' },
        { whenContains: 'largest planet', reply: 'Jupiter' },
        { whenContains: 'color of the sky', reply: 'Blue' },
      ],
    },
  });
  dir = await mkdtemp(join(tmpdir(), 'gatewayctl-evals-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await c?.close();
});

const cli = (args: string[]): Promise<CliResult> => runCli(args, { url: c.env.baseUrl, token: c.tenant.token });
const user = (content: string) => [{ role: 'user', content }];

async function file(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

const CASES = [
  { input: user('What is the capital of France?'), expected: 'Paris' },
  { input: user('What is two plus two?'), expected: '4' },
  { input: user('Name the largest planet'), expected: 'Jupiter' },
  { input: user('What is the color of the sky?'), expected: 'Blue' },
];

describe('gatewayctl evals', () => {
  let datasetId = '';

  it('creates a dataset from a JSONL file, and names the bad line of a broken one', async () => {
    const path = await file('cases.jsonl', `${CASES.map((x) => JSON.stringify(x)).join('\n')}\n`);
    const created = await cli(['--json', 'evals', 'datasets', 'create', '--file', path]);
    expect(created.code, created.stderr).toBe(0);
    const ds = JSON.parse(created.stdout);
    expect(ds).toMatchObject({ name: 'cases', caseCount: 4 });
    datasetId = ds.id;

    const bad = await file('bad.jsonl', `${JSON.stringify(CASES[0])}\n{"input": 3}\n`);
    const refused = await cli(['evals', 'datasets', 'create', '--file', bad, '--name', 'bad']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: invalid_request_error: jsonl line 2: input/);
  });

  it('run --watch draws progress and prints the results; --min-score passes when the score reaches it', async () => {
    const res = await cli([
      'evals',
      'run',
      '--dataset',
      datasetId,
      '--model',
      'openai/gpt-4o-mini',
      '--scorer',
      'exact-match',
      '--watch',
      '--min-score',
      '75',
      '--interval',
      '0.1',
    ]);
    expect(res.code, res.stderr + res.stdout).toBe(0);
    expect(res.stderr, res.stdout).not.toBe('');
    // Not a terminal: one progress line per change, ending with every case done.
    const progress = lines(res.stderr);
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress.at(-1)).toMatch(/^\[#{30}\] 4\/4 cases {2}score 75\.0% pass {2}completed {2}ETA 0s$/);
    // 3 of 4 passed ("5" is not "4"): 75%.
    expect(res.stdout).toMatch(/SCORE\s*│\s*75\.0% pass/);
    expect(res.stdout).toMatch(/│ 1\s*│ 1\s*│ 4\s*│ 5\s*│/);
  });

  it('--min-score above the score exits 3, so a CI step fails', async () => {
    const res = await cli([
      'evals',
      'run',
      '--dataset',
      datasetId,
      '--model',
      'openai/gpt-4o-mini',
      '--scorer',
      'exact-match',
      '--min-score',
      '80',
      '--interval',
      '0.1',
    ]);
    expect(res.code).toBe(3);
    expect(res.stderr).toMatch(/error: eval run run_\S+ scored 75\.0% pass, below --min-score 80/);
  });

  it('runs list and show, in tables and JSON; a run without --watch returns at once', async () => {
    const started = await cli([
      '--json',
      'evals',
      'run',
      '--dataset',
      datasetId,
      '--model',
      'gateway/classifier',
      '--scorer',
      'regex-match',
    ]);
    expect(started.code, started.stderr).toBe(0);
    const { runId, status } = JSON.parse(started.stdout);
    expect(status).toBe('queued');
    const sdk = c.env.sdk(c.tenant.token);
    const seen: number[] = [];
    const done = await watchEvalRun(sdk, runId, { intervalMs: 50, onProgress: (r) => seen.push(r.completedCases) });
    expect(done.status).toBe('completed');
    expect(seen.at(-1)).toBe(4);

    const list = await cli(['evals', 'runs', 'list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(runId);
    expect(list.stdout).toMatch(/openai\/gpt-4o-mini\s*│ exact-match\s*│ 4\/4\s*│ 75\.0% pass/);
    const show = await cli(['--json', 'evals', 'runs', 'show', runId]);
    expect(JSON.parse(show.stdout)).toMatchObject({ id: runId, provider: 'gateway', model: 'classifier' });
    const usage = await cli(['evals', 'run', '--dataset', datasetId, '--model', 'nomodel']);
    expect(usage.code).toBe(2);
  });
});

describe('gatewayctl prompts and rollouts', () => {
  it('creates a template and a version, rolls it out, resolves, shows status and promotes', async () => {
    const v1 = await file('v1.json', JSON.stringify([{ role: 'system', content: 'Greet {{name}} warmly.' }]));
    const v2 = await file('v2.json', JSON.stringify([{ role: 'system', content: 'Greet {{name}} briefly.' }]));
    const created = await cli(['--json', 'prompts', 'create', 'greeter', '--file', v1]);
    expect(created.code, created.stderr).toBe(0);
    const template = JSON.parse(created.stdout);
    const version = await cli(['--json', 'prompts', 'version', template.id, '--file', v2, '--note', 'brief']);
    const canary = JSON.parse(version.stdout);
    expect(canary).toMatchObject({ version: 2, status: 'draft', variables: ['name'] });

    const list = await cli(['prompts', 'show', template.id]);
    expect(list.stdout).toMatch(/│ 2\s*│ draft\s*│ name\s*│ brief/);

    const rollout = await cli([
      '--json',
      'rollouts',
      'create',
      '--template',
      template.id,
      '--canary',
      canary.id,
      '--pct',
      '50',
      '--min-samples',
      '5',
    ]);
    expect(rollout.code, rollout.stderr).toBe(0);
    const ro = JSON.parse(rollout.stdout);
    expect(ro.criteria).toEqual({ min_samples: 5, window_hours: 24, max_avg_score_delta: 0.25 });

    const resolved = await cli(['--json', 'rollouts', 'resolve', template.id, '--var', 'name=Ada']);
    const r = JSON.parse(resolved.stdout);
    expect(r.rolloutId).toBe(ro.id);
    expect(r.messages[0].content).toMatch(/^Greet Ada (warmly|briefly)\.$/);

    const status = await cli(['rollouts', 'status', ro.id]);
    expect(status.stdout).toMatch(/│ canary\s*│ pv_\S+\s*│ 0\s*│ -/);

    const promoted = await cli(['rollouts', 'promote', ro.id]);
    expect(promoted.stdout.trim()).toBe(`Rollout ${ro.id} promoted.`);
    const sdk = c.env.sdk(c.tenant.token);
    expect((await sdk.prompts.get.query({ id: template.id })).publishedVersionId).toBe(canary.id);
    const history = await cli(['rollouts', 'list', '--status', 'promoted']);
    expect(history.stdout).toContain('promoted manually');
    const again = await cli(['rollouts', 'revert', ro.id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already ended/);
  });
});
