import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';
import { lines, runCli, type CliResult } from '../../support/cli.js';

// How gatewayctl's tables show what the API returns: times in the order the rows are listed,
// daily buckets as dates, a call no provider served as "-", and USD amounts of any size in plain
// decimals. gatewayctl in-process against a gateway with the simulator as every provider.

let c: ChatEnv;

function cli(args: string[]): Promise<CliResult> {
  return runCli(args, { url: c.env.baseUrl, token: c.tenant.token });
}

/** The cells of every table row (header and separators left out). */
function rowsOf(table: string): string[][] {
  return lines(table)
    .filter((l) => l.startsWith('│'))
    .slice(1)
    .map((l) =>
      l
        .split('│')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
}

/** "2025-01-31 14:05:09", as the tables show a time to the second (UTC). */
const toSecond = (iso: string) => iso.slice(0, 19).replace('T', ' ');

async function chat(content: string): Promise<string> {
  const res = await c.env.http('POST', '/v1/chat/completions', {
    token: c.tenant.token,
    body: { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content }] },
  });
  expect(res.status).toBe(200);
  return res.body._gateway.requestId;
}

beforeAll(async () => {
  c = await startChatEnv();
});
afterAll(() => c?.close());

describe('gatewayctl feedback tables', () => {
  it('lists feedback under the time it is ordered by, with a re-rating shown apart', async () => {
    const older = await chat('first question');
    const newer = await chat('second question');
    await c.waitForCount('select count(*) n from requests where tenant_id = $1', [c.tenant.tenantId], 2);
    const sdk = c.env.sdk(c.tenant.token);
    await sdk.feedback.submit.mutate({ requestId: older, score: 2 });
    await sdk.feedback.submit.mutate({ requestId: newer, score: 4 });
    // Spread the two ratings over the past hours, so that the re-rating below is the newest
    // time of all whatever the clock's resolution.
    await c.query(
      `update feedback set created_at = now() - interval '2 hours', updated_at = now() - interval '2 hours' where request_id = $1`,
      [older],
    );
    await c.query(
      `update feedback set created_at = now() - interval '1 hour', updated_at = now() - interval '1 hour' where request_id = $1`,
      [newer],
    );
    await sdk.feedback.submit.mutate({ requestId: older, score: 5 });

    const [table, json] = await Promise.all([cli(['feedback', 'list']), cli(['--json', 'feedback', 'list'])]);
    expect(table).toMatchObject({ code: 0, stderr: '' });
    expect(table.stdout).toMatch(/FIRST RATED \(UTC\)\s*│\s*REQUEST\s*│\s*SCORE.*│\s*RATED AGAIN \(UTC\)/);
    const items: Array<{ requestId: string; createdAt: string; updatedAt: string }> = JSON.parse(json.stdout).items;
    expect(items.map((f) => f.requestId)).toEqual([newer, older]);
    const [newerRow, olderRow] = rowsOf(table.stdout);
    expect([newerRow![1], olderRow![1]]).toEqual([newer, older]);
    // The first column is the time the list is ordered by: it reads newest first.
    expect(newerRow![0]).toBe(toSecond(items[0]!.createdAt));
    expect(olderRow![0]).toBe(toSecond(items[1]!.createdAt));
    expect(newerRow![0]! > olderRow![0]!).toBe(true);
    expect(olderRow!.slice(2, 4)).toEqual(['5', 'user']);
    expect(olderRow!.at(-1)).toBe(toSecond(items[1]!.updatedAt));
    expect(newerRow!.at(-1)).toBe('-');
  });

  it('shows daily trend buckets as dates and hourly ones with their time', async () => {
    const [daily, hourly] = await Promise.all([
      cli(['feedback', 'trend', '--range', '7d']),
      cli(['feedback', 'trend', '--range', '24h']),
    ]);
    expect(daily).toMatchObject({ code: 0, stderr: '' });
    expect(daily.stdout).toMatch(/DAY\s*│\s*AVG SCORE\s*│\s*FEEDBACK/);
    const days = rowsOf(daily.stdout).map((r) => r[0]);
    expect(days.length).toBeGreaterThanOrEqual(7);
    for (const day of days) expect(day).toMatch(/^\d{4}-\d{2}-\d{2}$/);

    expect(hourly).toMatchObject({ code: 0, stderr: '' });
    expect(hourly.stdout).toMatch(/HOUR\s*│\s*AVG SCORE\s*│\s*FEEDBACK/);
    for (const [hour] of rowsOf(hourly.stdout)) expect(hour).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:00$/);
  });
});

describe('gatewayctl models --stats and costs', () => {
  it('shows a call no provider served as "-" and an embeddings call\'s cost in plain decimals', async () => {
    const unknown = await c.env.http('POST', '/v1/chat/completions', {
      token: c.tenant.token,
      body: { model: 'openai/nope', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(unknown.status).toBe(404);
    const embedded = await c.env.http('POST', '/v1/embeddings', {
      token: c.tenant.token,
      body: { model: 'openai/text-embedding-3-small', input: 'a' },
    });
    expect(embedded.status).toBe(200);
    await c.waitForCount(
      "select count(*) n from requests where tenant_id = $1 and (model is null or endpoint = 'embeddings')",
      [c.tenant.tenantId],
      2,
    );

    const [stats, statsJson, costs, costsJson] = await Promise.all([
      cli(['models', '--stats']),
      cli(['--json', 'models', '--stats']),
      cli(['analytics', 'costs', '--by', 'model']),
      cli(['--json', 'analytics', 'costs', '--by', 'model']),
    ]);
    expect(stats).toMatchObject({ code: 0, stderr: '' });
    // The API names no provider and no model for it: empty strings in this endpoint, null in others.
    const noProvider = JSON.parse(statsJson.stdout).items.filter(
      (i: { provider: string | null; model: string | null }) => !i.provider && !i.model,
    );
    expect(noProvider).toEqual([expect.objectContaining({ requests: 1, errors: 1 })]);
    const unserved = rowsOf(stats.stdout).filter((r) => r[0] === '-');
    expect(unserved).toHaveLength(1);
    expect(unserved[0]!.slice(1, 3)).toEqual(['1', '1']);
    expect(stats.stdout).not.toMatch(/│ \/\s/);

    expect(costs).toMatchObject({ code: 0, stderr: '' });
    const embeddingsCost = JSON.parse(costsJson.stdout).items.find(
      (i: { model: string }) => i.model === 'text-embedding-3-small',
    ).totalCostUsd as number;
    // Far below a cent: where exponent notation would start.
    expect(embeddingsCost).toBeGreaterThan(0);
    expect(embeddingsCost).toBeLessThan(1e-6);
    const row = rowsOf(costs.stdout).find((r) => r[1] === 'text-embedding-3-small')!;
    for (const amount of [row[2], row[4]]) {
      expect(amount).toMatch(/^\$0\.0{6}\d{1,2}$/);
      expect(Number(amount!.slice(1))).toBeCloseTo(embeddingsCost, 10);
    }
    // The same amount reads the same in models --stats.
    const statsRow = rowsOf(stats.stdout).find((r) => r[0] === 'openai/text-embedding-3-small')!;
    expect(statsRow[7]).toBe(row[2]);
  });
});
