import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';
import { lines, runCli, type CliResult } from '../../support/cli.js';

// gatewayctl's routing commands (ab-tests, feedback, providers, models), in-process, against a
// gateway with the simulator as every provider.

let c: ChatEnv;

function cli(args: string[]): Promise<CliResult> {
  return runCli(args, { url: c.env.baseUrl, token: c.tenant.token });
}

/** The cells of the first table row that contains `needle`. */
function rowWith(table: string, needle: string): string[] {
  const line = lines(table).find((l) => l.includes(needle)) ?? '';
  return line
    .split('│')
    .slice(1, -1)
    .map((cell) => cell.trim());
}

const state: { testId?: string; requestId?: string; variant?: string } = {};

beforeAll(async () => {
  c = await startChatEnv({ env: { GATEWAY_ROUTING_SEED: '42', GATEWAY_EXPLORATION_RATE: '0' } });
});
afterAll(() => c?.close());

describe('gatewayctl ab-tests and feedback', () => {
  it('runs an A/B test from create to complete, rating a request it routed', async () => {
    const sdk = c.env.sdk(c.tenant.token);

    const created = await cli([
      'ab-tests',
      'create',
      'qa simple',
      '--variant',
      'openai/gpt-4o-mini:3',
      '--variant',
      'gemini/gemini-2.0-flash',
      '--task-type',
      'qa',
      '--complexity',
      'simple',
      '--json',
    ]);
    expect(created).toMatchObject({ code: 0, stderr: '' });
    const test = JSON.parse(created.stdout);
    expect(test).toMatchObject({
      name: 'qa simple',
      status: 'active',
      taskType: 'qa',
      complexity: 'simple',
      variants: [
        { provider: 'openai', model: 'gpt-4o-mini', weight: 3, taskType: 'qa', complexity: 'simple' },
        { provider: 'gemini', model: 'gemini-2.0-flash', weight: 1, taskType: 'qa', complexity: 'simple' },
      ],
    });
    const id: string = test.id;
    state.testId = id;

    // A request in the test's cell is routed by it; that is the one rated below.
    const chat = await c.env.http('POST', '/v1/chat/completions', {
      token: c.tenant.token,
      body: {
        model: '',
        messages: [{ role: 'user', content: 'what is the capital of France?' }],
        routing_hint: 'qa',
        complexity_hint: 'simple',
      },
    });
    expect(chat.status).toBe(200);
    expect(chat.body._gateway.routing).toMatchObject({ routedBy: 'ab-test', abTestId: id });
    const requestId: string = chat.body._gateway.requestId;
    const variant: string = chat.body._gateway.routing.variant;
    Object.assign(state, { requestId, variant });

    // The short form with thumbs, then `submit` with a score and a comment: the second replaces the first.
    const up = await cli(['feedback', requestId, 'up']);
    expect(up).toMatchObject({ code: 0, stderr: '', stdout: `Request ${requestId} (${variant}) scored 5/5.\n` });
    const four = await cli(['feedback', 'submit', requestId, '4', '--comment', 'solid answer', '--json']);
    expect(four).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(four.stdout)).toMatchObject({
      requestId,
      score: 4,
      source: 'user',
      comment: 'solid answer',
      model: variant.split('/')[1],
    });

    // The results read the request row, which the log writer commits asynchronously.
    await c.waitForCount('select count(*) n from requests where id = $1', [requestId], 1);

    const [list, shown] = await Promise.all([cli(['ab-tests', 'list']), cli(['ab-tests', 'show', id])]);
    expect(list).toMatchObject({ code: 0, stderr: '' });
    expect(list.stdout).toMatch(/ID\s*│\s*NAME\s*│\s*STATUS\s*│\s*CELL\s*│\s*VARIANTS/);
    expect(rowWith(list.stdout, id)).toEqual([
      id,
      'qa simple',
      'active',
      'qa/simple',
      'openai/gpt-4o-mini ×3, gemini/gemini-2.0-flash ×1',
      'no',
      expect.any(String),
    ]);

    expect(shown).toMatchObject({ code: 0, stderr: '' });
    expect(shown.stdout).toMatch(/STATUS\s*│\s*active/);
    expect(shown.stdout).toMatch(/CELL\s*│\s*qa\/simple/);
    expect(shown.stdout).toMatch(
      /VARIANT\s*│\s*WEIGHT\s*│\s*REQUESTS\s*│\s*ERRORS\s*│\s*AVG LATENCY\s*│\s*TOTAL COST\s*│\s*AVG COST\s*│\s*AVG SCORE\s*│\s*FEEDBACK/,
    );
    const served = rowWith(shown.stdout, `│ ${variant} `);
    expect(served[0]).toBe(variant);
    expect(served.slice(2)).toEqual([
      '1',
      '0',
      expect.stringMatching(/^\d+ ms$/),
      expect.stringMatching(/^\$0\.\d{2,8}$/),
      expect.stringMatching(/^\$0\.\d{2,8}$/),
      '4.00',
      '1',
    ]);
    const other = variant === 'openai/gpt-4o-mini' ? 'gemini/gemini-2.0-flash' : 'openai/gpt-4o-mini';
    expect(rowWith(shown.stdout, `│ ${other} `).slice(2)).toEqual(['0', '0', '-', '$0.00', '-', '-', '0']);

    const paused = await cli(['ab-tests', 'pause', id]);
    expect(paused).toMatchObject({ code: 0, stderr: '', stdout: `A/B test ${id} (qa simple) paused.\n` });
    expect((await sdk.abTests.get.query({ id })).status).toBe('paused');

    const resumed = await cli(['ab-tests', 'resume', id, '--json']);
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ id, status: 'active', completedAt: null });

    const completed = await cli(['ab-tests', 'complete', id]);
    expect(completed).toMatchObject({ code: 0, stderr: '', stdout: `A/B test ${id} (qa simple) completed.\n` });
    expect((await sdk.abTests.get.query({ id })).completedAt).not.toBeNull();

    // Completed is final: the gateway's conflict comes back as one line and exit code 1.
    const again = await cli(['ab-tests', 'resume', id]);
    expect(again).toMatchObject({ code: 1, stdout: '' });
    expect(lines(again.stderr)).toEqual([
      `error: conflict_error: A/B test '${id}' is completed; a completed test cannot change status`,
    ]);

    // A completed test keeps its results and can still be renamed.
    const renamed = await cli(['ab-tests', 'rename', id, 'qa simple (done)']);
    expect(renamed).toMatchObject({ code: 0, stderr: '', stdout: `A/B test ${id} renamed to qa simple (done).\n` });
    expect(await sdk.abTests.get.query({ id })).toMatchObject({ name: 'qa simple (done)', status: 'completed' });
  }, 60_000);

  it('lists the feedback and the quality per model, and configures the judge', async () => {
    const { requestId, variant } = state;
    expect(requestId).toBeDefined();
    const [list, quality, judge] = await Promise.all([
      cli(['--json', 'feedback', 'list']),
      cli(['feedback', 'quality']),
      cli(['feedback', 'judge', '--enable', '--model', 'auto', '--sample-rate', '0.25', '--json']),
    ]);

    expect(list).toMatchObject({ code: 0, stderr: '' });
    const page = JSON.parse(list.stdout);
    expect(page).toEqual({
      items: [expect.objectContaining({ requestId, score: 4, source: 'user', comment: 'solid answer' })],
      nextCursor: null,
    });

    expect(quality).toMatchObject({ code: 0, stderr: '' });
    expect(quality.stdout).toMatch(/MODEL\s*│\s*AVG SCORE\s*│\s*FEEDBACK\s*│\s*USER\s*│\s*JUDGE/);
    expect(rowWith(quality.stdout, variant!)).toEqual([variant, '4.00', '1', '1', '0']);

    // "auto" is sent as null: the judge then picks the cheapest available model.
    expect(judge).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(judge.stdout)).toEqual({
      enabled: true,
      model: null,
      sampleRate: 0.25,
      effectiveModel: expect.stringContaining('/'),
    });

    // The trend: today's daily bucket holds the one rating, for every model and for its own.
    const [trend, own, other, badModel] = await Promise.all([
      cli(['feedback', 'trend']),
      cli(['--json', 'feedback', 'trend', '--range', '24h', '--model', variant!]),
      cli(['--json', 'feedback', 'trend', '--model', 'openai/not-rated']),
      cli(['feedback', 'trend', '--model', 'no-slash']),
    ]);
    expect(trend).toMatchObject({ code: 0, stderr: '' });
    expect(trend.stdout).toMatch(/DAY\s*│\s*AVG SCORE\s*│\s*FEEDBACK/);
    expect(trend.stdout).toMatch(/│\s*4\.00\s*│\s*1\s*│/);
    const hourly = JSON.parse(own.stdout);
    expect(hourly.bucket).toBe('hour');
    expect(hourly.points.reduce((n: number, p: { feedbackCount: number }) => n + p.feedbackCount, 0)).toBe(1);
    expect(JSON.parse(other.stdout).points.every((p: { feedbackCount: number }) => p.feedbackCount === 0)).toBe(true);
    expect(badModel).toMatchObject({ code: 2, stdout: '' });
  });
});

describe('gatewayctl providers and models', () => {
  it('lists providers and the pricing table, and rejects a bad --variant before any call', async () => {
    const [providers, pricing, badVariant] = await Promise.all([
      cli(['providers', 'list', '--json']),
      cli(['models', '--pricing', '--json']),
      cli(['ab-tests', 'create', 'bad', '--variant', 'openai-gpt-4o', '--variant', 'gemini/gemini-2.0-flash']),
    ]);

    expect(providers).toMatchObject({ code: 0, stderr: '' });
    const list = JSON.parse(providers.stdout);
    const byName = Object.fromEntries(list.items.map((p: { name: string }) => [p.name, p]));
    for (const [name, family] of [
      ['openai', 'openai-compatible'],
      ['anthropic', 'anthropic'],
      ['gemini', 'gemini'],
    ] as const) {
      expect(byName[name]).toMatchObject({ family, source: 'env', active: true, circuit: { state: 'closed' } });
      expect(byName[name].modelCount).toBeGreaterThan(0);
    }
    expect(list.activeCount).toBe(list.items.filter((p: { active: boolean }) => p.active).length);

    expect(pricing).toMatchObject({ code: 0, stderr: '' });
    const table = JSON.parse(pricing.stdout);
    expect(table.asOf).toEqual(expect.any(String));
    const mini = table.items.find((m: { model: string }) => m.model === 'gpt-4o-mini');
    expect(mini).toMatchObject({ inputPerMillionUsd: expect.any(Number), outputPerMillionUsd: expect.any(Number) });
    expect(mini.outputPerMillionUsd).toBeGreaterThan(mini.inputPerMillionUsd);

    // This workspace's use of each model and of the cache: the request rated above was served by `state.variant`.
    const [stats, cache] = await Promise.all([cli(['--json', 'models', '--stats']), cli(['analytics', 'cache'])]);
    expect(stats).toMatchObject({ code: 0, stderr: '' });
    const [provider, model] = state.variant!.split('/');
    expect(JSON.parse(stats.stdout).items).toContainEqual(
      expect.objectContaining({ provider, model, requests: 1, errors: 0 }),
    );
    expect(cache).toMatchObject({ code: 0, stderr: '' });
    expect(cache.stdout).toMatch(/MODEL\s*│\s*HITS\s*│\s*TOKENS SAVED IN\/OUT\s*│\s*EST\. SAVED/);
    expect(lines(cache.stdout).at(-1)).toMatch(
      /^Hit rate 0\.0% \(0 of 1 requests\), 0 tokens and about \$0\.00 saved\.$/,
    );

    const distribution = await cli(['analytics', 'routing', '--distribution']);
    expect(distribution).toMatchObject({ code: 0, stderr: '' });
    expect(distribution.stdout).toMatch(/BY\s*│\s*VALUE\s*│\s*REQUESTS\s*│\s*SHARE/);
    expect(rowWith(distribution.stdout, state.variant!)).toEqual(['model', state.variant, '1', '100.0%']);
    expect(lines(distribution.stdout).at(-1)).toBe('1 requests in all');

    expect(badVariant).toMatchObject({ code: 2, stdout: '' });
    expect(lines(badVariant.stderr)).toEqual([
      expect.stringMatching(
        /^error: option '--variant .*' argument 'openai-gpt-4o' is invalid\. Expected provider\/model\[:weight\]/,
      ),
    ]);
    expect((await c.env.sdk(c.tenant.token).abTests.list.query()).items.map((t) => t.name)).not.toContain('bad');
  });
});
