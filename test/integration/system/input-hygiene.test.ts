import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toGatewayError } from '../../../server/trpc/errors.js';
import { startTestEnv, type TestEnv, type TestTenant } from '../../support/harness.js';
import { expectTypedError } from '../../support/security.js';

// Control-plane inputs: NUL characters, unknown fields, cursors, and who may read the audit log.

let env: TestEnv;
let owner: TestTenant;

beforeAll(async () => {
  env = await startTestEnv();
  owner = await env.createTenant();
});
afterAll(() => env.close());

const cursorOf = (text: string) => Buffer.from(text).toString('base64url');

describe('NUL characters', () => {
  const variants = [
    { provider: 'openai', model: 'gpt-4o-mini', weight: 1 },
    { provider: 'gemini', model: 'gemini-2.0-flash', weight: 1 },
  ];

  it.each([
    ['POST', '/v1/feedback', { requestId: 'req\u0000x', score: 3 }, 'requestId'],
    ['POST', '/v1/feedback', { requestId: 'req_x', score: 3, comment: 'fine\u0000' }, 'comment'],
    ['POST', '/v1/admin/tokens', { name: 'a\u0000b' }, 'name'],
    ['POST', '/v1/ab-tests', { name: 'a\u0000b', variants }, 'name'],
    [
      'POST',
      '/v1/ab-tests',
      { name: 'ok', variants: [variants[0], { ...variants[1], model: 'x\u0000' }] },
      'variants.1.model',
    ],
    ['GET', '/v1/feedback?requestId=a%00b', undefined, 'requestId'],
    ['GET', '/v1/audit-logs?action=a%00b', undefined, 'action'],
    ['GET', '/v1/feedback/quality/trend?provider=a%00b', undefined, 'provider'],
  ])('%s %s with a NUL answers 400 naming the field', async (method, path, body, field) => {
    const res = await env.http(method, path, { token: owner.token, body });
    expectTypedError(res, 400, 'invalid_request_error');
    expect(res.body.error.message).toContain(`${field}:`);
    expect(res.body.error.message).toContain('NUL');
  });

  it('is refused on the SDK transport too', async () => {
    await expect(env.sdk(owner.token).tokens.create.mutate({ name: 'a\u0000b' })).rejects.toMatchObject({
      data: { gatewayError: { type: 'invalid_request_error', message: expect.stringContaining('name:') } },
    });
  });

  it('still answers 401 before looking at the input', async () => {
    expectTypedError(await env.http('POST', '/v1/admin/tokens', { body: { name: 'a\u0000b' } }), 401, 'auth_error');
  });

  it('a value PostgreSQL refuses becomes a 400 without its SQL, as a safety net', async () => {
    const refused = await env.database.pool.query('select $1::text', ['a\u0000b']).catch((e: unknown) => e);
    expect((refused as { code?: string }).code).toBe('22021');
    const wrapped = new Error('Failed query: select $1::text\nparams: a', { cause: refused });
    const err = toGatewayError(new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: wrapped }));
    expect(err).toMatchObject({ type: 'invalid_request_error', status: 400 });
    expect(err.message).not.toMatch(/select|Failed query/i);

    for (const time of ['0000-01-01T00:00:00Z', '+275760-09-13T00:00:00.000Z']) {
      const outOfRange = await env.database.pool.query('select $1::timestamptz', [time]).catch((e: unknown) => e);
      expect(toGatewayError(outOfRange)).toMatchObject({ type: 'invalid_request_error', status: 400 });
    }
  });
});

describe('unknown fields', () => {
  it('PATCH /v1/admin/tokens/{id} {"admin": false} is a 400 naming the field, and the token stays admin', async () => {
    const created = await env.http('POST', '/v1/admin/tokens', {
      token: owner.token,
      body: { name: 'still-admin', admin: true },
    });
    const res = await env.http('PATCH', `/v1/admin/tokens/${created.body.id}`, {
      token: owner.token,
      body: { admin: false },
    });
    expectTypedError(res, 400, 'invalid_request_error');
    expect(res.body.error.message).toBe('admin: unknown field');
    const list = await env.http('GET', '/v1/admin/tokens', { token: owner.token });
    expect(list.body.items.find((t: { id: string }) => t.id === created.body.id).admin).toBe(true);
  });

  it.each([
    ['POST', '/v1/admin/tokens', { name: 'x', rateLimit: 5 }, 'rateLimit: unknown field'],
    ['POST', '/v1/feedback', { requestId: 'req_x', score: 3, note: 'typo' }, 'note: unknown field'],
    ['PUT', '/v1/feedback/judge/config', { enabled: true, sample_rate: 1 }, 'sample_rate: unknown field'],
    ['POST', '/v1/admin/scheduler/jobs/judge/run', { force: true }, 'force: unknown field'],
    ['GET', '/v1/audit-logs?acton=token.create', undefined, 'acton: unknown field'],
    ['GET', '/v1/feedback?source=user&reqId=x', undefined, 'reqId: unknown field'],
    ['GET', '/v1/models/pricing?bogus=1', undefined, 'bogus: unknown field'],
    ['PUT', '/v1/models/pricing/overrides', { model: 'gpt-4o', input: 1, output: 1, ttl: 1 }, 'ttl: unknown field'],
    ['DELETE', '/v1/models/pricing/overrides?model=gpt-4o&modle=x', undefined, 'modle: unknown field'],
    ['GET', '/v1/analytics/timeseries?range=24h&from=2030-01-01', undefined, 'from: unknown field'],
    ['GET', '/v1/analytics/overview?tenant=x', undefined, 'tenant: unknown field'],
    ['GET', '/v1/analytics/requests?limit=5&sort=latency', undefined, 'sort: unknown field'],
    ['GET', '/v1/providers?verbose=1', undefined, 'verbose: unknown field'],
    ['POST', '/v1/providers/reload', { force: true }, 'force: unknown field'],
  ])('%s %s with an unknown field answers 400', async (method, path, body, message) => {
    const res = await env.http(method, path, { token: owner.token, body });
    expectTypedError(res, 400, 'invalid_request_error');
    expect(res.body.error.message).toContain(message);
  });
});

describe('cursors', () => {
  it.each([
    ['year 0', cursorOf('0000-01-01T00:00:00Z|aud_x')],
    ['a six-digit year', cursorOf('+275760-09-13T00:00:00.000Z|aud_x')],
    ['30 February', cursorOf('2024-02-30T00:00:00Z|aud_x')],
    ['no id', cursorOf('2024-01-01T00:00:00Z|')],
    ['an id with a NUL', cursorOf('2024-01-01T00:00:00Z|a\u0000b')],
    ['three parts', cursorOf('2024-01-01T00:00:00Z|a|b')],
    ['garbage', 'garbage'],
  ])('%s is a 400 on both paged lists', async (_what, cursor) => {
    for (const path of ['/v1/audit-logs', '/v1/feedback']) {
      expectTypedError(
        await env.http('GET', `${path}?cursor=${cursor}`, { token: owner.token }),
        400,
        'invalid_request_error',
      );
    }
  });

  it('accepts the years 1 and 9999, and cursors written before microseconds', async () => {
    for (const text of [
      '0001-01-01T00:00:00Z|aud_x',
      '9999-12-31T23:59:59.999999Z|aud_x',
      '2024-01-01T00:00:00.123Z|aud_x',
    ]) {
      expect((await env.http('GET', `/v1/audit-logs?cursor=${cursorOf(text)}`, { token: owner.token })).status).toBe(
        200,
      );
    }
  });
});

describe('audit log paging', () => {
  it('walks rows written within one millisecond, and at the same microsecond, exactly once each', async () => {
    const t = await env.createTenant();
    const rows = [
      ['aud_m1', '2024-05-01T00:00:00.123100Z'],
      ['aud_m2', '2024-05-01T00:00:00.123200Z'],
      ['aud_m3', '2024-05-01T00:00:00.123300Z'],
      ['aud_m4', '2024-05-01T00:00:00.123300Z'],
      ['aud_m0', '2024-05-01T00:00:00.123300Z'],
      ['aud_z9', '2024-05-01T00:00:00.122999Z'],
    ];
    for (const [id, createdAt] of rows) {
      await env.database.pool.query(
        `insert into audit_logs (id, tenant_id, actor_type, action, target_type, created_at) values ($1, $2, 'system', 'test.same-ms', 'test', $3)`,
        [id, t.tenantId, createdAt],
      );
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { items: Array<{ id: string }>; nextCursor: string | null } } = await env.http(
        'GET',
        `/v1/audit-logs?action=test.same-ms&limit=1${cursor ? `&cursor=${cursor}` : ''}`,
        { token: t.token },
      );
      seen.push(...page.body.items.map((e) => e.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(['aud_m4', 'aud_m3', 'aud_m0', 'aud_m2', 'aud_m1', 'aud_z9']);
  });
});

describe('audit log access', () => {
  it('is for admin tokens only: other tokens get 403 permission_error', async () => {
    const member = await env.http('POST', '/v1/admin/tokens', { token: owner.token, body: { name: 'member' } });
    expectTypedError(await env.http('GET', '/v1/audit-logs', { token: member.body.token }), 403, 'permission_error');
    await expect(env.sdk(member.body.token).audit.list.query({ limit: 10 })).rejects.toMatchObject({
      data: { gatewayError: { type: 'permission_error' } },
    });
    expect((await env.http('GET', '/v1/audit-logs', { token: owner.token })).status).toBe(200);
  });

  it('keeps the team tier rule for admin tokens', async () => {
    const free = await env.createTenant('free');
    expectTypedError(await env.http('GET', '/v1/audit-logs', { token: free.token }), 402, 'insufficient_tier');
  });
});

describe('text PostgreSQL cannot store, bodies that are not UTF-8, and bodies nested too deep', () => {
  it.each([
    ['POST', '/v1/admin/tokens', { name: 'surr\ud800x' }, 'name'],
    ['POST', '/v1/feedback', { requestId: 'req_x', score: 3, comment: 'c\udc00d' }, 'comment'],
    [
      'POST',
      '/v1/ab-tests',
      {
        name: 'ok\ud83d',
        variants: [
          { provider: 'openai', model: 'gpt-4o-mini', weight: 1 },
          { provider: 'gemini', model: 'gemini-2.0-flash', weight: 1 },
        ],
      },
      'name',
    ],
  ])(
    '%s %s with a lone surrogate answers 400 naming the field instead of storing U+FFFD',
    async (method, path, body, field) => {
      const res = await env.http(method, path, { token: owner.token, body });
      expectTypedError(res, 400, 'invalid_request_error');
      expect(res.body.error.message).toMatch(new RegExp(`^${field.replace('.', '\\.')}: must be valid Unicode text`));
    },
  );

  it('a lone surrogate is refused on the SDK transport too, and a surrogate pair is text like any other', async () => {
    await expect(env.sdk(owner.token).tokens.create.mutate({ name: 'x\ud800' })).rejects.toMatchObject({
      data: {
        gatewayError: {
          type: 'invalid_request_error',
          message: expect.stringContaining('name: must be valid Unicode text'),
        },
      },
    });
    const created = await env.http('POST', '/v1/admin/tokens', {
      token: owner.token,
      body: { name: 'rocket \ud83d\ude80' },
    });
    expect(created.status).toBe(200);
    expect(created.body.name).toBe('rocket \u{1f680}');
  });

  it('a body whose bytes are not UTF-8 answers 400 instead of being stored with U+FFFD', async () => {
    const res = await env.http('POST', '/v1/admin/tokens', {
      token: owner.token,
      rawBody: Buffer.concat([Buffer.from('{"name":"bad'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]),
      headers: { 'content-type': 'application/json' },
    });
    expectTypedError(res, 400, 'invalid_request_error');
    expect(res.body.error.message).toBe('Request body is not valid UTF-8');
  });

  it('a media type in capitals is JSON too (media types are case-insensitive)', async () => {
    const res = await env.http('POST', '/v1/admin/tokens', {
      token: owner.token,
      rawBody: JSON.stringify({ name: 'caps' }),
      headers: { 'content-type': 'Application/JSON; charset=UTF-8' },
    });
    expect(res.status).toBe(200);
    expect(res.body.name).toBe('caps');
  });

  it('a body nested thousands of levels deep answers 400, with or without a token, where it was a 500', async () => {
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    for (const token of [owner.token, undefined]) {
      for (const [method, path] of [
        ['POST', '/v1/feedback'],
        ['POST', '/v1/admin/tokens'],
        ['PUT', '/v1/feedback/judge/config'],
      ] as const) {
        const res = await env.http(method, path, {
          token,
          rawBody: deep,
          headers: { 'content-type': 'application/json' },
        });
        expectTypedError(res, 400, 'invalid_request_error');
        expect(res.body.error.message).toMatch(/nested more than 64 levels deep/);
      }
    }
  });
});
