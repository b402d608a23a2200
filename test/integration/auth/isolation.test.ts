import { randomBytes } from 'node:crypto';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ChatEnv, startChatEnv } from '../../support/chat-env.js';
import type { HttpResult } from '../../support/harness.js';
import {
  GOOGLE_CLIENT,
  PUBLIC_URL,
  type SignedIn,
  asSession,
  signInByMagicLink,
  signInWithGoogle,
} from '../../support/sign-in/flows.js';
import { startOidcStandIn } from '../../support/sign-in/oidc-stand-in.js';
import { startSmtpCapture } from '../../support/sign-in/smtp-capture.js';
import { writeCostMigration, writeRegressionEvent } from '../../support/cycle-rows.js';

// Workspace isolation, proven over the whole API: two workspaces made through the real sign-in
// flows (A with Google against a real OpenID Connect provider, B by magic link through a real SMTP
// server), A given one object of every kind, then every /v1 operation of /openapi.json called with
// B's credentials (its session cookie and its own token). The operations come from the document,
// so a path added later is covered without a change here; the few that need more than the generic
// rule are listed in SPECIAL below. The rules:
// - an operation on one of A's ids answers B exactly as it answers an id that does not exist (and
//   that is a 404 wherever the made-up id is);
// - nothing B reads contains any of A's ids or its members' e-mail;
// - after all of B's calls, every stable answer A gets is unchanged;
// - A's cached answers, rate-limit counts and live-tap events never reach B.

let c: ChatEnv;
let smtp: Awaited<ReturnType<typeof startSmtpCapture>>;
let oidc: Awaited<ReturnType<typeof startOidcStandIn>>;
let a: SignedIn & { token: string };
let b: SignedIn & { token: string };
/** Ids of A's objects, by kind (filled in while seeding). */
const A: Record<string, string> = {};
/** Every id and e-mail of workspace A that B must never see. */
const secretsOfA = new Set<string>();
const MARK = 'isolation-A';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
interface Operation {
  method: Method;
  path: string;
}

/**
 * Operations the generic rule cannot exercise alone, each with the reason. `skip`: not a workspace
 * object (or covered by its own test below); `params`: where a path parameter's id of A comes
 * from; `asB`: the request B makes instead (ids of A in a query or body), which must answer 404.
 */
const SPECIAL: Record<
  string,
  { skip?: string; params?: Record<string, () => string>; asB?: () => { path: string; body?: unknown } }
> = {
  'POST /v1/chat/completions': { skip: 'data plane: cache, rate limits and the live tap are tested below' },
  'POST /v1/embeddings': { skip: 'data plane: as chat completions' },
  'GET /v1/analytics/live': { skip: 'a stream: tested below' },
  'POST /v1/providers/reload': {
    skip: "the deployment's provider catalogue, not a workspace's: refused to every workspace in multi mode (tested below)",
  },
  'GET /v1/models/{model}': { skip: 'models are the deployment catalogue, not workspace objects' },
  'POST /v1/admin/scheduler/jobs/{name}/run': { skip: 'job names are the deployment’s; a run is scoped to the caller' },
  'POST /v1/rollouts/resolve/{templateId}': { params: { templateId: () => A.prompt! } },
  'POST /v1/cost-migrations/{id}/rollback': { params: { id: () => A.costMigration! } },
  'POST /v1/regression/events/{id}/resolve': { params: { id: () => A.regressionEvent! } },
  'DELETE /v1/api-keys/{id}': { params: { id: () => A.providerKey! } },
  'GET /v1/admin/providers/{id}': { params: { id: () => A.customProvider! } },
  'PATCH /v1/admin/providers/{id}': { params: { id: () => A.customProvider! } },
  'DELETE /v1/admin/providers/{id}': { params: { id: () => A.customProvider! } },
  'PATCH /v1/admin/team': { asB: () => ({ path: '/v1/admin/team', body: { userId: A.user, role: 'read-only' } }) },
  'DELETE /v1/admin/team': { asB: () => ({ path: `/v1/admin/team?userId=${A.user}` }) },
  'POST /v1/feedback': { asB: () => ({ path: '/v1/feedback', body: { requestId: A.request, score: 1 } }) },
  'POST /v1/evals/runs': {
    asB: () => ({
      path: '/v1/evals/runs',
      body: { datasetId: A.dataset, provider: 'openai', model: 'gpt-4o-mini', scorer: 'exact-match' },
    }),
  },
  'POST /v1/rollouts': {
    asB: () => ({ path: '/v1/rollouts', body: { templateId: A.prompt, canaryVersionId: A.version, rolloutPct: 50 } }),
  },
};

/** Bodies that pass validation, so B's request reaches the workspace check. */
const BODIES: Record<string, unknown> = {
  'PATCH /v1/ab-tests/{id}': { status: 'paused' },
  'PUT /v1/guardrails/{id}': { enabled: false },
  'POST /v1/evals/datasets/{id}/cases': { input: [{ role: 'user', content: 'x' }] },
  'POST /v1/evals/datasets/{id}/cases/from-requests': { requestIds: ['req_x'] },
  'POST /v1/prompts/{id}/versions': { messages: [{ role: 'user', content: 'x' }] },
  'POST /v1/rollouts/resolve/{templateId}': {},
  'PATCH /v1/admin/tokens/{id}': { name: 'renamed' },
  'POST /v1/regression/events/{id}/resolve': { note: 'not ours' },
  'PATCH /v1/admin/providers/{id}': { discover: false },
};

const IDISH = /^[a-z]{2,8}_[\w-]{8,}$/;

/** Collects the values of id-like keys (id, token, *Id) from a JSON answer. */
function collectIds(value: unknown, into: Set<string>, key = ''): void {
  if (typeof value === 'string') {
    if ((key === 'id' || key === 'token' || key.endsWith('Id')) && IDISH.test(value)) into.add(value);
  } else if (Array.isArray(value)) for (const v of value) collectIds(v, into, key);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) collectIds(v, into, Array.isArray(v) ? k : k);
}

/** The first object in any array of `body` with `field`, preferring one A made (its name carries MARK). */
function pick(body: unknown, field: string): string | undefined {
  const arrays: unknown[][] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) arrays.push(v);
    else if (v && typeof v === 'object') for (const x of Object.values(v)) walk(x);
  };
  walk(body);
  for (const arr of arrays) {
    const objects = arr.filter((o): o is Record<string, unknown> => !!o && typeof o === 'object' && field in o);
    const chosen = objects.find((o) => JSON.stringify(o).includes(MARK)) ?? objects[0];
    if (chosen && typeof chosen[field] === 'string') return chosen[field] as string;
  }
  return undefined;
}

function operations(doc: any): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<Record<string, unknown>>(doc.paths))
    if (path.startsWith('/v1/'))
      for (const method of Object.keys(item)) ops.push({ method: method.toUpperCase() as Method, path });
  return ops;
}

const asToken = (token: string) => (method: string, path: string, body?: unknown) =>
  c.env.http(method, path, { token, body });

beforeAll(async () => {
  smtp = await startSmtpCapture();
  oidc = await startOidcStandIn({ ...GOOGLE_CLIENT, redirectUri: `${PUBLIC_URL}/auth/callback/google` });
  c = await startChatEnv({
    env: {
      GATEWAY_PUBLIC_URL: PUBLIC_URL,
      GATEWAY_SMTP_URL: smtp.url,
      GATEWAY_GOOGLE_CLIENT_ID: GOOGLE_CLIENT.clientId,
      GATEWAY_GOOGLE_CLIENT_SECRET: GOOGLE_CLIENT.clientSecret,
      GATEWAY_GOOGLE_ISSUER: oidc.issuer,
      GATEWAY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    },
  });
  // Both workspaces are made by sign-up, then given every feature (the tiers gate, not isolate).
  const first = await signInWithGoogle(c.env, oidc, { sub: 'iso-a', email: 'alice@a.test' });
  const firstB = await signInByMagicLink(c.env, smtp, 'bob@b.test');
  await c.query("update tenants set tier = 'intelligence' where id = any($1)", [[first.tenantId, firstB.tenantId]]);
  // Signed in again: the new sessions carry the tier.
  const sa = await signInWithGoogle(c.env, oidc, { sub: 'iso-a', email: 'alice@a.test' });
  const sb = await signInByMagicLink(c.env, smtp, 'bob@b.test');
  const tokenOf = async (s: SignedIn) =>
    (
      await asSession(c.env, s)('POST', '/v1/admin/tokens', {
        body: { name: 'isolation', admin: true, rateLimitPerMinute: 1000 },
      })
    ).body;
  const ta = await tokenOf(sa);
  const tb = await tokenOf(sb);
  a = { ...sa, token: ta.token };
  b = { ...sb, token: tb.token };
  A.user = a.userId;
  A.token = ta.id;
  await seedA();
  for (const op of operations((await c.env.http('GET', '/openapi.json')).body))
    if (op.method === 'GET' && !op.path.includes('{') && !SPECIAL[`GET ${op.path}`]?.skip)
      collectIds((await asToken(a.token)('GET', op.path)).body, secretsOfA);
  for (const id of Object.values(A)) secretsOfA.add(id);
  secretsOfA.add(a.tenantId);
  secretsOfA.add('alice@a.test');
}, 120_000);

afterAll(async () => {
  await c?.close();
  await smtp?.close();
  await oidc?.close();
});

/** One object of every kind in workspace A, made through the API as A's users would. */
async function seedA(): Promise<void> {
  const api = asToken(a.token);
  const ok = (res: HttpResult, what: string) => {
    expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  };
  const openai = new OpenAI({ apiKey: a.token, baseURL: `${c.env.baseUrl}/v1`, maxRetries: 0 });
  const chat = await openai.chat.completions.create({
    model: 'openai/gpt-4o-mini',
    messages: [{ role: 'user', content: `${MARK} hello` }],
    temperature: 0,
  });
  A.request = (chat as unknown as { _gateway: { requestId: string } })._gateway.requestId;
  await c.waitForCount('select count(*)::int as n from requests where id = $1', [A.request], 1);
  A.abTest = ok(
    await api('POST', '/v1/ab-tests', {
      name: `${MARK} test`,
      variants: [
        { provider: 'openai', model: 'gpt-4o', weight: 1 },
        { provider: 'openai', model: 'gpt-4o-mini', weight: 1 },
      ],
    }),
    'ab test',
  ).id;
  A.guardrail = ok(
    await api('POST', '/v1/guardrails', { name: `${MARK} rule`, pattern: 'forbidden-word' }),
    'guardrail',
  ).id;
  const prompt = ok(
    await api('POST', '/v1/prompts', { name: `${MARK} prompt`, messages: [{ role: 'user', content: 'v1' }] }),
    'prompt',
  );
  A.prompt = prompt.id;
  A.version = ok(
    await api('POST', `/v1/prompts/${A.prompt}/versions`, { messages: [{ role: 'user', content: 'v2' }] }),
    'version',
  ).id;
  A.rollout = ok(
    await api('POST', '/v1/rollouts', { templateId: A.prompt, canaryVersionId: A.version, rolloutPct: 10 }),
    'rollout',
  ).id;
  A.dataset = ok(
    await api('POST', '/v1/evals/datasets', {
      name: `${MARK} set`,
      jsonl: '{"input":[{"role":"user","content":"q"}],"expected":"a"}',
    }),
    'dataset',
  ).id;
  A.run = ok(
    await api('POST', '/v1/evals/runs', {
      datasetId: A.dataset,
      provider: 'openai',
      model: 'gpt-4o-mini',
      scorer: 'exact-match',
    }),
    'run',
  ).runId;
  ok(await api('POST', '/v1/feedback', { requestId: A.request, score: 4 }), 'feedback');
  A.providerKey = ok(await api('POST', '/v1/api-keys', { provider: 'openai', key: 'sk-isolation-a-0001' }), 'key').id;
  A.customProvider = ok(
    await api('POST', '/v1/admin/providers', {
      name: 'iso-a-corp',
      baseUrl: 'https://models.a.test/v1',
      key: 'sk-isolation-a-0002',
      models: [{ id: `${MARK}-model`, inputPerMillionUsd: 1, outputPerMillionUsd: 2 }],
    }),
    'custom provider',
  ).id;
  ok(await api('PUT', '/v1/spend/budgets', { monthlyUsd: 1234 }), 'budget');
  A.invite = ok(
    await asSession(c.env, a)('POST', '/v1/admin/team/invites', { body: { email: 'carol@a.test' } }),
    'invite',
  ).token;
  secretsOfA.add('carol@a.test');
  // A cost migration and a regression event are made by the gateway's own cycles from weeks of
  // judged traffic (their own tests play that): here one row of each, as those cycles write them.
  A.costMigration = 'cmig_isolationA0001';
  await writeCostMigration(c.query, A.costMigration, a.tenantId);
  A.regressionEvent = 'reg_isolationA0001';
  await writeRegressionEvent(c.query, A.regressionEvent, a.tenantId, [A.request!]);
  for (const [kind, id] of Object.entries(A)) expect(String(id), `the id of A's ${kind}`).toMatch(IDISH);
}

describe('workspace isolation over every /v1 operation of /openapi.json', () => {
  it('B never reads, changes or learns of A’s objects', async () => {
    const doc = (await c.env.http('GET', '/openapi.json')).body;
    const ops = operations(doc);
    expect(ops.length).toBeGreaterThan(50);
    const asB = {
      session: asSession(c.env, b),
      token: (method: string, path: string, opts: { body?: unknown } = {}) =>
        c.env.http(method, path, { token: b.token, body: opts.body }),
    };
    const stableBefore = await stableAnswersOfA(ops);
    const failures: string[] = [];
    const exercised: string[] = [];

    for (const op of ops) {
      const key = `${op.method} ${op.path}`;
      const special = SPECIAL[key];
      if (special?.skip) continue;
      exercised.push(key);
      const statusBy: Record<string, number> = {};
      for (const [who, call] of Object.entries(asB)) {
        const where = `${key} (as B, ${who})`;
        if (special?.asB) {
          const req = special.asB();
          const res = await call(op.method, req.path, { body: req.body });
          if (res.status !== 404)
            failures.push(
              `${where}: ${req.path} naming A's objects answered ${res.status} ${JSON.stringify(res.body)}, not 404`,
            );
          continue;
        }
        const body = BODIES[key] ?? (op.method === 'GET' || op.method === 'DELETE' ? undefined : {});
        if (!op.path.includes('{')) {
          const res = await call(op.method, op.path, { body });
          statusBy[who] = res.status;
          const text = typeof res.body === 'string' ? res.body : JSON.stringify(res.body);
          for (const secret of secretsOfA)
            if (text?.includes(secret)) failures.push(`${where}: the answer contains A's ${secret}`);
          continue;
        }
        const real = await fillParams(op, key, special?.params);
        if (typeof real === 'string') {
          failures.push(`${where}: ${real}`);
          continue;
        }
        const made = real.path.replace(real.id, fakeLike(real.id));
        const onA = await call(op.method, real.path, { body });
        const onNothing = await call(op.method, made, { body });
        const norm = (r: HttpResult, id: string) =>
          `${r.status} ${JSON.stringify(r.body ?? '').replaceAll(id, '<id>')}`;
        if (norm(onA, real.id) !== norm(onNothing, fakeLike(real.id)))
          failures.push(
            `${where}: A's id answers "${norm(onA, real.id)}" but a made-up id "${norm(onNothing, fakeLike(real.id))}"`,
          );
        else if (onA.status !== 404)
          failures.push(`${where}: A's id answered ${onA.status}, not 404: ${JSON.stringify(onA.body)}`);
      }
    }
    const stableAfter = await stableAnswersOfA(ops);
    // Settings B may set for itself (no ids to compare) are still A's.
    const budget = await c.env.http('GET', '/v1/spend/budgets', { token: a.token });
    if (budget.body?.monthlyUsd !== 1234) failures.push(`A's budget changed: ${JSON.stringify(budget.body)}`);
    for (const [path, before] of stableBefore) {
      const after = stableAfter.get(path) ?? '';
      if (after === before) continue;
      let at = 0;
      while (before[at] === after[at]) at++;
      failures.push(
        `GET ${path} (as A) changed after B's calls: ...${before.slice(at - 60, at + 60)}... is now ...${after.slice(at - 60, at + 60)}...`,
      );
    }
    expect(failures, `leaks:\n${failures.join('\n')}`).toEqual([]);
    // The generic rule reached the operations of every module (a sanity check on the generator).
    for (const must of [
      'GET /v1/ab-tests/{id}',
      'DELETE /v1/evals/datasets/{id}',
      'DELETE /v1/admin/team/invites/{token}',
      'POST /v1/prompts/{id}/versions/{versionId}/publish',
    ])
      expect(exercised).toContain(must);
  }, 300_000);
});

/** The path with A's ids in its parameters, and the id of the last one; or why none was found. */
async function fillParams(
  op: Operation,
  key: string,
  given: Record<string, () => string> = {},
): Promise<{ path: string; id: string } | string> {
  let path = op.path;
  let last = '';
  for (const m of op.path.matchAll(/\{(\w+)\}/g)) {
    const param = m[1]!;
    let id = given[param]?.();
    if (!id) {
      const parent = path.slice(0, path.indexOf(`{${param}}`)).replace(/\/$/, '');
      const listed = await c.env.http('GET', parent, { token: a.token });
      id = listed.status === 200 ? pick(listed.body, param === 'token' ? 'token' : 'id') : undefined;
    }
    if (!id)
      return `no id of workspace A found for {${param}}: add ${key} to SPECIAL in this file with where its id comes from`;
    path = path.replace(`{${param}}`, id);
    last = id;
  }
  return { path, id: last };
}

/**
 * What A sees, to compare before and after B's calls: the ids every parameterless GET lists (B
 * must not add to or take from A's collections) and the whole of every object GET on A's ids (B
 * must not change A's objects). Answers that move with the clock or A's own use are compared by
 * their ids only.
 */
async function stableAnswersOfA(ops: Operation[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const op of ops) {
    if (op.method !== 'GET' || SPECIAL[`GET ${op.path}`]?.skip) continue;
    if (!op.path.includes('{')) {
      const ids = new Set<string>();
      collectIds((await c.env.http('GET', op.path, { token: a.token })).body, ids);
      out.set(op.path, [...ids].sort().join());
      continue;
    }
    const filled = await fillParams(op, `GET ${op.path}`, SPECIAL[`GET ${op.path}`]?.params);
    if (typeof filled === 'string') continue;
    out.set(filled.path, JSON.stringify((await c.env.http('GET', filled.path, { token: a.token })).body, withoutUse));
  }
  return out;
}

/** A's own calls move these (when A's token was last used): not state B could have changed. */
const withoutUse = (key: string, value: unknown) => (key === 'lastUsedAt' ? undefined : value);

/** An id of the same shape that names nothing. */
function fakeLike(id: string): string {
  const prefix = id.slice(0, id.indexOf('_') + 1);
  return `${prefix}${'Z'.repeat(Math.max(8, id.length - prefix.length))}`;
}

describe("the deployment's providers", () => {
  it('no workspace admin reloads them in multi mode (the operator sends SIGHUP): 403, nothing reloaded', async () => {
    const res = await c.env.http('POST', '/v1/providers/reload', { token: b.token, body: {} });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ type: 'permission_error' });
    expect(res.body.error.message).toContain('SIGHUP');
  });
});

describe('data-plane isolation', () => {
  const chat = (token: string, content: string) =>
    new OpenAI({ apiKey: token, baseURL: `${c.env.baseUrl}/v1`, maxRetries: 0 }).chat.completions
      .create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content }], temperature: 0 })
      .withResponse();

  it("A's cached answers never reach B", async () => {
    const question = `${MARK} cache me ${Date.now()}`;
    await chat(a.token, question);
    const again = await chat(a.token, question);
    expect(again.response.headers.get('x-gateway-cache')).toBe('exact');
    const fromB = await chat(b.token, question);
    expect(fromB.response.headers.get('x-gateway-cache')).toBeNull();
    expect((fromB.data as unknown as { _gateway: { cached: boolean } })._gateway.cached).toBe(false);
  });

  it('a session makes chat calls like a token, with its CSRF token', async () => {
    const call = (headers: Record<string, string>) =>
      fetch(`${c.env.baseUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          cookie: `gw_session=${encodeURIComponent(b.cookie)}`,
          ...headers,
        },
        body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'from a browser' }] }),
      });
    expect((await call({})).status).toBe(403);
    const res = await call({ 'x-csrf-token': b.csrf });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { _gateway: { requestId: string } };
    await c.waitForCount(
      'select count(*)::int as n from requests where id = $1 and tenant_id = $2',
      [body._gateway.requestId, b.tenantId],
      1,
    );
  });

  it("A's rate-limit counts never reach B", async () => {
    const limited = async (s: SignedIn) =>
      (await asSession(c.env, s)('POST', '/v1/admin/tokens', { body: { name: 'limited', rateLimitPerMinute: 2 } })).body
        .token as string;
    const ta = await limited(a);
    const tb = await limited(b);
    await chat(ta, 'one');
    await chat(ta, 'two');
    await expect(chat(ta, 'three')).rejects.toMatchObject({ status: 429 });
    const first = await chat(tb, 'one');
    expect(first.response.headers.get('x-ratelimit-remaining')).toBe('1');
  });

  it("A's live-tap events never reach B (B listening with its session cookie)", async () => {
    const listen = async (headers: Record<string, string>) => {
      const res = await fetch(`${c.env.baseUrl}/v1/analytics/live`, { headers });
      expect(res.status).toBe(200);
      const seen: string[] = [];
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let buffer = '';
      void (async () => {
        for (;;) {
          const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
          if (done) return;
          buffer += decoder.decode(value, { stream: true });
          for (let i = buffer.indexOf('\n\n'); i >= 0; i = buffer.indexOf('\n\n')) {
            const frame = buffer.slice(0, i);
            buffer = buffer.slice(i + 2);
            for (const line of frame.split('\n')) if (line.startsWith('data:')) seen.push(line.slice(5).trim());
          }
        }
      })();
      return { seen, close: () => reader.cancel() };
    };
    const ofA = await listen({ authorization: `Bearer ${a.token}` });
    const ofB = await listen({ cookie: `gw_session=${encodeURIComponent(b.cookie)}` });
    const fromA = await chat(a.token, `${MARK} live ${Date.now()}`);
    const idA = fromA.response.headers.get('x-gateway-request-id')!;
    await vi.waitFor(() => expect(ofA.seen.join()).toContain(idA), { timeout: 10_000 });
    const fromB = await chat(b.token, `live b ${Date.now()}`);
    const idB = fromB.response.headers.get('x-gateway-request-id')!;
    await vi.waitFor(() => expect(ofB.seen.join()).toContain(idB), { timeout: 10_000 });
    expect(ofB.seen.join()).not.toContain(idA);
    for (const secret of secretsOfA) expect(ofB.seen.join()).not.toContain(secret);
    await ofA.close();
    await ofB.close();
  });
});
